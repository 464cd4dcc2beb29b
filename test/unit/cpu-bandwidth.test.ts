import { describe, expect, it } from 'vitest';
import { createContext, type SimContext } from '../../src/sim/context';
import { atSeconds, millis, toMillis, type Duration, type SimTime } from '../../src/sim/core/time';
import { CpuControllers, quotaFor, type CfsKernel, type CpuBandwidth } from '../../src/sim/infra/cpu-bandwidth';

const PERIOD = millis(100);
const SLICE = millis(5);

interface Bench {
  ctx: SimContext;
  cfs: CpuBandwidth;
  /** How long each burst took from submission to completion, in ms. */
  took: number[];
  /** Submits `count` bursts of `ms` each at `t` µs. */
  at: (t: number, count: number, ms: number) => void;
}

function bench(kernel: CfsKernel, cpus: number, limitCores: number | undefined): Bench {
  const ctx = createContext(1);
  const controllers = new CpuControllers(ctx);
  const cfs = controllers.create('pod/api-0', 'api', cpus, { periodUs: PERIOD, quotaUs: quotaFor(limitCores, PERIOD), sliceUs: SLICE, kernel });
  const took: number[] = [];
  const done = ctx.sched.register('test.done', (submitted) => took.push(toMillis((ctx.sched.now - submitted) as Duration)));
  const submit = ctx.sched.register('test.submit', (count, us) => {
    for (let i = 0; i < count; i++) cfs.run(us, done, ctx.sched.now, 0);
  });
  cfs.start();
  return { ctx, cfs, took, at: (t, count, ms) => ctx.sched.at(t as SimTime, submit, count, millis(ms)) };
}

/**
 * docs/sources/linux-cfs.md#test-vectors, vector 1: quota 20 ms per 100 ms, 8 threads on 8 CPUs each needing 1 ms at
 * the start of every period.
 */
function vector3(kernel: CfsKernel): Bench {
  const b = bench(kernel, 8, 0.2);
  for (let period = 0; period < 20; period++) b.at(period * PERIOD + 1, 8, 1);
  b.ctx.sched.runUntil(atSeconds(2));
  return b;
}

describe('CFS bandwidth control (docs/sources/linux-cfs.md)', () => {
  it('sets the quota from the limit: 200m is 20 ms per 100 ms; no limit, no quota', () => {
    expect(quotaFor(0.2, PERIOD)).toBe(millis(20));
    expect(quotaFor(undefined, PERIOD)).toBe(Infinity);
    expect(quotaFor(0, PERIOD)).toBe(Infinity);
  });

  it('on a kernel that expires slices, throttles every period while the cgroup uses 40 % of its quota (H.4 vector 3)', () => {
    const { cfs, took } = vector3('expiring');
    expect(cfs.stat.periods).toBe(20);
    expect(cfs.stat.throttledPeriods).toBe(20);
    // 8 ms of 20 ms used each period.
    expect(cfs.stat.usageUs).toBe(20 * millis(8));
    // Four CPUs got a 5 ms slice; the other four waited for the slack timer, 5 ms after the first ones went idle.
    const slow = took.filter((ms) => ms > 1.5);
    expect(slow.length).toBe(20 * 4);
    expect(Math.min(...slow)).toBeGreaterThanOrEqual(6);
    expect(cfs.lastPeriod.expiredUs).toBe(8 * millis(1));
  });

  it('on a fixed kernel, each CPU keeps its 1 ms and nothing is throttled after the first period, on the same quota', () => {
    const { cfs, took } = vector3('fixed');
    expect(cfs.quotaUs).toBe(millis(20));
    expect(cfs.stat.throttledPeriods).toBe(1);
    expect(took.slice(8).every((ms) => ms === 1)).toBe(true);
    expect(cfs.lastPeriod.expiredUs).toBe(0);
  });

  it('without a limit never throttles and counts no periods', () => {
    const b = bench('expiring', 8, undefined);
    for (let period = 0; period < 5; period++) b.at(period * PERIOD + 1, 8, 1);
    b.ctx.sched.runUntil(atSeconds(1));
    expect(b.cfs.stat.throttledPeriods).toBe(0);
    expect(b.cfs.stat.periods).toBe(0);
    expect(b.took.every((ms) => ms === 1)).toBe(true);
  });

  it('a cgroup that needs more than its quota waits for the next period, whatever the kernel', () => {
    for (const kernel of ['expiring', 'fixed'] as const) {
      const b = bench(kernel, 2, 0.1);
      // 30 ms of work on one thread against a 10 ms quota: done in the third period.
      b.at(1, 1, 30);
      b.ctx.sched.runUntil(atSeconds(1));
      expect(b.took[0]!, kernel).toBeGreaterThan(200);
      expect(b.took[0]!, kernel).toBeLessThan(300);
      expect(b.cfs.stat.usageUs).toBe(millis(30));
    }
  });

  it('a new limit applies in place: lifting it releases throttled CPUs at once', () => {
    const b = bench('expiring', 8, 0.2);
    b.at(1, 8, 1);
    b.ctx.sched.runUntil(atSeconds(0.0015));
    expect(b.cfs.throttledCpus).toBe(4);
    b.cfs.setQuota(Infinity);
    b.ctx.sched.runUntil(atSeconds(0.1));
    expect(b.took.length).toBe(8);
    expect(Math.max(...b.took)).toBeLessThan(3);
  });
});
