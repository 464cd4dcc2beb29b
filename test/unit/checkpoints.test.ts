import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../src/sim/sim';
import { simTime } from '../../src/sim/core/time';
import { Checkpoints } from '../../src/worker/checkpoints';
import type { TimedFault } from '../../src/worker/fault-record';

const at = (s: number, bytes = 10): Checkpoint => ({ atUs: simTime(s * 1e6), events: s, state: { bytes } as Checkpoint['state'] });
const fault = (s: number, target: string): TimedFault => ({ at: s * 1e6, fault: { fault: 'delete-pod', target } });

describe('the checkpoints a run keeps', () => {
  it('stay within the budget by thinning where they are closest together, keeping the first and the newest', () => {
    const kept = new Checkpoints(100);
    for (let s = 0; s <= 40; s++) kept.add(at(s), []);
    expect(kept.bytes).toBeLessThanOrEqual(100);
    expect(kept.count).toBe(10);
    const times = kept.times().map((t) => t / 1e6);
    expect(times[0]).toBe(0);
    expect(times.at(-1)).toBe(40);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Spread over the whole run, not bunched at its end.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2 * Math.min(...gaps) + 2);
    // One that alone exceeds the budget is not kept; one at a time already kept with the same faults replaces it.
    kept.add(at(41, 101), []);
    expect(kept.times().at(-1)).toBe(40e6);
    kept.add(at(40, 5), []);
    expect(kept.count).toBe(10);
    expect(kept.bytes).toBe(95);
  });

  it('land a seek on the latest one before the target whose applied faults begin the record, with nothing of it skipped', () => {
    const kept = new Checkpoints(1_000);
    const a = fault(5, 'pod/a');
    kept.add(at(0), []);
    kept.add(at(4), []);
    kept.add(at(8), [a]);
    kept.add(at(12), [a]);
    expect(kept.nearest(10e6, [a])?.checkpoint.atUs).toBe(8e6);
    expect(kept.nearest(20e6, [a, fault(15, 'pod/b')])?.checkpoint.atUs).toBe(12e6);
    // The record lost the fault: only checkpoints taken before it fit.
    expect(kept.nearest(20e6, [])?.checkpoint.atUs).toBe(4e6);
    // A new fault at 2 s that no checkpoint applied: only the start fits.
    expect(kept.nearest(20e6, [fault(2, 'pod/c'), a])?.checkpoint.atUs).toBe(0);
    expect(kept.nearest(3e6, [a])?.checkpoint.atUs).toBe(0);
    kept.clear();
    expect(kept.nearest(20e6, [])).toBeUndefined();
    expect(kept.bytes).toBe(0);
  });
});
