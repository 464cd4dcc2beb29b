import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpServer, internetClients, nodes, pod, scenarioText, service } from '../fixtures/scenario-builder';
import { loadText } from '../fixtures/scenario-run';
import type { LiveView, TopologyView } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { createSim } from '../../src/sim/sim';

const demo = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');

const dropsAt = (t: TopologyView, l: LiveView, site: string, reason: string): number => l.drops[t.sites.indexOf(site) * l.reasons.length + l.reasons.indexOf(reason)]!;

describe('the picture of a running world', () => {
  it('shows cloud nodes with their interfaces, instances and node-side limits', () => {
    const sim = createSim(loadText(demo));
    const t = sim.topology();
    expect(t.nodes).toHaveLength(3);
    const a = t.nodes[0]!;
    expect(a).toMatchObject({ name: 'node-a', platform: 'cloud', rpFilter: 2, instance: { entity: 'instance/node-a' } });
    expect(a.instance!.allowance).toBeGreaterThan(0);
    expect(a.conntrackMax).toBeGreaterThan(0);
    // The pod-facing interface of an ENI node carries pod addresses but none of its own.
    expect(a.interfaces.map((i) => [i.name, i.ip])).toEqual([
      ['eth0', '10.0.0.11'],
      ['eth1', null],
    ]);
    expect(t.sites.slice(0, 3)).toEqual(['node/node-a', 'node/node-b', 'node/node-c']);
    expect(t.sites).toContain('instance/node-a');
    expect(t.sites.at(-1)).toBe('network/fabric');
  });

  it('counts traffic between machines and drops where they happen, and marks a deleted pod whose address is still attached', () => {
    const sim = createSim(loadText(demo));
    sim.runUntil(atSeconds(19));
    const before = sim.live();
    const t = sim.topology();
    expect(before.traffic.length % 4).toBe(0);
    const pairs = before.traffic.length / 4;
    expect(pairs).toBeGreaterThan(0);
    let packets = 0;
    for (let i = 0; i < before.traffic.length; i += 4) {
      expect(before.traffic[i]).not.toBe(before.traffic[i + 1]);
      expect(before.traffic[i + 3]!).toBeLessThanOrEqual(before.traffic[i + 2]!);
      packets += before.traffic[i + 2]!;
    }
    // Only packets that cross the wire between machines are counted, so never more than were sent.
    expect(packets).toBeLessThanOrEqual(sim.report(0).packets.sent);
    expect(before.instanceTracked[0]).toBeGreaterThan(0);
    expect(before.conntrackUsed[0]).toBeGreaterThan(0);
    expect(dropsAt(t, before, 'node/node-a', 'rp_filter_martian')).toBe(0);

    // web-0 is deleted at 20 s; each step's drops are counted where they happened.
    const atSite = { a: 0, b: 0 };
    let stepDrops = 0;
    const dropsBefore = Object.values(sim.drops()).reduce((a, b) => a + b, 0) - (sim.drops()['dns_refused'] ?? 0);
    for (let second = 20; second <= 25; second++) {
      sim.runUntil(atSeconds(second));
      const live = sim.live();
      const view = sim.topology();
      atSite.a += dropsAt(view, live, 'node/node-a', 'rp_filter_martian');
      atSite.b += dropsAt(view, live, 'node/node-b', 'rp_filter_martian');
      stepDrops += live.drops.reduce((a, b) => a + b, 0);
    }
    expect(atSite.a).toBeGreaterThan(0);
    expect(atSite.b).toBe(0);
    // Every drop of those steps is at exactly one site.
    expect(stepDrops).toBe(Object.values(sim.drops()).reduce((a, b) => a + b, 0) - (sim.drops()['dns_refused'] ?? 0) - dropsBefore);
    const t2 = sim.topology();
    const web0 = t2.pods.find((p) => p.name === 'web-0')!;
    expect(web0.phase).toBe('gone');
    expect(web0.ipAttached).toBe(true);
    expect(t2.pods.filter((p) => p.phase !== 'gone').every((p) => !p.ipAttached)).toBe(true);
  });

  it('shows routers with their ECMP next hops and clients outside the cluster', () => {
    const text = scenarioText({
      id: 'view-ecmp',
      title: 'ECMP view',
      description: 'two speakers announce a LoadBalancer IP',
      duration: 10,
      topology: {
        nodes: nodes(2, (i) => ({ platform: 'bare-metal', pods: [pod(`web-${i}`)] })),
        deployments: { web: httpServer(2) },
        services: { web: service('web', '10.96.0.20', { type: 'LoadBalancer', loadBalancerIp: '192.0.2.50', externalTrafficPolicy: 'Local' }) },
        routers: [{ name: 'tor', ip: '10.0.0.1' }],
        bgp: { router: 'tor' },
        externalClients: internetClients(1, '192.0.2.50:80'),
      },
    });
    const sim = createSim(loadText(text));
    sim.runUntil(atSeconds(5));
    const t = sim.topology();
    expect(t.routers).toEqual([{ name: 'tor', entity: 'router/tor', ip: '10.0.0.1', ecmp: 'hash-threshold', hashSeed: 0 }]);
    expect(t.externals).toEqual([{ entity: 'external/c0', name: 'c0', ip: '203.0.113.1', kind: 'client' }]);
    expect(t.nodes.every((n) => n.instance === null)).toBe(true);
    const l = sim.live();
    expect(l.routes).toEqual([{ router: 'router/tor', prefix: '192.0.2.50/32', nextHops: ['10.0.0.11', '10.0.0.12'] }]);
    // Every node runs a speaker (no list given), each with one session holding the /32 it announces.
    expect(l.bgpSessions).toEqual(t.nodes.map((n) => ({ router: 'router/tor', node: `node/${n.name}`, up: true, routes: 1 })));
    expect([...l.kubeProxySyncing]).toEqual(t.nodes.map(() => 0));
    expect([...l.kubeProxyPending]).toEqual(t.nodes.map(() => 0));
    const section = (entity: string, title: string) => sim.inspect(entity)!.sections.find((s) => s.title === title)?.rows;
    expect(section('node/node-a', 'BGP sessions (MetalLB)')).toEqual([['router/tor', 'established · 1 route at the router']]);
    expect(section('node/node-a', 'kube-proxy')).toEqual([
      ['sync', 'idle'],
      ['Services with changes not yet written', '0'],
      ['time spent syncing (last second)', '0 %'],
      ['healthz', 'healthy'],
    ]);
    expect(section('router/tor', 'BGP sessions (MetalLB)')?.map(([peer]) => peer)).toEqual(['node/node-a', 'node/node-b']);
    expect(l.instanceTracked.every((v) => v === -1)).toBe(true);
    // The client's packets cross from its site to the router's, and the router's go on to the nodes.
    const router = t.sites.indexOf('router/tor');
    const client = t.sites.indexOf('external/c0');
    const quads = Array.from({ length: l.traffic.length / 4 }, (_, i) => [...l.traffic.subarray(i * 4, i * 4 + 4)]);
    expect(quads.some(([from, to, n]) => from === client && to === router && n! > 0)).toBe(true);
    expect(quads.some(([from, to, n]) => from === router && to! < 2 && n! > 0)).toBe(true);
  });
});
