/**
 * The shipped replay of service discovery at scale (public/scenarios/service-discovery.yaml): a deploy of a service
 * with a thousand backends makes every watcher re-read it in 1 + N requests, ZooKeeper's hosts run out of packet
 * allowance, clients keep calling gone backends, and HAProxy restarts pile up memory in every client pod; then a
 * scale-up of users makes every HAProxy check more backends than the nodes' packet allowance carries.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'service-discovery.yaml';
const FIXES = ['single-roundtrip-read', 'compact-encoding', 'jitter-and-throttle', 'split-service', 'envoy', 'envoy-half', 'slower-checks'];
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

  it("users' scale-up runs every node past its allowance: 2 × 900,000 check packets a second against 40 × 42,000", () => {
    const over = base.series['hypervisor.pps_allowance_exceeded']!.values;
    // Once every client pod has restarted with the new backends, each packet counted at both ends, every node full.
    for (const v of over.slice(200, 240)) expect(v).toBe(2 * 900_000 - 40 * 42_000);
    expect(over.slice(0, 150).every((v) => v === 0)).toBe(true);
    const usersFailed = (r: RunReport) => r.series['mesh.requests.failed{service=users}']!.values.slice(150).reduce((a, b) => a + b, 0);
    expect(usersFailed(base)).toBeGreaterThan(1000);
    // Checks every 5 s: 360,000 packets a second, 18,000 at each node.
    expect(total(fixed['slower-checks']!, 'hypervisor.pps_allowance_exceeded')).toBe(0);
    expect(usersFailed(fixed['slower-checks']!)).toBe(0);
  });

  it("restarts take the talk's 2–5 s: 2.9 s for 1,300 lines in the deploy, 3.3 s for 1,500 once users has scaled", () => {
    const step = (metric: string) => base.series[metric]!.values;
    const [count, within3] = [step('haproxy.reload.seconds.count'), step('haproxy.reload.seconds.le_3')];
    expect(total(base, 'haproxy.reload.seconds.le_2')).toBe(0);
    expect(total(base, 'haproxy.reload.seconds.le_5')).toBe(total(base, 'haproxy.reloads'));
    // Every restart before the scale-up in the 2–3 s bucket; after it, configurations of up to 1,500 lines pass 3 s.
    count.slice(0, 150).forEach((n, k) => expect(within3[k] ?? 0, `second ${k}`).toBe(n));
    const above3 = count.slice(150).reduce((sum, n, k) => sum + n - (within3[150 + k] ?? 0), 0);
    expect(above3).toBeGreaterThan(0);
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
