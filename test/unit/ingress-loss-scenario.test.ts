/**
 * The shipped "silent node loss behind BGP" scenario (public/scenarios/ingress-loss.yaml): node-c loses power at
 * 100 s and the router keeps it as a next hop until BGP notices, which takes the hold timer, BFD's detection time, or
 * with graceful restart the restart time on top (docs/sources/load-balancers.md#silent-node-loss-test-vectors).
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/sim/api';
import { runShipped } from '../fixtures/scenario-run';

const FILE = 'ingress-loss.yaml';
const LOSS_AT = 100;
const BLACKHOLED = 'packets.dropped{reason=node_down}';
const sum = (r: RunReport, metric: string, from: number, to: number): number => r.series[metric]!.values.slice(from, to).reduce((a, b) => a + b, 0);

/** Seconds from the power loss to the last second in which the router still lost packets at the dark node. */
function blackHoleSeconds(r: RunReport): number {
  const v = r.series[BLACKHOLED]!.values;
  let last = -1;
  v.forEach((n, t) => {
    if (n > 0) last = t;
  });
  return last + 1 - LOSS_AT;
}

describe(FILE, () => {
  const base = runShipped(FILE);
  const fixed = Object.fromEntries(['bfd', 'short-hold-time', 'graceful-restart', 'resilient-hashing'].map((f) => [f, runShipped(FILE, [f])]));

  it('holds every expectation it ships, without fixes and with each', () => {
    expect(base.expect.filter((e) => !e.held)).toEqual([]);
    for (const r of Object.values(fixed)) expect(r.expect.filter((e) => !e.held)).toEqual([]);
  });

  it('the black hole lasts from the loss to the hold timer (last KEEPALIVE at 90 s + 90 s), then the router withdraws node-c', () => {
    expect(blackHoleSeconds(base)).toBe(81);
    expect(blackHoleSeconds(fixed['short-hold-time']!)).toBe(9);
    expect(blackHoleSeconds(fixed['bfd']!)).toBe(2);
    // Graceful restart keeps the stale route 120 s more.
    expect(blackHoleSeconds(fixed['graceful-restart']!)).toBe(201);
    expect(blackHoleSeconds(fixed['resilient-hashing']!)).toBe(81);
  });

  it('a hold time beyond the shipped fixes moves the black hole as the timer predicts: 30 s (keepalive 10 s, last at 100 s) ends it at 130 s', () => {
    const r = runShipped(FILE, [], ['params.bgp.holdTimeS=30']);
    expect(blackHoleSeconds(r)).toBe(31);
    // The black-holed packets scale with the time: roughly in proportion to the shipped run's.
    const ratio = sum(r, BLACKHOLED, 0, 330) / sum(base, BLACKHOLED, 0, 330);
    expect(ratio).toBeGreaterThan((30 / 80) * 0.6);
    expect(ratio).toBeLessThan((30 / 80) * 1.4);
  });

  it('a hung speaker instead of a power loss: node-c drained at 110 s black-holes until the hold timer, and BFD does not help', () => {
    const hang = ['timeline.1.fault=hang-bgp-speaker', 'timeline.2={at: 110, fault: drain-node, target: node/node-c, params: {gracePeriodSeconds: 0}}'];
    const lost = (r: RunReport) => r.series['packets.dropped{reason=no_local_endpoint}']!.values;
    for (const fixes of [[], ['bfd']]) {
      const r = runShipped(FILE, fixes, hang);
      expect(sum(r, BLACKHOLED, 0, 330)).toBe(0);
      expect(
        lost(r)
          .slice(170, 180)
          .reduce((a, b) => a + b, 0),
      ).toBeGreaterThan(0);
      expect(
        lost(r)
          .slice(182, 330)
          .reduce((a, b) => a + b, 0),
      ).toBe(0);
      const chain = r.why.find((c) => c.symptom === 'packets black-holed at node/node-c')!;
      expect(chain.steps.map((step) => step.text)).toEqual([
        expect.stringContaining('it runs no endpoint of the Service under externalTrafficPolicy Local, yet the router kept sending it a share'),
        'its MetalLB speaker hung at 100.0 s: it sent no more KEEPALIVEs and could not withdraw the address when the node lost its endpoints',
        'kept 10.0.0.13 as a next hop, stale, until its BGP hold timer fired at 180.0 s: 90 s after the last KEEPALIVE, received at 90.0 s',
      ]);
    }
  });

  it('new connections fail for as long as the black hole lasts: about one in four hashes to node-c', () => {
    const attempts = sum(base, 'client.connections.ok', 110, 180) + sum(base, 'client.connections.failed', 110, 180);
    const share = sum(base, 'client.connections.failed', 110, 180) / attempts;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.35);
  });

  it('withdrawing node-c resets connections on the surviving nodes under hash-threshold, none under resilient hashing', () => {
    expect(sum(base, 'client.connections.reset', 180, 185)).toBeGreaterThan(0);
    expect(sum(fixed['resilient-hashing']!, 'client.connections.reset', 180, 330)).toBe(0);
  });

  it('graceful restart spares the planned restart: no resets at 60–80 s, where the run without it has dozens', () => {
    expect(sum(base, 'client.connections.reset', 60, 80)).toBeGreaterThan(20);
    expect(sum(fixed['graceful-restart']!, 'client.connections.reset', 60, 80)).toBe(0);
  });

  it('the reset chain follows the ECMP change back to the hold timer and the power loss', () => {
    const chain = base.why.find((c) => c.symptom.startsWith('connections reset at'))!;
    const text = chain.steps.map((s) => `${s.entity}: ${s.text}`).join('\n');
    expect(text).toMatch(/router\/tor: changed its ECMP group .* withdrew 192\.0\.2\.50\/32 via 10\.0\.0\.13: 4 → 3 next hops/);
    expect(text).toContain('router/tor: kept 10.0.0.13 as a next hop, stale, until its BGP hold timer fired at 180.0 s');
    expect(text).toContain('node/node-c: lost power at 100.0 s');
  });

  it('the why chain names the stale next hop, the power loss and the hold timer', () => {
    const chain = base.why.find((c) => c.symptom === 'packets black-holed at router/tor')!;
    const text = chain.steps.map((s) => s.text).join('\n');
    expect(text).toContain('ECMP next hop 10.0.0.13 (node/node-c), a node the network no longer reaches');
    expect(text).toContain('lost power at 100.0 s');
    expect(text).toContain('its BGP hold timer fired at 180.0 s: 90 s after the last KEEPALIVE, received at 90.0 s');
    const bfd = fixed['bfd']!.why.find((c) => c.symptom === 'packets black-holed at router/tor')!;
    expect(bfd.steps.map((s) => s.text).join('\n')).toContain('BFD declared the session down at 100.8 s');
    const gr = fixed['graceful-restart']!.why.find((c) => c.symptom === 'packets black-holed at router/tor')!;
    expect(gr.steps.map((s) => s.text).join('\n')).toContain('graceful restart then kept the route as stale for 120 s more');
  });
});
