import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/sim/core/scheduler';
import { Rng } from '../../src/sim/core/rng';
import { micros, seconds, type SimTime } from '../../src/sim/core/time';
import { AdaptiveDialTimeout, KUBEADM_MAX_CONCURRENT, MaxConcurrent } from '../../src/sim/k8s/dns-forward';

/** Offers Poisson queries at `qps` to a silent upstream that holds each admitted query `holdSeconds`. */
function saturate(slots: number, holdSeconds: number, qps: number, runSeconds = 60) {
  const sched = new Scheduler();
  const rng = new Rng(1).stream('queries');
  const limit = new MaxConcurrent(slots);
  let offered = 0;
  let admitted = 0;
  let peakMemory = 0;
  const warmUp = seconds(holdSeconds * 2);
  const release = sched.register('release', () => limit.release());
  const arrive = sched.register('arrive', () => {
    const counted = sched.now >= warmUp;
    if (counted) offered++;
    if (limit.tryAcquire()) {
      if (counted) admitted++;
      sched.after(seconds(holdSeconds), release);
    }
    peakMemory = Math.max(peakMemory, limit.memoryBytes);
    sched.after(micros(rng.exponential(1e6 / qps)), arrive);
  });
  sched.after(micros(0), arrive);
  sched.runUntil(seconds(runSeconds) as number as SimTime);
  const measured = runSeconds - holdSeconds * 2;
  return { admittedPerSecond: admitted / measured, refusedShare: 1 - admitted / offered, peakMemory };
}

describe('CoreDNS forward max_concurrent (REFERENCE B.5, B.6)', () => {
  it('vector 1: 1000 slots, a silent upstream holding 5 s, 500 qps offered ⇒ ~200 qps admitted and 60 % REFUSED', () => {
    const r = saturate(KUBEADM_MAX_CONCURRENT, 5, 500);
    expect(Math.abs(r.admittedPerSecond - 200)).toBeLessThan(6);
    expect(Math.abs(r.refusedShare - 0.6)).toBeLessThan(0.03);
  });

  it.each([
    [1000, 2, 500],
    [1000, 4, 250],
    [400, 5, 80],
  ])('vector 2 and Little’s law: %i slots held %i s saturate at %i qps', (slots, hold, rate) => {
    const r = saturate(slots, hold, rate * 2);
    expect(Math.abs(r.admittedPerSecond / rate - 1)).toBeLessThan(0.03);
    expect(Math.abs(r.refusedShare - 0.5)).toBeLessThan(0.03);
  });

  it('refuses nothing below saturation, and holds about 2 KB per concurrent query (≈2 MB at 1000)', () => {
    const r = saturate(1000, 5, 150);
    expect(r.refusedShare).toBe(0);
    expect(saturate(1000, 5, 500).peakMemory).toBe(1000 * 2048);
  });
});

describe('forward dial timeout (REFERENCE B.6 vector 4)', () => {
  it('starts at 30 s, is 22.5 s after one fast dial, and reaches the 1 s floor after 12 fast dials', () => {
    const dial = new AdaptiveDialTimeout();
    expect(dial.timeoutMs).toBe(30_000);
    dial.observe(1);
    expect(dial.timeoutMs / 1000).toBeCloseTo(22.5, 2);
    for (let i = 2; i <= 11; i++) dial.observe(1);
    expect(dial.timeoutMs).toBeGreaterThan(1_000);
    dial.observe(1);
    expect(dial.timeoutMs).toBe(1_000);
  });
});
