/**
 * Faults that end a MetalLB speaker's BGP session without a withdrawal (power-off-node, hang-bgp-speaker) or on
 * purpose (restart-bgp-speaker), on four nodes whose speakers announce a LoadBalancer IP to a ToR
 * (docs/sources/load-balancers.md#bgp-timers, #bfd, #graceful-restart).
 */
import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds, toSeconds } from '../../src/sim/core/time';
import { findFault } from '../../src/sim/faults/catalog';
import { parseTarget, resolveParams, type FaultParams } from '../../src/sim/faults/fault';
import { formatIpv4, ipv4 } from '../../src/sim/net/ipv4';
import type { World } from '../../src/sim/world';
import { fault, metallbEcmp, nodes, pod, scenarioText, webAndClients, type ScenarioSpec } from '../fixtures/scenario-builder';
import { runText, worldOf } from '../fixtures/scenario-run';
import type { RunReport } from '../../src/sim/api';

function apply(w: World, fault: string, target: string, params: FaultParams = {}): void {
  const f = findFault(fault)!;
  const { kind, name } = parseTarget(f, target);
  f.apply(w, kind, name, resolveParams(f, params), 'test');
}

const runTo = (ctx: SimContext, t: number) => ctx.sched.runUntil(atSeconds(t));
const hops = (w: World) =>
  w.edge.routers
    .get('tor')!
    .router.multipathHops({ base: ipv4('192.0.2.50'), prefix: 32 })
    .map(formatIpv4);
const ALL = ['10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14'];

/** Every drop of a run: when, why, where, and the packet's source address. */
function recordDrops(w: World): { t: number; reason: string; site: string; src: string }[] {
  const out: { t: number; reason: string; site: string; src: string }[] = [];
  const original = w.network.drop.bind(w.network);
  w.network.drop = (id, reason, site) => {
    out.push({ t: toSeconds(w.ctx.sched.now), reason, site: site.entity, src: formatIpv4(w.network.packets.srcIp[id]!) });
    original(id, reason, site);
  };
  return out;
}

// 10 clients × 10 connections at 100 requests a second each, each connection replaced after 20 requests: new flows
// reach every next hop all the time, and it is quick to run.
const ecmp = (params = {}) =>
  scenarioText(
    metallbEcmp('bgp-loss', 200, 'MetalLB speakers announce a LoadBalancer IP to a ToR', {
      client: { connectionsPerPod: 10, reconnectMs: 200, requestsPerSecond: 100, requestsPerConnection: 20 },
      ...params,
    }),
  );

describe('power-off-node', () => {
  it('the router keeps the dark node as a next hop until the hold timer fires, and loses every packet it sends there', () => {
    const { ctx, w } = worldOf(ecmp());
    const drops = recordDrops(w);
    runTo(ctx, 10);
    apply(w, 'power-off-node', 'node/node-c');
    runTo(ctx, 90.499);
    // Sessions came up at 0; the last KEEPALIVE before 10 s left at 0, so the 90 s hold timer fires at 90 s.
    expect(hops(w)).toEqual(ALL);
    const lost = drops.filter((d) => d.reason === 'node_down');
    // The router's drops are the clients' packets; any at the node are what its frozen sockets would have sent.
    const atRouter = lost.filter((d) => d.site === 'router/tor');
    expect(atRouter.length).toBeGreaterThan(50);
    expect(atRouter.every((d) => !d.src.startsWith('10.'))).toBe(true);
    expect(lost.filter((d) => d.site !== 'router/tor').every((d) => d.site === 'node/node-c' && d.src.startsWith('10.244.3.'))).toBe(true);
    runTo(ctx, 90.501);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.14']);
    const after = drops.length;
    runTo(ctx, 95);
    expect(drops.slice(after).filter((d) => d.reason === 'node_down' && d.site === 'router/tor')).toEqual([]);
    expect(w.topology().nodes.find((n) => n.name === 'node-c')).toMatchObject({ powered: false });
  });

  it('with BFD the next hop goes within a second', () => {
    const { ctx, w } = worldOf(ecmp({ bgp: { bfd: { enabled: true } } }));
    runTo(ctx, 10);
    apply(w, 'power-off-node', 'node/node-c');
    runTo(ctx, 11.4);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.14']);
  });

  it('refuses a node that is already dark', () => {
    const { w } = worldOf(ecmp());
    apply(w, 'power-off-node', 'node/node-c');
    expect(() => apply(w, 'power-off-node', 'node/node-c')).toThrow('target: node "node-c" is already powered off');
  });
});

describe('fail-rack-switch', () => {
  // node-a and node-b stand in rack r1, node-c and node-d in r2.
  const racked = (text: ScenarioSpec) =>
    scenarioText(text, (draft) => {
      draft.topology.nodes!.forEach((n, i) => (n.rack = i < 2 ? 'r1' : 'r2'));
    });

  it("cuts off the rack's machines while they run: the router keeps them as next hops until the hold timer", () => {
    const { ctx, w } = worldOf(
      racked(metallbEcmp('rack', 200, 'ECMP over two racks', { client: { connectionsPerPod: 10, reconnectMs: 200, requestsPerSecond: 100, requestsPerConnection: 20 } })),
    );
    const drops = recordDrops(w);
    runTo(ctx, 10);
    apply(w, 'fail-rack-switch', 'rack/r2');
    runTo(ctx, 90.499);
    expect(hops(w)).toEqual(ALL);
    expect(drops.filter((d) => d.reason === 'node_down' && d.site === 'router/tor').length).toBeGreaterThan(50);
    runTo(ctx, 90.501);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12']);
    const view = w.topology().nodes;
    expect(view.filter((n) => n.name === 'node-c' || n.name === 'node-d').map((n) => [n.powered, n.uplinkUp])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(view.filter((n) => n.rack === 'r1').every((n) => n.uplinkUp)).toBe(true);
    expect(() => apply(w, 'fail-rack-switch', 'rack/r2')).toThrow('target: the switch of rack "r2" has already failed');
    expect(() => apply(w, 'fail-rack-switch', 'rack/r3')).toThrow('target: no rack named "r3"');
  });

  it('leaves traffic between pods on one machine alone: only the wire is gone', () => {
    // A client on node-a calls a server on node-a or on node-b; both nodes stand in rack r1, whose switch fails at 5 s.
    const run = (serverNode: number) =>
      runText(
        scenarioText({
          id: 'local',
          duration: 20,
          topology: {
            nodes: nodes(2, (i) => ({ rack: 'r1', pods: [...(i === 0 ? [pod('client-0')] : []), ...(i === serverNode ? [pod('web-0')] : [])] })),
            ...webAndClients(1, 1),
          },
          timeline: [fault(5, 'fail-rack-switch', 'rack/r1')],
        }),
      ).report;
    const sum = (r: RunReport, metric: string, from: number) => r.series[metric]!.values.slice(from).reduce((a, b) => a + b, 0);
    const near = run(0);
    expect(sum(near, 'requests.ok', 10)).toBeGreaterThan(50);
    expect(sum(near, 'requests.failed', 10)).toBe(0);
    const far = run(1);
    expect(sum(far, 'requests.ok', 10)).toBe(0);
    const chain = far.why.find((c) => c.symptom.startsWith('packets lost at'))!;
    expect(chain.steps.map((s) => s.text).join('\n')).toMatch(/was cut off at 5\.0 s: the top-of-rack switch of rack r1 failed/);
  });
});

describe('hang-bgp-speaker', () => {
  it('a hung speaker cannot withdraw: its node is drained of its pod and the router keeps sending there until the hold timer', () => {
    const { ctx, w } = worldOf(ecmp());
    const drops = recordDrops(w);
    runTo(ctx, 10);
    apply(w, 'hang-bgp-speaker', 'node/node-b');
    runTo(ctx, 20);
    // Hung but forwarding: nothing is lost yet.
    expect(drops).toEqual([]);
    apply(w, 'drain-node', 'node/node-b', { gracePeriodSeconds: 0 });
    runTo(ctx, 90.499);
    expect(hops(w)).toEqual(ALL);
    // externalTrafficPolicy Local: node-b has no endpoint left, and kube-proxy drops what the router still sends it.
    const blackholed = (from: number) => drops.filter((d) => d.reason === 'no_local_endpoint' && d.site === 'node/node-b' && d.t >= from);
    expect(blackholed(20).length).toBeGreaterThan(20);
    expect(blackholed(80).length).toBeGreaterThan(0);
    runTo(ctx, 90.501);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    runTo(ctx, 95);
    expect(blackholed(91)).toEqual([]);
    expect(() => apply(w, 'hang-bgp-speaker', 'node/node-b')).toThrow('target: node "node-b" runs no MetalLB speaker that still talks');
  });

  it('without the hang, the same drain withdraws the route within a second', () => {
    const { ctx, w } = worldOf(ecmp());
    runTo(ctx, 20);
    apply(w, 'drain-node', 'node/node-b', { gracePeriodSeconds: 0 });
    runTo(ctx, 22);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
  });
});

describe('restart-bgp-speaker', () => {
  it('without graceful restart the router withdraws the node and adds it back at the end of the group', () => {
    const { ctx, w } = worldOf(ecmp());
    runTo(ctx, 10);
    apply(w, 'restart-bgp-speaker', 'node/node-b', { downSeconds: 10 });
    runTo(ctx, 11);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    runTo(ctx, 21);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14', '10.0.0.12']);
  });

  it('with graceful restart the router keeps the route, stale, and the group never changes', () => {
    const { ctx, w } = worldOf(ecmp({ bgp: { gracefulRestart: { enabled: true } } }));
    runTo(ctx, 10);
    apply(w, 'restart-bgp-speaker', 'node/node-b', { downSeconds: 10 });
    runTo(ctx, 11);
    expect(hops(w)).toEqual(ALL);
    runTo(ctx, 100);
    expect(hops(w)).toEqual(ALL);
    expect(ctx.log.since(0).filter((e) => e.kind === 'router.ecmp.changed' && e.t > 0)).toEqual([]);
  });
});
