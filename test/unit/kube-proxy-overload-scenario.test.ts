/**
 * The shipped replay of the kube-proxy story (public/scenarios/kube-proxy-overload.yaml): full restores of a large
 * ruleset take seconds; a crash-looping application keeps every node's kube-proxy syncing back to back; an unrelated
 * rollout's rule changes wait, and nodes send connections to pods that have gone. Each fix moves it its own way.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { runShipped } from '../fixtures/scenario-run';

const FILE = 'kube-proxy-overload.yaml';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);
const total = (r: RunReport, name: string): number => r.totals[name] ?? 0;
const failed = (r: RunReport): number => total(r, 'client.connections.failed');
/** Mean of a series over [from, to) seconds. */
const mean = (r: RunReport, name: string, from: number, to: number): number => {
  const values = r.series[name]!.values.slice(from, to);
  return values.reduce((a, b) => a + b, 0) / values.length;
};
/** Share of rule changes that reached a node within `ms`. */
const within = (r: RunReport, ms: number): number => total(r, `kube_proxy.programming_latency_ms.le_${ms}`) / total(r, 'kube_proxy.programming_latency_ms.count');

describe(FILE, () => {
  const base = run();
  const by = Object.fromEntries(['partial-restore', 'min-sync-period', 'fix-crash-loop'].map((f) => [f, run([f])])) as Record<string, RunReport>;

  it('holds every expectation it ships, for the run and each fix', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    for (const [fix, report] of Object.entries(by))
      expect(
        report.expect.filter((e) => !e.held),
        fix,
      ).toEqual([]);
  });

  it('makes each full restore cost what its rules cost: 2,000 Services and 150,000 endpoints outside, about 4.5 s', () => {
    const chain = base.why.find((c) => c.symptom.startsWith('connections to departed pods'))!;
    const sync = chain.steps[1]!.text;
    const rules = Number(/full restore of ([\d,]+) rules/.exec(sync)![1]!.replaceAll(',', ''));
    // One jump and one chain per other Service, three rules per other endpoint, and the scenario's own Services.
    expect(rules).toBeGreaterThanOrEqual(2000 * 2 + 3 * 150_000);
    expect(rules).toBeLessThan(2000 * 2 + 3 * 150_000 + 200);
    // 50 ms fixed plus 10 µs a rule (kube-proxy.ts defaults).
    expect(sync).toContain(`took ${((50_000 + 10 * rules) / 1e6).toFixed(2)} s`);
    const halved = run([], ['params.kubeProxy.otherEndpoints=75000']);
    expect(within(halved, 5000)).toBeGreaterThan(within(base, 5000));
  });

  it('busy kube-proxies delay the rollout: the crash loop alone adds syncs and failed connections', () => {
    const calm = by['fix-crash-loop']!;
    expect(mean(base, 'kube_proxy.busy', 15, 60)).toBeGreaterThan(0.9);
    expect(mean(calm, 'kube_proxy.busy', 40, 60)).toBe(0);
    expect(total(base, 'kube_proxy.syncs.full')).toBeGreaterThan(3 * total(calm, 'kube_proxy.syncs.full'));
    expect(failed(base)).toBeGreaterThan(failed(calm));
  });

  it('partial restores make changes land in about a second; a longer minimum sync period trades CPU for waiting', () => {
    const partial = by['partial-restore']!;
    const slower = by['min-sync-period']!;
    expect(within(partial, 1000)).toBeGreaterThan(0.7);
    expect(within(base, 1000)).toBe(0);
    expect(failed(partial)).toBeLessThan(failed(base) / 2);
    expect(mean(slower, 'kube_proxy.busy', 15, 60)).toBeLessThan(mean(base, 'kube_proxy.busy', 15, 60) * 0.6);
    expect(within(slower, 10_000)).toBeLessThan(within(base, 10_000));
    expect(failed(slower)).toBeGreaterThan(failed(base));
  });

  it('lets the failures follow the time rules take to land: half the work per rule, about half the failures', () => {
    // Every request dials its own connection and nothing caps the dials in progress, so only the stale window limits them.
    const halved = run([], ['params.kubeProxy.syncCostPerRuleUs=5']);
    const ratio = failed(halved) / failed(base);
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.6);
    // One connection per request: every request sent made one attempt, and each failed attempt failed its request.
    expect(total(base, 'client.connections.ok') + failed(base)).toBe(total(base, 'requests.sent'));
    expect(total(base, 'requests.failed')).toBe(failed(base));
    // While every node's rules name only departed pods, every request fails: 3 pods × 40 a second.
    expect(Math.max(...base.series['client.connections.failed']!.values)).toBeGreaterThan(100);
  });

  it('under a fixed pool caps failed attempts at its slots over the connect timeout and reconnect delay instead', () => {
    const pool = ['params.client.connectionMode=pool', 'params.client.connectionsPerPod=8', 'params.client.requestsPerConnection=1', 'params.client.reconnectMs=200'];
    const pooled = run([], pool);
    const failing = pooled.series['client.connections.failed']!.values.filter((v) => v > 0);
    const rate = failing.reduce((a, b) => a + b, 0) / failing.length;
    // 3 pods × 8 slots, each held 1 s + 0.2 s by an unanswered dial: 20 a second at most.
    expect(rate).toBeGreaterThan(15);
    expect(rate).toBeLessThanOrEqual(20);
    const halved = run([], [...pool, 'params.kubeProxy.syncCostPerRuleUs=5']);
    expect(failed(halved) / failed(pooled)).toBeGreaterThan(0.65);
  });

  it('explains the failed connections: stale rules, a long full restore, and the crash-looping deployment', () => {
    const chain = base.why.find((c) => c.symptom.startsWith('connections to departed pods'))!;
    expect(chain.steps.map((s) => s.entity)).toEqual([expect.stringMatching(/^node\//), expect.stringMatching(/^node\//), 'deployment/flaky']);
    expect(chain.steps[0]!.text).toMatch(
      /^sent \d{1,3}(,\d{3})* new connections to pods that had already left their Service's ready endpoints \(the latest to pod\/web-\d+, (gone|terminating)\)/,
    );
    expect(chain.steps[2]!.text).toMatch(/^caused \d+ of the \d+ endpoint changes; every one of them is a sync on every node$/);
  });
});
