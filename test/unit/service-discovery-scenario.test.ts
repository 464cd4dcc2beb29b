/**
 * The shipped replay of service discovery at scale (public/scenarios/service-discovery.yaml): a deploy of a service
 * with a thousand backends makes every watcher re-read it in 1 + N requests, ZooKeeper's hosts run out of packet
 * allowance, clients keep calling gone backends, and HAProxy restarts pile up memory in every client pod.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'service-discovery.yaml';
const FIXES = ['single-roundtrip-read', 'compact-encoding', 'jitter-and-throttle', 'split-service', 'envoy', 'envoy-half'];
const total = (r: RunReport, metric: string): number => r.totals[metric] ?? 0;

describe(FILE, () => {
  const base = runShipped(FILE);
  const fixed = Object.fromEntries(FIXES.map((f) => [f, runShipped(FILE, [f])]));
  const both = runShipped(FILE, ['single-roundtrip-read', 'compact-encoding']);

  it('holds every expectation it ships, without fixes, with each, and with both ZooKeeper fixes', () => {
    for (const r of [base, both, ...Object.values(fixed)])
      expect(
        r.expect.filter((e) => !e.held),
        r.fixes.join(','),
      ).toEqual([]);
  });

  it('reads per change: a watcher reads 1 + N nodes per change, and changes during a read share the next one', () => {
    const watchers = 300;
    const reads = total(base, 'zk.reads');
    // At least one full read of search per watcher per wave of changes, far fewer than one per change.
    expect(reads).toBeGreaterThan(watchers * 1001 * 5);
    expect(reads).toBeLessThan(watchers * 1001 * 2000);
    // One request per read instead of 1 + N, and faster reads take each change more nearly on its own.
    expect(total(fixed['single-roundtrip-read']!, 'zk.reads')).toBeLessThan(reads / 100);
  });

  it('memory follows the processes: each HAProxy process holds 20 MB + 40 kB per line of 1,300', () => {
    const perProcess = 20 + (40 * 1300) / 1024;
    expect(base.series['mesh.proxy.memory_mb.max']!.values[0]).toBe(Math.round(perProcess));
    // Restarts leave over ten processes per pod alive at the peak, and the worst pod's memory grows with them.
    const peak = Math.max(...base.series['mesh.proxy.memory_mb.max']!.values);
    const processes = Math.max(...base.series['haproxy.processes']!.values);
    expect(processes / 300).toBeGreaterThan(10);
    expect(peak / perProcess).toBeGreaterThan(10);
    // Envoy holds its table, not processes.
    expect(Math.max(...fixed['envoy']!.series['mesh.proxy.memory_mb.max']!.values)).toBeLessThan(perProcess);
  });

  it('health checks are traffic in proportion to pods × lines: 780,000 packets a second, 480,000 when split, none on Envoy', () => {
    const first = (r: RunReport) => r.series['haproxy.checks.packets']!.values[0]!;
    // 300 pods × 1,300 lines / 2 s × 4 packets, and 800 lines once search is split.
    expect(first(base)).toBe(780_000);
    expect(first(fixed['split-service']!) / first(base)).toBeCloseTo(800 / 1300, 3);
    expect(total(fixed['envoy']!, 'haproxy.checks.packets')).toBe(0);
    // Each backend is checked by all 300 pods every 2 s, and the checks take 150 × 1 ms of its 4 workers' time.
    expect(Math.max(...base.series['mesh.backend.checks_per_second.max']!.values)).toBe(150);
    expect(Math.max(...base.series['mesh.backend.check_load_pct.max']!.values)).toBe(4);
  });

  it("restarts take the talk's 2–5 s: 2.9 s for 1,300 lines, every one of them in the 2–3 s bucket", () => {
    expect(total(base, 'haproxy.reload.seconds.le_2')).toBe(0);
    expect(total(base, 'haproxy.reload.seconds.le_3')).toBe(total(base, 'haproxy.reloads'));
  });

  it('the Envoy share moves failures and restarts in step: 0 %, 50 %, 100 %', () => {
    const failed = [base, fixed['envoy-half']!, fixed['envoy']!].map((r) => total(r, 'requests.failed'));
    const reloads = [base, fixed['envoy-half']!, fixed['envoy']!].map((r) => total(r, 'haproxy.reloads'));
    expect(failed[0]).toBeGreaterThan(failed[1]!);
    expect(failed[1]).toBeGreaterThan(failed[2]!);
    expect(reloads[2]).toBe(0);
    // Half the pods restart: about half the reloads.
    expect(reloads[1]! / reloads[0]!).toBeGreaterThan(0.4);
    expect(reloads[1]! / reloads[0]!).toBeLessThan(0.6);
  });

  it('explains a failed request from the client to the deploy that started the storm', () => {
    const sim = shippedSim(FILE);
    sim.runUntil(sim.durationUs);
    const chain = sim.report(0).why.find((c) => c.symptom.startsWith('requests to gone backends'));
    expect(chain).toBeDefined();
    const text = chain!.steps.map((s) => `${s.entity}: ${s.text}`);
    expect(text[0]).toMatch(/^pod\/api-\d+: \d{1,3}(,\d{3})* requests to search failed at backends that were already gone/);
    expect(text.some((t) => /^pod\/search-\d+: was deregistered from \/services\/search by its mini-announcer/.test(t))).toBe(true);
    expect(text.some((t) => /1,001 requests, one after another/.test(t))).toBe(true);
    expect(text.some((t) => /^zookeeper\/ensemble: search changed [\d,]+ times; .* 300,300 reads for a change on its own/.test(t))).toBe(true);
    expect(text.some((t) => /^zookeeper\/ensemble: its packet alarm fired .* against an allowance of 40,000/.test(t))).toBe(true);
    expect(text.at(-1)).toMatch(/^deployment\/search: rolled out a new version at 30\.0 s/);
    // The drop panel's "why?" on the dropped packets tells the ZooKeeper side of the same story.
    const drops = sim.whyOf('hypervisor_pps_exceeded');
    expect(drops?.steps[0]?.entity).toBe('zookeeper/ensemble');
    expect(drops?.steps.some((s) => s.text.includes('300,300 reads'))).toBe(true);
  });
});
