import { describe, expect, it } from 'vitest';
import type { SimContext } from '../../src/sim/context';
import { atSeconds, toSeconds } from '../../src/sim/core/time';
import { findFault } from '../../src/sim/faults/catalog';
import { parseTarget, resolveParams, type FaultParams } from '../../src/sim/faults/fault';
import { ExternalHost } from '../../src/sim/infra/external-host';
import { LoadBalancerHop } from '../../src/sim/infra/load-balancer-hop';
import type { Router } from '../../src/sim/infra/router';
import { formatIpv4, ipv4 } from '../../src/sim/net/ipv4';
import { Proto } from '../../src/sim/net/packet';
import { TcpState } from '../../src/sim/net/tcp';
import { createSim } from '../../src/sim/sim';
import type { World } from '../../src/sim/world';
import { fault, metallbEcmp, httpServer, node, pod, scenarioText, service, type ScenarioSpec } from '../fixtures/scenario-builder';
import { loadText, worldOf } from '../fixtures/scenario-run';

/** Applies a fault as Sim.applyFault does: target and params checked first, cause `test`. */
function apply(w: World, fault: string, target: string, params: FaultParams = {}): void {
  const f = findFault(fault)!;
  const { kind, name } = parseTarget(f, target);
  f.apply(w, kind, name, resolveParams(f, params), 'test');
}

const runTo = (ctx: SimContext, t: number) => ctx.sched.runUntil(atSeconds(t));
const events = (ctx: SimContext, kind: string) => ctx.log.since(0).filter((e) => e.kind === kind);

/** Every drop of a run, with the time and the source of the dropped packet. */
function recordDrops(w: World): { t: number; reason: string; site: string; src: string }[] {
  const out: { t: number; reason: string; site: string; src: string }[] = [];
  const original = w.network.drop.bind(w.network);
  w.network.drop = (id, reason, site) => {
    const p = w.network.packets;
    out.push({ t: toSeconds(w.ctx.sched.now), reason, site: site.entity, src: `${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]}` });
    original(id, reason, site);
  };
  return out;
}

// MetalLB speakers on four bare-metal nodes announce a LoadBalancer IP to a ToR that spreads 400 flows by ECMP.

const LB_IP = ipv4('192.0.2.50');
const PREFIX = { base: LB_IP, prefix: 32 };
const ECMP_SPEC = metallbEcmp('faults-ecmp', 60, 'MetalLB speakers announce a LoadBalancer IP to a ToR');
const ECMP = scenarioText(ECMP_SPEC);

const routerOf = (w: World): Router => w.edge.routers.get('tor')!.router;
const hops = (w: World) => routerOf(w).multipathHops(PREFIX).map(formatIpv4);

/** The clients' established flows to the LoadBalancer IP and the next hop each hashes to now. */
function flows(w: World): { key: string; srcIp: number; srcPort: number; hop: number }[] {
  const router = routerOf(w);
  return [...w.tcp.sockets.values()]
    .filter((s) => s.remoteIp === LB_IP && s.state === TcpState.established)
    .map((s) => ({ key: `${formatIpv4(s.stack.ip)}:${s.localPort}`, srcIp: s.stack.ip, srcPort: s.localPort, hop: router.route(Proto.tcp, s.stack.ip, s.localPort, LB_IP, 80) }));
}

const movedKeys = (w: World, before: ReturnType<typeof flows>) =>
  before
    .filter((f) => routerOf(w).route(Proto.tcp, f.srcIp, f.srcPort, LB_IP, 80) !== f.hop)
    .map((f) => f.key)
    .sort();

const resetKeys = (drops: ReturnType<typeof recordDrops>, from: number) =>
  [...new Set(drops.filter((d) => d.reason === 'no_socket_reset' && d.site.startsWith('node/') && d.t >= from).map((d) => d.src))].sort();

describe('change-ecmp-hash', () => {
  it('a new hash key moves about 3/4 of the flows over four next hops; the nodes they land on reset exactly those', () => {
    const { ctx, w } = worldOf(ECMP);
    const drops = recordDrops(w);
    runTo(ctx, 10);
    const before = flows(w);
    expect(before).toHaveLength(400);
    const rst = ctx.metrics.counter('tcp.rst.received').total;
    apply(w, 'change-ecmp-hash', 'router/tor', { seed: 7 });
    expect(routerOf(w).hashSeed).toBe(7);
    expect(routerOf(w).ecmpMode).toBe('hash-threshold');
    expect(events(ctx, 'router.hashing.changed')[0]).toMatchObject({ entity: 'router/tor', cause: 'test' });
    const moved = movedKeys(w, before);
    expect(moved.length / before.length).toBeGreaterThan(0.75 - 0.07);
    expect(moved.length / before.length).toBeLessThan(0.75 + 0.07);
    runTo(ctx, 12);
    expect(resetKeys(drops, 10)).toEqual(moved);
    expect(ctx.metrics.counter('tcp.rst.received').total - rst).toBe(moved.length);
  });

  it('the mode alone: modulo instead of hash-threshold, same key', () => {
    const { ctx, w } = worldOf(ECMP);
    runTo(ctx, 5);
    apply(w, 'change-ecmp-hash', 'router/tor', { mode: 'modulo', seed: 0 });
    expect(routerOf(w).ecmpMode).toBe('modulo');
    expect(routerOf(w).hashSeed).toBe(0);
  });

  it('rejects an unknown router, an unknown mode and a fractional key', () => {
    const { w } = worldOf(ECMP);
    expect(() => apply(w, 'change-ecmp-hash', 'router/tr')).toThrow('target: no router named "tr" (did you mean "tor"?)');
    expect(() => apply(w, 'change-ecmp-hash', 'router/tor', { mode: 'random' })).toThrow('params.mode: expected one of "keep", "modulo", "hash-threshold", "resilient"');
    expect(() => apply(w, 'change-ecmp-hash', 'router/tor', { seed: 0.5 })).toThrow('params.seed: expected a whole number');
    expect(() => apply(w, 'change-ecmp-hash', 'node/node-a')).toThrow('applies to router, not node');
  });
});

describe('remove-bgp-speaker / add-bgp-speaker', () => {
  it('stopping node-b’s speaker withdraws its next hop after convergence; every flow that moved is reset', () => {
    const { ctx, w } = worldOf(ECMP);
    const drops = recordDrops(w);
    runTo(ctx, 10);
    apply(w, 'remove-bgp-speaker', 'node/node-b');
    expect(events(ctx, 'metallb.speaker.stopped')[0]).toMatchObject({ entity: 'node/node-b', cause: 'test' });
    runTo(ctx, 10.499999);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14']);
    const before = flows(w);
    runTo(ctx, 10.500001);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    // docs/sources/load-balancers.md#ecmp-test-vectors, vector 1: hash-threshold 4 → 3 without hop 2 moves a third of
    // the hash space.
    const moved = movedKeys(w, before);
    expect(moved.length / before.length).toBeGreaterThan(1 / 3 - 0.07);
    expect(moved.length / before.length).toBeLessThan(1 / 3 + 0.07);
    runTo(ctx, 12);
    expect(resetKeys(drops, 10.5)).toEqual(moved);
  });

  it('starting it again re-announces: node-b comes back at the end of the group', () => {
    const { ctx, w } = worldOf(ECMP);
    runTo(ctx, 10);
    apply(w, 'remove-bgp-speaker', 'node/node-b');
    runTo(ctx, 20);
    apply(w, 'add-bgp-speaker', 'node/node-b');
    runTo(ctx, 20.499999);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    runTo(ctx, 20.500001);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14', '10.0.0.12']);
    expect(
      events(ctx, 'bgp.session.up')
        .filter((e) => e.t > 0)
        .map((e) => e.entity),
    ).toEqual(['node/node-b']);
  });

  it('a node that never ran a speaker gets a new one, which peers and adds its next hop', () => {
    const { ctx, w } = worldOf(scenarioText(ECMP_SPEC, (s) => (s.topology.bgp!.speakers = ['node-a', 'node-b', 'node-c'])));
    runTo(ctx, 5);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13']);
    apply(w, 'add-bgp-speaker', 'node/node-d');
    runTo(ctx, 6);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14']);
  });

  it('refuses what would change nothing, and scenarios without MetalLB', () => {
    const { w } = worldOf(ECMP);
    expect(() => apply(w, 'add-bgp-speaker', 'node/node-a')).toThrow('target: node "node-a" already runs a MetalLB speaker');
    apply(w, 'remove-bgp-speaker', 'node/node-a');
    expect(() => apply(w, 'remove-bgp-speaker', 'node/node-a')).toThrow('target: node "node-a" runs no MetalLB speaker');
    const plain = worldOf(scenarioText(ECMP_SPEC, (s) => delete s.topology.bgp));
    expect(() => apply(plain.w, 'remove-bgp-speaker', 'node/node-a')).toThrow('target: the scenario runs no MetalLB');
  });
});

describe('reset fraction per next-hop change (docs/sources/load-balancers.md#ecmp-hash-threshold, #modulo-n-hashing, #resilient-hashing, #ecmp-test-vectors)', () => {
  // Remove hop 2 of 4, or append a fifth: the share of established flows the clients see reset.
  const cases: { mode: 'modulo' | 'hash-threshold' | 'resilient'; change: 'remove' | 'add'; expected: number }[] = [
    { mode: 'modulo', change: 'remove', expected: 3 / 4 },
    { mode: 'hash-threshold', change: 'remove', expected: 1 / 3 },
    { mode: 'resilient', change: 'remove', expected: 1 / 4 },
    { mode: 'modulo', change: 'add', expected: 4 / 5 },
    { mode: 'hash-threshold', change: 'add', expected: 1 / 2 },
    { mode: 'resilient', change: 'add', expected: 1 / 5 },
  ];
  it.each(cases)('$mode, $change one next hop: about $expected of the established connections are reset', ({ mode, change, expected }) => {
    const yaml = scenarioText(ECMP_SPEC, (s) => {
      s.topology.routers![0]!.ecmp = mode;
      // node-e runs a Traefik pod but no speaker until one is started.
      s.topology.bgp!.speakers = ['node-a', 'node-b', 'node-c', 'node-d'];
      s.topology.nodes.push(node('e', { pods: [pod('traefik-4')] }));
      s.topology.deployments.traefik!.replicas = 5;
    });
    const { ctx, w } = worldOf(yaml);
    runTo(ctx, 10);
    const established = flows(w).length;
    expect(established).toBe(400);
    const resets = ctx.metrics.counter('client.connections.reset');
    const before = resets.total;
    apply(w, change === 'add' ? 'add-bgp-speaker' : 'remove-bgp-speaker', change === 'add' ? 'node/node-e' : 'node/node-b');
    runTo(ctx, 12);
    expect(hops(w)).toHaveLength(change === 'add' ? 5 : 3);
    const share = (resets.total - before) / established;
    expect(share).toBeGreaterThan(expected - 0.07);
    expect(share).toBeLessThan(expected + 0.07);
  });
});

describe('load-spike', () => {
  const sentBetween = (ctx: SimContext, from: number, to: number) => {
    const c = ctx.metrics.counter('requests.sent');
    runTo(ctx, from);
    const a = c.total;
    runTo(ctx, to);
    return (c.total - a) / (to - from);
  };

  it('every client of the same address sends factor times as many requests for the duration, then as before', () => {
    const { ctx, w } = worldOf(scenarioText(ECMP_SPEC, (s) => (s.params.client!.requestsPerSecond = 20)));
    const base = sentBetween(ctx, 2, 10);
    expect(base).toBeGreaterThan(200 * 0.9);
    expect(base).toBeLessThan(200 * 1.1);
    apply(w, 'load-spike', 'external/c3', { factor: 4, durationSeconds: 20 });
    expect(events(ctx, 'load.spike')[0]).toMatchObject({ entity: 'external/c3', cause: 'test', message: '10 clients of 192.0.2.50 send ×4 for 20 s: 800 requests/s in all' });
    const spike = sentBetween(ctx, 10, 30);
    expect(spike).toBeGreaterThan(800 * 0.93);
    expect(spike).toBeLessThan(800 * 1.07);
    expect(sentBetween(ctx, 30, 50)).toBeLessThan(200 * 1.1);
    // Connections stay as they were: the spike rides on them.
    expect(flows(w)).toHaveLength(400);
  });

  it('one client alone; a later spike overrides an earlier one, whose end then changes nothing', () => {
    const { ctx, w } = worldOf(scenarioText(ECMP_SPEC, (s) => (s.params.client!.requestsPerSecond = 20)));
    runTo(ctx, 4);
    apply(w, 'load-spike', 'external/c0', { factor: 11, durationSeconds: 10, clients: 'this' });
    apply(w, 'load-spike', 'external/c0', { factor: 6, durationSeconds: 30, clients: 'this' });
    const rate = sentBetween(ctx, 4, 30);
    // 30 s of ten clients at 20/s, c0 at 120/s instead (the first spike's end at 14 s changed nothing).
    expect(rate).toBeGreaterThan((9 * 20 + 6 * 20) * 0.9);
    expect(rate).toBeLessThan((9 * 20 + 6 * 20) * 1.1);
  });

  it('rejects a client that does not exist, naming the ones that do', () => {
    const { w } = worldOf(ECMP);
    expect(() => apply(w, 'load-spike', 'external/c11')).toThrow('target: no HTTP client on the internet named "c11" (did you mean "c1"?)');
    expect(() => apply(w, 'load-spike', 'external/c1', { factor: 0 })).toThrow('params.factor: must be at least 0.1');
  });
});

describe('remove-node under MetalLB', () => {
  it('drains the node and stops its speaker: the next hop goes, the pod is replaced elsewhere', () => {
    const { ctx, w } = worldOf(ECMP);
    runTo(ctx, 10);
    apply(w, 'remove-node', 'node/node-b');
    runTo(ctx, 15);
    expect(hops(w)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    const live = w.workloads.pods.filter((p) => p.phase === 'running');
    expect(live).toHaveLength(4);
    expect(live.every((p) => p.host.name !== 'node-b')).toBe(true);
    expect(() => apply(w, 'remove-node', 'node/node-b')).toThrow('target: node "node-b" is not in the cluster any more');
    expect(w.topology().nodes[1]).toMatchObject({ name: 'node-b', schedulable: false, inCluster: false });
  });
});

// A BIG-IP pool of node members in front of a NodePort Service with externalTrafficPolicy Local
// (docs/sources/load-balancers.md#container-ingress-services).

const VIP = ipv4('192.0.2.10');
const F5: ScenarioSpec = {
  id: 'faults-f5',
  title: 'F5 in front of node ports',
  description: 'a BIG-IP pool of node members in front of a NodePort Service with externalTrafficPolicy Local',
  duration: 100,
  topology: {
    nodes: [node('a', { pods: [pod('web-0')] }), node('b', { pods: [pod('web-1')] }), node('c')],
    deployments: { web: httpServer(2) },
    services: { web: service('web', '10.96.0.20', { type: 'NodePort', nodePort: 30080, externalTrafficPolicy: 'Local' }) },
    loadBalancers: [{ name: 'bigip', ip: '10.0.0.250', virtualServers: [{ name: 'web', vip: '192.0.2.10', port: 80, service: 'web' }] }],
    externalClients: [{ name: 'internet', ip: '203.0.113.5', targetIp: '192.0.2.10', targetPort: 80 }],
  },
  params: { client: { connectionsPerPod: 4, reconnectMs: 200, requestsPerSecond: 20 } },
};

function f5(yaml = scenarioText(F5)) {
  const { ctx, w } = worldOf(yaml);
  const hop = w.edge.loadBalancers.get('bigip')!;
  expect(hop).toBeInstanceOf(LoadBalancerHop);
  const internet = w.network.elements.find((e): e is ExternalHost => e instanceof ExternalHost && e.entity === 'external/internet')!;
  const member = (ip: string) => {
    const id = hop.lb.members(0).find((m) => formatIpv4(hop.lb.member(m).ip) === ip);
    return id === undefined ? undefined : hop.lb.member(id);
  };
  /** Opens a connection to the VIP every half second in [from, to); returns for each whether it connected within 2 s. */
  const dial = (from: number, to: number): boolean[] => {
    const dials: { connected: boolean }[] = [];
    for (let t = from; t < to - 1e-9; t += 0.5) {
      runTo(ctx, t);
      const d = { connected: false };
      internet.tcp.connect(VIP, 80, { onConnected: () => (d.connected = true), onData: () => {}, onClosed: () => {} });
      dials.push(d);
    }
    runTo(ctx, to + 2);
    return dials.map((d) => d.connected);
  };
  return { ctx, w, hop, member, dial };
}

describe('remove-node and join-node behind an F5 pool of node members', () => {
  it('the node leaves the pool at the next node poll and comes back unknown: it takes connections it drops until the monitor marks it down', () => {
    const r = f5();
    runTo(r.ctx, 5);
    expect(r.member('10.0.0.13')?.health).toBe('down');
    apply(r.w, 'remove-node', 'node/node-c');
    // CIS reads the node list every 30 s (docs/sources/load-balancers.md#container-ingress-services): the member goes
    // at 30 s, not at once.
    runTo(r.ctx, 29.9);
    expect(r.member('10.0.0.13')).toBeDefined();
    runTo(r.ctx, 30.1);
    expect(r.member('10.0.0.13')).toBeUndefined();
    expect(r.hop.lb.members(0)).toHaveLength(2);

    runTo(r.ctx, 40);
    apply(r.w, 'join-node', 'node/node-c');
    expect(events(r.ctx, 'node.joined')[0]).toMatchObject({ entity: 'node/node-c', cause: 'test' });
    runTo(r.ctx, 60.1);
    expect(r.member('10.0.0.13')?.health).toBe('unknown');
    const dropsBefore = r.ctx.drops.totals().no_local_endpoint ?? 0;
    // Unknown members take traffic (docs/sources/load-balancers.md#members-with-unknown-health): a third of new
    // connections go to node-c, whose kube-proxy drops them (ETP Local, no local endpoint), until 16 s without a
    // successful probe mark it down at 76 s.
    const unknown = r.dial(60.5, 75);
    expect(unknown.filter((ok) => !ok).length).toBeGreaterThan(unknown.length / 3 - 3);
    expect(unknown.filter((ok) => !ok).length).toBeLessThan(unknown.length / 3 + 3);
    expect((r.ctx.drops.totals().no_local_endpoint ?? 0) - dropsBefore).toBeGreaterThan(0);
    expect(r.member('10.0.0.13')?.health).toBe('down');
    expect(
      events(r.ctx, 'lb.member.down')
        .filter((e) => e.t > 0)
        .map((e) => e.t / 1e6),
    ).toEqual([76]);
    expect(r.dial(78, 85).every((ok) => ok)).toBe(true);
  });

  it('a drained node only needs uncordoning: it takes pods again and its pool member never left', () => {
    const r = f5();
    runTo(r.ctx, 5);
    apply(r.w, 'drain-node', 'node/node-a');
    runTo(r.ctx, 10);
    expect(r.w.workloads.pods.filter((p) => p.active).every((p) => p.host.name !== 'node-a')).toBe(true);
    apply(r.w, 'join-node', 'node/node-a');
    expect(r.w.hosts[0]!.schedulable).toBe(true);
    expect(events(r.ctx, 'node.uncordoned')[0]).toMatchObject({ entity: 'node/node-a', cause: 'test' });
    // A scale-up now may land on node-a again, the least loaded node.
    apply(r.w, 'scale-deployment', 'deployment/web', { replicas: 3 });
    expect(r.w.workloads.pods.filter((p) => p.phase === 'pending').map((p) => p.host.name)).toEqual(['node-a']);
    runTo(r.ctx, 40);
    expect(events(r.ctx, 'lb.member.added').filter((e) => e.t > 0)).toEqual([]);
  });

  it('a node racked but not yet joined is in no pool until it joins; then it is a new member, unknown until probed', () => {
    const r = f5(scenarioText(F5, (s) => (s.topology.nodes[2]!.joined = false)));
    runTo(r.ctx, 5);
    expect(r.member('10.0.0.13')).toBeUndefined();
    expect(r.w.hosts[2]).toMatchObject({ inCluster: false, schedulable: false });
    apply(r.w, 'join-node', 'node/node-c');
    expect(r.w.hosts[2]).toMatchObject({ inCluster: true, schedulable: true });
    // The controller's next node poll, at 30 s, adds it.
    runTo(r.ctx, 29.9);
    expect(r.member('10.0.0.13')).toBeUndefined();
    runTo(r.ctx, 30.1);
    expect(r.member('10.0.0.13')?.health).toBe('unknown');
  });

  it('refuses a node that has not joined but lists pods, naming the field', () => {
    const yaml = scenarioText(F5, (s) => (s.topology.nodes[1]!.joined = false));
    expect(() => loadText(yaml)).toThrow('topology.nodes[1].pods: node node-b has not joined the cluster (joined: false), so it runs no pods');
  });

  it('refuses to join a node already in the cluster and schedulable', () => {
    const r = f5();
    expect(() => apply(r.w, 'join-node', 'node/node-a')).toThrow('target: node "node-a" is already in the cluster and schedulable');
    expect(() => apply(r.w, 'join-node', 'node/node-q')).toThrow('target: no node named "node-q"');
  });

  it('through a scenario timeline: the same faults by name, at simulated times', () => {
    const yaml = scenarioText(F5, (s) => s.timeline.push(fault(10, 'remove-node', 'node/node-c'), fault(40, 'join-node', 'node/node-c')));
    const sim = createSim(loadText(yaml));
    sim.runUntil(sim.durationUs);
    const log = sim.eventsSince(0);
    expect(sim.topology().nodes.find((n) => n.name === 'node-c')).toMatchObject({ schedulable: true, inCluster: true });
    expect(log.filter((e) => e.kind === 'fault.applied').map((e) => [e.t / 1e6, e.entity, e.cause])).toEqual([
      [10, 'node/node-c', 'timeline[0]'],
      [40, 'node/node-c', 'timeline[1]'],
    ]);
    expect(log.filter((e) => e.kind === 'fault.failed')).toEqual([]);
    expect(log.filter((e) => e.kind === 'lb.member.added' && e.t > 0).map((e) => e.t / 1e6)).toEqual([60]);
    const r = sim.report(0);
    expect(r.packets.delivered + r.packets.dropped + r.packets.inFlight).toBe(r.packets.sent);
  });
});

describe('recreate-pool', () => {
  it('every member comes back unknown: the node without a local endpoint takes connections it drops until it is marked down', () => {
    const r = f5();
    runTo(r.ctx, 5);
    expect(['10.0.0.11', '10.0.0.12', '10.0.0.13'].map((ip) => r.member(ip)?.health)).toEqual(['up', 'up', 'down']);
    apply(r.w, 'recreate-pool', 'lb/bigip');
    expect(events(r.ctx, 'lb.pools.recreated')[0]).toMatchObject({ entity: 'lb/bigip', cause: 'test' });
    expect(['10.0.0.11', '10.0.0.12', '10.0.0.13'].map((ip) => r.member(ip)?.health)).toEqual(['unknown', 'unknown', 'unknown']);
    const dialled = r.dial(5.5, 20);
    expect(dialled.filter((ok) => !ok).length).toBeGreaterThan(dialled.length / 3 - 3);
    // The first probes (5 s later) bring the served nodes up; node-c goes down at 5 + 16 s.
    expect(['10.0.0.11', '10.0.0.12', '10.0.0.13'].map((ip) => r.member(ip)?.health)).toEqual(['up', 'up', 'down']);
    expect(
      events(r.ctx, 'lb.member.down')
        .filter((e) => e.t > 0)
        .map((e) => e.t / 1e6),
    ).toEqual([21]);
    expect(r.dial(23, 30).every((ok) => ok)).toBe(true);
  });

  it('rejects an unknown load balancer', () => {
    const r = f5();
    expect(() => apply(r.w, 'recreate-pool', 'lb/bigipp')).toThrow('target: no lb named "bigipp" (did you mean "bigip"?)');
  });
});

describe('set-forwarded-header', () => {
  it("changes what the load balancer's HTTP profile does to X-Forwarded-For, and names a bad mode or target", () => {
    const r = f5();
    const hop = r.w.edge.loadBalancers.get('bigip')!;
    expect(hop.xff).toBe('preserve');
    apply(r.w, 'set-forwarded-header', 'lb/bigip', { mode: 'replace' });
    expect(hop.xff).toBe('replace');
    expect(events(r.ctx, 'lb.xff.changed')[0]).toMatchObject({ entity: 'lb/bigip', cause: 'test', message: 'X-Forwarded-For: replace' });
    expect(() => apply(r.w, 'set-forwarded-header', 'lb/bigip', { mode: 'insert' })).toThrow('params.mode');
    expect(() => apply(r.w, 'set-forwarded-header', 'lb/bigipp')).toThrow('target: no lb named "bigipp" (did you mean "bigip"?)');
  });
});
