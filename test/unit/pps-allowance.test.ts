import { describe, expect, it } from 'vitest';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { LINKLOCAL_PPS, PpsAllowance } from '../../src/sim/infra/pps-allowance';

/** Offers `pps` evenly spaced packets for `seconds`; returns how many were over the allowance in the last second. */
function overInLastSecond(allowance: PpsAllowance, pps: number, seconds: number): number {
  let before = 0;
  for (let i = 0; i < pps * seconds; i++) {
    if (i === pps * (seconds - 1)) before = allowance.exceeded;
    allowance.admit(Math.round((i * 1_000_000) / pps) as SimTime);
  }
  return allowance.exceeded - before;
}

describe('PPS allowance', () => {
  it('vector E.4 #2: 1500 DNS queries/s through the 1024 pps link-local allowance ⇒ about 476 dropped each second', () => {
    expect(Math.abs(overInLastSecond(new PpsAllowance(LINKLOCAL_PPS), 1500, 5) - 476)).toBeLessThanOrEqual(2);
  });

  it('admits everything under the allowance, after an initial burst as well', () => {
    const allowance = new PpsAllowance(LINKLOCAL_PPS);
    expect(overInLastSecond(allowance, 1000, 3)).toBe(0);
    expect(allowance.exceeded).toBe(0);
  });

  it('lets a saved-up burst through at once, then holds to the rate', () => {
    const allowance = new PpsAllowance(100, 10);
    let admitted = 0;
    for (let i = 0; i < 50; i++) if (allowance.admit(atSeconds(1))) admitted++;
    expect(admitted).toBe(10);
    expect(allowance.admit(atSeconds(1.005))).toBe(false);
    expect(allowance.admit(atSeconds(1.01))).toBe(true);
  });
});
