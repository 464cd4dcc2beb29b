/**
 * The shipped replay of the first bare-metal story (public/scenarios/f5-unknown-health.yaml): a node joins, the F5's
 * controller adds it with health unknown, and its share of new connections fails until the monitor's timeout marks it
 * down. The failures must scale with that timeout and with the new member's share, 1/(members), and each fix must
 * move them the way its description says.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { runShipped, shippedSim } from '../fixtures/scenario-run';

const FILE = 'f5-unknown-health.yaml';
const POOL = 'topology.loadBalancers.0.virtualServers.0.memberNodes';
const run = (fixes: string[] = [], sets: string[] = []): RunReport => runShipped(FILE, fixes, sets);

const failed = (r: RunReport): number => r.totals['client.connections.failed'] ?? 0;
const total = (r: RunReport, name: string): number => r.totals[name] ?? 0;

describe(FILE, () => {
  const base = run();

  it('holds every expectation it ships, and loses connections only while the new member is unknown', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    const series = base.series['client.connections.failed']!;
    const failingSeconds = series.values.flatMap((v, i) => (v > 0 ? [(i + 1) * series.stepSeconds] : []));
    // The controller's poll after the join at 40 s is at 60 s; the monitor gives up 16 s later.
    expect(failingSeconds[0]).toBeGreaterThanOrEqual(60);
    expect(failingSeconds.at(-1)).toBeLessThanOrEqual(78);
  });

  it('loses about the new member’s share of new connections for the monitor’s timeout', () => {
    const perSecond = total(base, 'client.connections.ok') / 120;
    const expected = (perSecond / 6) * 16;
    expect(failed(base)).toBeGreaterThan(expected * 0.75);
    expect(failed(base)).toBeLessThan(expected * 1.5);
  });

  it('loses about twice as many with a timeout twice as long', () => {
    const longer = run([], ['params.lb.monitorIntervalS=10', 'params.lb.monitorTimeoutS=31']);
    const ratio = failed(longer) / failed(base);
    expect(ratio).toBeGreaterThan(1.6);
    expect(ratio).toBeLessThan(2.3);
  });

  it('loses about twice as many when the new member is one of three instead of one of six', () => {
    const smaller = run([], [`${POOL}.0=node-a`, `${POOL}.1=node-b`, `${POOL}.2=node-f`]);
    const ratio = failed(smaller) / failed(base);
    expect(ratio).toBeGreaterThan(1.5);
    expect(ratio).toBeLessThan(3);
  });

  it('explains a dropped connection at the new node down to its join', () => {
    const sim = shippedSim(FILE);
    sim.runUntil(atSeconds(70));
    const why = sim.whyOf('no_local_endpoint', 'node/node-f')!;
    expect(why.steps.map((s) => s.entity)).toEqual(['node/node-f', 'lb/bigip', 'lb/bigip', 'node/node-f']);
    expect(why.steps[2]!.text).toMatch(/^gave \d{1,3}(,\d{3})* new connections to 10\.0\.0\.16 from 60\.0 s while its health was still unknown/);
    expect(why.steps[3]!.text).toBe('joined the cluster at 40.0 s with no pods yet; the controller added it to the pool at its next node poll');
  });

  it('moves each fix the way it says', () => {
    const by = Object.fromEntries(['activate-after-healthy', 'faster-monitor', 'ingress-node-subset', 'pod-members', 'etp-cluster'].map((f) => [f, run([f])]));
    for (const [fix, report] of Object.entries(by))
      expect(
        report.expect.filter((e) => !e.held),
        fix,
      ).toEqual([]);
    expect(failed(by['activate-after-healthy']!)).toBe(0);
    expect(failed(by['ingress-node-subset']!)).toBe(0);
    expect(failed(by['pod-members']!)).toBe(0);
    expect(failed(by['etp-cluster']!)).toBe(0);
    // A four-times-shorter timeout: about a quarter of the failures, for five times the probes.
    const faster = by['faster-monitor']!;
    expect(failed(faster) / failed(base)).toBeLessThan(0.4);
    expect(total(faster, 'lb.probes.sent{vs=web}') / total(base, 'lb.probes.sent{vs=web}')).toBeCloseTo(5, 0);
  });
});
