/**
 * The shipped replay of the ECMP story (public/scenarios/ecmp-resets.yaml): a load spike makes the autoscaler add
 * Traefik pods on nodes that had none; under externalTrafficPolicy Local each such node's MetalLB speaker announces,
 * the router adds a next hop and rehashes, and the nodes that receive flows they never saw reset them.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'ecmp-resets.yaml';
// 8 clients × 32 long-lived connections.
const CONNECTIONS = 256;
const sum = (r: RunReport, metric: string, from: number, to: number): number => r.series[metric]!.values.slice(from, to).reduce((a, b) => a + b, 0);

/** Every change of the router's group after the start: when, and the share of the hash space it reported moving. */
function changes(fixes: string[]): { t: number; moved: number }[] {
  const sim = shippedSim(FILE, fixes);
  sim.runUntil(sim.durationUs);
  return sim
    .eventsSince(0)
    .filter((e) => e.kind === 'router.ecmp.changed' && e.t > 0)
    .map((e) => ({ t: e.t, moved: Number(/(\d+) % of flows/.exec(e.message)![1]) / 100 }));
}

/** Resets the clients saw from each change until the next one (at most 5 s later), over the same run. */
function resetsPerChange(fixes: string[]): { moved: number; share: number }[] {
  const list = changes(fixes);
  const sim = shippedSim(FILE, fixes);
  const resets = () => sim.report(0).totals['client.connections.reset'] ?? 0;
  return list.map((change, i) => {
    sim.runUntil(change.t as SimTime);
    const before = resets();
    sim.runUntil(Math.min(list[i + 1]?.t ?? Infinity, change.t + atSeconds(5)) as SimTime);
    return { moved: change.moved, share: (resets() - before) / CONNECTIONS };
  });
}

describe(FILE, () => {
  const base = runShipped(FILE);
  const fixed = Object.fromEntries(['traefik-per-speaker', 'resilient-hashing', 'fewer-speakers'].map((f) => [f, runShipped(FILE, [f])]));

  it('holds every expectation it ships, without fixes and with each', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    for (const r of Object.values(fixed)) expect(r.expect.filter((e) => !e.held)).toEqual([]);
  });

  it('balances per node: node-a with five pods and node-b with one serve within 15 % of each other', () => {
    const a = sum(base, 'server.requests{node=node-a}', 10, 60);
    const b = sum(base, 'server.requests{node=node-b}', 10, 60);
    expect(Math.abs(a - b) / (a + b)).toBeLessThan(0.075);
    expect(a + b).toBeGreaterThan(0.95 * 300 * 50);
  });

  it.each([
    { fixes: [], mode: 'hash-threshold', withdrawal: [1 / 3 - 0.1, 1 / 2 + 0.05] },
    { fixes: ['resilient-hashing'], mode: 'resilient', withdrawal: [0, 0.05] },
  ])('$mode: each change resets about the share of flows the router moved, as docs/sources/load-balancers.md predicts', ({ fixes, mode, withdrawal }) => {
    const list = resetsPerChange(fixes);
    // Four nodes join one by one during the spike, node-a leaves after it.
    expect(list).toHaveLength(5);
    const adds = list.slice(0, 4);
    // Appending hop N to N-1: hash-threshold moves 1/2 every time (F.1), resilient 1/N (F.3).
    const predicted = mode === 'resilient' ? [1 / 3, 1 / 4, 1 / 5, 1 / 6] : [1 / 2, 1 / 2, 1 / 2, 1 / 2];
    adds.forEach(({ moved }, i) => expect(Math.abs(moved - predicted[i]!)).toBeLessThan(0.02));
    for (const { moved, share } of adds) expect(Math.abs(share - moved)).toBeLessThan(0.15);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.abs(mean(adds.map((c) => c.share)) - mean(predicted))).toBeLessThan(0.06);
    // node-a's own connections were closed by its draining pods before it withdrew, so only the collateral moves reset:
    // hash-threshold shifts every region (1/3 of all flows besides node-a's 1/6), resilient moves node-a's buckets only.
    const last = list[4]!.share;
    expect(last).toBeGreaterThanOrEqual(withdrawal[0]!);
    expect(last).toBeLessThanOrEqual(withdrawal[1]!);
  });

  it('traefik-per-speaker: one pod on each of the three speaker nodes and three next hops throughout', () => {
    const sim = shippedSim(FILE, ['traefik-per-speaker']);
    sim.runUntil(atSeconds(120));
    const pods = sim.topology().pods.filter((p) => p.deployment === 'traefik' && p.phase === 'running');
    expect(pods.map((p) => p.node).sort()).toEqual(['node-a', 'node-b', 'node-c']);
    const hops = fixed['traefik-per-speaker']!.series['router.ecmp.next_hops{prefix=192.0.2.50/32,router=tor}']!.values;
    expect(new Set(hops)).toEqual(new Set([3]));
  });

  it('explains a reset from the node back to the load spike', () => {
    const chain = base.why.find((c) => c.symptom.startsWith('connections reset at node/'))!;
    expect(chain.steps.map((s) => s.entity.split('/')[0])).toEqual(['node', 'router', 'node', 'deployment', 'external']);
    expect(chain.steps[1]!.text).toMatch(/changed its ECMP group for 192\.0\.2\.50\/32 5 times; .* % of flows now hash to another next hop \(hash-threshold/);
    expect(chain.steps[2]!.text).toContain('under externalTrafficPolicy Local only nodes with a ready endpoint announce');
    expect(chain.steps[3]!.text).toMatch(/HorizontalPodAutoscaler changed the replica count 3 times/);
    expect(chain.steps[4]!.text).toBe('from 60.0 s to 150.0 s, 8 clients sent ×3 as many requests, 900 a second in all');
  });
});
