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
import { metallbEcmp, scenarioText } from '../fixtures/scenario-builder';
import { worldOf } from '../fixtures/scenario-run';

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
