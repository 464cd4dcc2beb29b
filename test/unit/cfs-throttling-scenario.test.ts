/**
 * The shipped replay of the CFS throttling story (public/scenarios/cfs-throttling.yaml): an I/O-bound service whose
 * threads touch dozens of CPUs is throttled in most periods on a kernel that expires unused runtime, while it uses a
 * quarter of its quota; the fixed kernel, no limit or a larger one end the throttling.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { runShipped } from '../fixtures/scenario-run';

const FILE = 'cfs-throttling.yaml';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);
const total = (r: RunReport, name: string): number => r.totals[name] ?? 0;
const throttled = (r: RunReport): number => total(r, 'cpu.throttled_periods{deployment=api}') / total(r, 'cpu.periods{deployment=api}');
const usedShare = (r: RunReport): number => total(r, 'cpu.usage_ms{deployment=api}') / total(r, 'cpu.quota_ms{deployment=api}');
/** The share of requests slower than `ms`. */
const slower = (r: RunReport, ms: number): number => 1 - total(r, `requests.latency_ms.le_${ms}`) / total(r, 'requests.latency_ms.count');

describe(FILE, () => {
  const base = run();
  const fixed = run(['kernel-fixed']);

  it('holds every expectation it ships, for the run and each fix', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    for (const fix of ['kernel-fixed', 'no-cpu-limit', 'larger-limit'])
      expect(
        run([fix]).expect.filter((e) => !e.held),
        fix,
      ).toEqual([]);
  });

  it('is throttled in almost every period while it uses a quarter of its quota', () => {
    expect(throttled(base)).toBeGreaterThan(0.9);
    expect(usedShare(base)).toBeGreaterThan(0.2);
    expect(usedShare(base)).toBeLessThan(0.3);
    expect(slower(base, 50)).toBeGreaterThan(0.03);
  });

  it('with the fixed kernel, throttled periods fall to near zero on the same quota and the same work', () => {
    expect(throttled(fixed)).toBeLessThan(0.01);
    expect(total(fixed, 'cpu.quota_ms{deployment=api}')).toBe(total(base, 'cpu.quota_ms{deployment=api}'));
    expect(total(fixed, 'cpu.usage_ms{deployment=api}')).toBeCloseTo(total(base, 'cpu.usage_ms{deployment=api}'), -2);
    // Only the first period, before any CPU holds runtime to carry, can make a request wait.
    expect(slower(fixed, 50)).toBeLessThan(0.001);
  });

  it('throttles less as the limit grows, and not at all from where the quota covers what the CPUs strand', () => {
    const shares = [0.4, 0.45, 0.5, 0.6, 0.8].map((cores) => throttled(run([], [`topology.deployments.api.cpuLimit=${cores}`])));
    for (let i = 1; i < shares.length; i++) expect(shares[i]!).toBeLessThanOrEqual(shares[i - 1]!);
    expect(shares.at(-1)!).toBeLessThan(0.05);
  });

  it('throttles more when the same work spreads over more CPUs', () => {
    const fewer = run([], ['params.node.cores=8']);
    const more = run([], ['params.node.cores=64']);
    expect(throttled(fewer)).toBeLessThan(throttled(more));
    expect(total(fewer, 'cpu.throttled_ms{deployment=api}')).toBeLessThan(total(more, 'cpu.throttled_ms{deployment=api}'));
  });

  it('explains the waiting requests down to the CPUs and the expiring runtime', () => {
    const chain = base.why.find((c) => c.symptom === 'requests waiting for CPU at pod/api-0')!;
    expect(chain.steps.map((s) => s.text)).toEqual([
      expect.stringMatching(/^\d{1,3}(,\d{3})* requests waited 5 ms or more for CPU beyond their own work; the longest \d+\.\d ms$/),
      expect.stringMatching(/^its cgroup was throttled in \d{1,3}(,\d{3})* of 600 periods; in the latest it used \d+\.\d ms of its 40\.0 ms quota$/),
      expect.stringMatching(
        /^its threads ran on \d+ CPUs; a CPU takes runtime from the quota 5\.0 ms at a time and keeps 1 ms when it goes idle, and on this kernel \(4\.18 to 5\.3\) the \d+\.\d ms the CPUs still held expired at the period's end$/,
      ),
      'its CPU limit of 0.4 cores sets the quota to 40.0 ms per 100.0 ms period',
    ]);
    // The fixed kernel throttles only in the first period, and says that nothing expired.
    const fixedChain = fixed.why.find((c) => c.symptom.includes('CPU'));
    expect(fixedChain?.steps.map((s) => s.text)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^its cgroup was throttled in 1 of 600 periods/),
        expect.stringMatching(/so the pool ran dry while CPUs held what the others needed; on this kernel unused runtime carries over, so nothing expired$/),
      ]),
    );
  });
});
