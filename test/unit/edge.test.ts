import { describe, expect, it } from 'vitest';
import { fault, metallbEcmp, httpServer, node, pod, scenarioText, service, type ScenarioSpec } from '../fixtures/scenario-builder';
import { loadText, worldOf } from '../fixtures/scenario-run';
import type { RunReport } from '../../src/sim/api';
import type { SimContext } from '../../src/sim/context';
import { atSeconds, toSeconds } from '../../src/sim/core/time';
import { ExternalHost } from '../../src/sim/infra/external-host';
import { LoadBalancerHop } from '../../src/sim/infra/load-balancer-hop';
import type { Router } from '../../src/sim/infra/router';
import { RouterHop } from '../../src/sim/infra/router-hop';
import { formatIpv4, ipv4 } from '../../src/sim/net/ipv4';
import { Payload, Proto } from '../../src/sim/net/packet';
import { TcpState, type Socket, type SocketOwner } from '../../src/sim/net/tcp';
import { createSim } from '../../src/sim/sim';
import { World } from '../../src/sim/world';

const now = (ctx: SimContext): number => toSeconds(ctx.sched.now);
const runTo = (ctx: SimContext, t: number): void => {
  ctx.sched.runUntil(atSeconds(t));
};

/** The figures RunReport.packets is built from (sim.ts): every packet sent is delivered, dropped or still in flight. */
function expectConserved(ctx: SimContext, w: World): void {
  const sent = ctx.metrics.counter('packets.sent').total;
  const delivered = ctx.metrics.counter('packets.delivered').total;
  expect(sent).toBeGreaterThan(0);
  expect(delivered + ctx.drops.total + w.network.inFlight).toBe(sent);
  expect(Object.values(ctx.drops.totals()).reduce((a, b) => a + b, 0)).toBe(ctx.drops.total);
}

function expectReportConserved(r: RunReport): void {
  const { sent, delivered, dropped, inFlight } = r.packets;
  expect(sent).toBeGreaterThan(0);
  expect(delivered + dropped + inFlight).toBe(sent);
}

interface Drop {
  t: number;
  reason: string;
  site: string;
  /** Source address:port of the dropped packet as it was when dropped (after any DNAT, before any reply). */
  src: string;
}

/** Records every drop with where it happened; the ledger only counts them by reason. */
function recordDrops(w: World): Drop[] {
  const out: Drop[] = [];
  const original = w.network.drop.bind(w.network);
  w.network.drop = (id, reason, site) => {
    const p = w.network.packets;
    out.push({ t: now(w.ctx), reason, site: site.entity, src: `${formatIpv4(p.srcIp[id]!)}:${p.srcPort[id]}` });
    original(id, reason, site);
  };
  return out;
}

const events = (ctx: SimContext, kind: string) => ctx.log.since(0).filter((e) => e.kind === kind);

// ECMP: MetalLB speakers announcing a LoadBalancer IP to a ToR (docs/sources/load-balancers.md#metallb-bgp-mode).

const LB_IP = ipv4('192.0.2.50');
const PREFIX = { base: LB_IP, prefix: 32 };
const NODE = { a: ipv4('10.0.0.11'), b: ipv4('10.0.0.12'), c: ipv4('10.0.0.13'), d: ipv4('10.0.0.14') };
// As metallbEcmp sets them up: ten internet clients with 40 keep-alive connections each.
const CLIENTS = 10;
const CONNECTIONS = 40;
const FLOWS = CLIENTS * CONNECTIONS;

/**
 * Four bare-metal nodes with one traefik pod each behind a LoadBalancer Service (ETP Local), MetalLB speakers on
 * every node, a ToR. Each connection sends ~10 requests/s, so a flow that moved is found out within a fraction of a
 * second. The replacement of a deleted pod is Ready 5 s after its creation, well apart from the withdrawal.
 */
const ECMP = metallbEcmp('edge-ecmp', 30, 'MetalLB speakers announce a LoadBalancer IP to a ToR that spreads flows with ECMP', { kube: { podStartSeconds: 5 } });

interface Flow {
  key: string;
  srcIp: number;
  srcPort: number;
  /** The router's next hop for the flow when the snapshot was taken. */
  hop: number;
}

function routerOf(w: World): Router {
  return w.network.elements.find((e): e is RouterHop => e instanceof RouterHop)!.router;
}

/** The internet clients' established connections to the LoadBalancer IP and the next hop each hashes to now. */
function snapshot(w: World, router: Router): Flow[] {
  const flows: Flow[] = [];
  for (const s of w.tcp.sockets.values()) {
    if (s.remoteIp !== LB_IP || s.state !== TcpState.established) continue;
    const hop = router.route(Proto.tcp, s.stack.ip, s.localPort, LB_IP, 80);
    flows.push({ key: `${formatIpv4(s.stack.ip)}:${s.localPort}`, srcIp: s.stack.ip, srcPort: s.localPort, hop });
  }
  return flows;
}

/** Evenly spread flow hashes: the share of them that change next hop is the share of the hash space that moves. */
const GRID = Array.from({ length: 12_000 }, (_, i) => Math.floor(((i + 0.5) * 2 ** 32) / 12_000));
const hopsOverGrid = (router: Router): number[] => GRID.map((h) => router.nextHop(LB_IP, h));
const gridShare = (before: number[], router: Router, which: (from: number, to: number) => boolean = (a, b) => a !== b): number =>
  GRID.filter((h, i) => which(before[i]!, router.nextHop(LB_IP, h))).length / GRID.length;

const movedBy = (router: Router, flows: Flow[]) => flows.filter((f) => router.route(Proto.tcp, f.srcIp, f.srcPort, LB_IP, 80) !== f.hop);

/** Flows a node reset (no_socket_reset: a segment of a connection it never saw reached a pod) within [from, to]. */
function resetAtNodes(drops: Drop[], from: number, to: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of drops) {
    if (d.reason === 'no_socket_reset' && d.site.startsWith('node/') && d.t >= from && d.t <= to && !out.has(d.src)) out.set(d.src, d.site);
  }
  return out;
}

interface EcmpRun {
  ctx: SimContext;
  w: World;
  router: Router;
  drops: Drop[];
  /** All 400 flows just before the deletion, opened together at 0 s, with their next hops over the 4-hop group. */
  all: Flow[];
  /** Flows established just before the router withdraws node-b (its own were closed by its pod's SIGTERM). */
  beforeWithdrawal: Flow[];
  /** Next hops of the hash grid over the 4-hop group. */
  gridBefore: number[];
  hopsJustBefore: string[];
  hopsJustAfter: string[];
  rstBefore: number;
  failedBefore: number;
}

/** Runs to 10 s, deletes traefik-1 (node-b's only pod, grace 30 s) and stops just after the router converges on it. */
function deleteTraefik1(sets: string[] = []): EcmpRun {
  const { ctx, w } = worldOf(scenarioText(ECMP), sets);
  const drops = recordDrops(w);
  const router = routerOf(w);
  runTo(ctx, 10);
  const all = snapshot(w, router);
  const rstBefore = ctx.metrics.counter('tcp.rst.received').total;
  const failedBefore = ctx.metrics.counter('requests.failed').total;
  w.workloads.deletePod(w.workloads.findPod('traefik-1')!, 30, 'test');
  // The EndpointSlice change reaches MetalLB after endpointPropagationMs (100 ms); the router after convergenceMs (500 ms).
  runTo(ctx, 10.599999);
  const hopsJustBefore = router.multipathHops(PREFIX).map(formatIpv4);
  const beforeWithdrawal = snapshot(w, router);
  const gridBefore = hopsOverGrid(router);
  runTo(ctx, 10.600001);
  const hopsJustAfter = router.multipathHops(PREFIX).map(formatIpv4);
  return { ctx, w, router, drops, all, beforeWithdrawal, gridBefore, hopsJustBefore, hopsJustAfter, rstBefore, failedBefore };
}

interface Reannouncement {
  /** Flows established just before node-b's route is back, and the grid's next hops then. */
  before: Flow[];
  gridBefore: number[];
  moved: Flow[];
  reset: Map<string, string>;
}

/** Continues a run past node-b's re-announcement: its replacement pod is Ready at 15.2 s, the router learns at 15.8 s. */
function reannounce(r: EcmpRun): Reannouncement {
  runTo(r.ctx, 15.799999);
  const before = snapshot(r.w, r.router);
  const gridBefore = hopsOverGrid(r.router);
  expect(r.router.multipathHops(PREFIX).map(formatIpv4)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
  runTo(r.ctx, 15.800001);
  expect(r.router.multipathHops(PREFIX).map(formatIpv4)).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14', '10.0.0.12']);
  const moved = movedBy(r.router, before);
  runTo(r.ctx, 18);
  return { before, gridBefore, moved, reset: resetAtNodes(r.drops, 15.8, 18) };
}

const keys = (flows: Flow[]): string[] => flows.map((f) => f.key).sort();
const changedHop = (from: number, to: number): boolean => from !== to;
const collateralHop = (from: number, to: number): boolean => from !== to && from !== NODE.b;

describe('ECMP behind MetalLB (ETP Local): a node losing its last pod withdraws its route', () => {
  it('the speaker withdraws when the slice change arrives; the router drops the hop one convergence delay later, not before', () => {
    const r = deleteTraefik1();
    expect(r.all.length).toBe(FLOWS);
    expect(r.hopsJustBefore).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14']);
    expect(r.hopsJustAfter).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    expect(events(r.ctx, 'bgp.withdraw').map((e) => [e.entity, e.t])).toEqual([['node/node-b', 10_100_000]]);
    const changed = events(r.ctx, 'router.ecmp.changed').filter((e) => e.t > 0);
    // docs/sources/load-balancers.md#ecmp-test-vectors, vector 1: hash-threshold, 4 next hops, remove #2 moves a third.
    expect(changed.map((e) => [e.t, e.message])).toEqual([[10_600_000, 'withdrew 192.0.2.50/32 via 10.0.0.12: 3 next hop(s) for 192.0.2.50/32; 34 % of flows now hash to another next hop']]);
    expect(r.ctx.metrics.counter('router.rehashes', { router: 'tor' }).total - 3).toBe(1);
    expect(r.ctx.metrics.gauge('router.ecmp.next_hops', { router: 'tor', prefix: '192.0.2.50/32' }).value).toBe(3);
    // Until 10.6 s every flow kept its node: no connection was reset by a node.
    expect(r.drops.filter((d) => d.reason === 'no_socket_reset')).toEqual([]);
  });

  it('the convergence delay is params.bgp.convergenceMs', () => {
    const { ctx, w } = worldOf(scenarioText(ECMP), ['params.bgp.convergenceMs=2000']);
    runTo(ctx, 10);
    w.workloads.deletePod(w.workloads.findPod('traefik-1')!, 30, 'test');
    runTo(ctx, 13);
    expect(
      events(ctx, 'router.ecmp.changed')
        .filter((e) => e.t > 0)
        .map((e) => e.t),
    ).toEqual([12_100_000]);
  });

  it('hash-threshold: removing hop 2 of 4 moves 1/3 of flows; the 1/12 beyond the dead hop are reset by nodes that never saw them', () => {
    const r = deleteTraefik1();
    // docs/sources/load-balancers.md#ecmp-test-vectors, vector 1: D(4, 2) = 1/3 of the hash space changes next hop, 1/4
    // of it node-b's own.
    expect(gridShare(r.gridBefore, r.router, changedHop)).toBeCloseTo(1 / 3, 3);
    expect(gridShare(r.gridBefore, r.router, collateralHop)).toBeCloseTo(1 / 12, 3);
    // The 400 flows opened at 0 s are spread evenly: 146 of them (36.5 %) would move.
    expect(movedBy(r.router, r.all).length / FLOWS).toBeCloseTo(1 / 3, 1);

    runTo(r.ctx, 13);
    const collateral = movedBy(r.router, r.beforeWithdrawal);
    const reset = resetAtNodes(r.drops, 10.6, 13);
    // Exactly the flows that moved are reset, each by the node its hash now leads to: regions grow rightwards, so
    // node-c's flows in (2/3, 3/4] of the hash space land on node-d; node-a's region only grows.
    expect([...reset.keys()].sort()).toEqual(keys(collateral));
    for (const f of collateral) {
      expect(f.hop).toBe(NODE.c);
      expect(reset.get(f.key)).toBe('node/node-d');
    }
    // node-b's own flows had ended with its pod's FIN and were redialled onto the other nodes, so the flows they
    // carry just before the withdrawal cover 3/4 of the hash space evenly: 1/12 ÷ 3/4 = 1/9 of them are collateral.
    // Seed 1: 41 of 375 (10.9 %); binomial sd 1.6 %.
    expect(r.beforeWithdrawal.every((f) => f.hop !== NODE.b)).toBe(true);
    expect(collateral.length / r.beforeWithdrawal.length).toBeGreaterThan(1 / 9 - 0.035);
    expect(collateral.length / r.beforeWithdrawal.length).toBeLessThan(1 / 9 + 0.035);
    // Each reset flow's client got one RST; node-b's own connections ended with the server's FIN, not a reset.
    expect(r.ctx.metrics.counter('tcp.rst.received').total - r.rstBefore).toBe(collateral.length);
    expectConserved(r.ctx, r.w);
  });

  it('hash-threshold: the re-announcement of node-b (appended last) moves half the hash space, and resets every flow in it', () => {
    const r = deleteTraefik1();
    const back = reannounce(r);
    expect(events(r.ctx, 'bgp.announce').map((e) => [e.entity, e.t])).toEqual([['node/node-b', 15_300_000]]);
    // docs/sources/load-balancers.md#ecmp-hash-threshold, #ecmp-test-vectors, vector 2: appending a next hop at the end
    // (N-1 → N) moves 1/2 of the hash space.
    expect(gridShare(back.gridBefore, r.router)).toBeCloseTo(1 / 2, 3);
    expect(back.before.length).toBeGreaterThan(FLOWS - 10);
    // The flows alive then are not spread evenly any more: node-b's old quarter and node-c's collateral slice were
    // emptied at 10 s and 10.6 s and their flows redialled anywhere. Seed 1: 239 of 400 moved (60 %), not 50 %.
    const share = back.moved.length / back.before.length;
    expect(share).toBeGreaterThan(0.5 - 0.02);
    expect(share).toBeLessThan(0.65);
    expect([...back.reset.keys()].sort()).toEqual(keys(back.moved));
    // The new pod on node-b resets those now hashed to node-b (the last quarter of the hash space, which node-d's
    // enriched region covered). Seed 1: 138 of 400.
    const toB = back.moved.filter((f) => back.reset.get(f.key) === 'node/node-b');
    expect(toB.length).toBe(back.before.filter((f) => r.router.route(Proto.tcp, f.srcIp, f.srcPort, LB_IP, 80) === NODE.b).length);
    expect(toB.length / back.before.length).toBeGreaterThan(0.25 - 0.06);
    expect(toB.length / back.before.length).toBeLessThan(0.4);
    expectConserved(r.ctx, r.w);
  });

  it('resilient hashing: the withdrawal resets nothing beyond the dead node, the re-announcement moves only 1/4', () => {
    const r = deleteTraefik1(['topology.routers[0].ecmp=resilient']);
    expect(r.hopsJustAfter).toEqual(['10.0.0.11', '10.0.0.13', '10.0.0.14']);
    // docs/sources/load-balancers.md#ecmp-test-vectors, vector 4: resilient 4 → 3 moves 25 %, the dead hop's flows
    // only.
    expect(gridShare(r.gridBefore, r.router)).toBeCloseTo(1 / 4, 2);
    expect(gridShare(r.gridBefore, r.router, collateralHop)).toBe(0);
    expect(movedBy(r.router, r.all).every((f) => f.hop === NODE.b)).toBe(true);
    runTo(r.ctx, 13);
    expect(movedBy(r.router, r.beforeWithdrawal)).toEqual([]);
    expect(resetAtNodes(r.drops, 10.6, 13).size).toBe(0);
    expect(r.ctx.metrics.counter('tcp.rst.received').total - r.rstBefore).toBe(0);

    const back = reannounce(r);
    // docs/sources/load-balancers.md#resilient-hashing: adding a hop moves 1/(N+1): 32 of the 128 buckets, all to
    // node-b.
    expect(gridShare(back.gridBefore, r.router)).toBeCloseTo(1 / 4, 2);
    expect(gridShare(back.gridBefore, r.router, (from, to) => from !== to && to !== NODE.b)).toBe(0);
    expect(back.moved.length / back.before.length).toBeGreaterThan(0.25 - 0.06);
    expect(back.moved.length / back.before.length).toBeLessThan(0.25 + 0.06);
    expect([...back.reset.keys()].sort()).toEqual(keys(back.moved));
    expect(new Set(back.reset.values())).toEqual(new Set(['node/node-b']));
    expectConserved(r.ctx, r.w);
  });

  it("modulo-N: the withdrawal moves 3/4 of the hash space; two thirds of the surviving nodes' flows are reset", () => {
    const r = deleteTraefik1(['topology.routers[0].ecmp=modulo']);
    // docs/sources/load-balancers.md#modulo-n-hashing, #ecmp-test-vectors, vector 4: modulo 4 → 3 moves 75 %, 50 % of
    // it beyond node-b's quarter.
    expect(gridShare(r.gridBefore, r.router)).toBeCloseTo(3 / 4, 2);
    expect(gridShare(r.gridBefore, r.router, collateralHop)).toBeCloseTo(1 / 2, 2);
    expect(movedBy(r.router, r.all).length / FLOWS).toBeGreaterThan(0.75 - 0.06);
    expect(movedBy(r.router, r.all).length / FLOWS).toBeLessThan(0.75 + 0.06);
    runTo(r.ctx, 13);
    const collateral = movedBy(r.router, r.beforeWithdrawal);
    const reset = resetAtNodes(r.drops, 10.6, 13);
    expect([...reset.keys()].sort()).toEqual(keys(collateral));
    // Of the flows on node-a, node-c and node-d only a third keep their hop. Seed 1: 251 of 380 (66 %).
    expect(collateral.length / r.beforeWithdrawal.length).toBeGreaterThan(2 / 3 - 0.06);
    expect(collateral.length / r.beforeWithdrawal.length).toBeLessThan(2 / 3 + 0.06);
    expect(new Set(reset.values())).toEqual(new Set(['node/node-a', 'node/node-c', 'node/node-d']));
    expectConserved(r.ctx, r.w);
  });

  it('externalTrafficPolicy Cluster: every speaker keeps announcing, so the deletion moves no flow and resets none', () => {
    const r = deleteTraefik1(['topology.services.traefik.externalTrafficPolicy=Cluster']);
    runTo(r.ctx, 20);
    expect(r.router.multipathHops(PREFIX).map(formatIpv4)).toEqual(['10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14']);
    expect(events(r.ctx, 'bgp.withdraw')).toEqual([]);
    expect(events(r.ctx, 'bgp.announce')).toEqual([]);
    expect(events(r.ctx, 'router.ecmp.changed').filter((e) => e.t > 0)).toEqual([]);
    expect(r.ctx.metrics.counter('router.rehashes', { router: 'tor' }).total).toBe(3);
    expect(movedBy(r.router, r.all)).toEqual([]);
    // traefik-1's connections (a quarter, spread over every node by kube-proxy) end with its FIN and are redialled.
    expect(r.drops.filter((d) => d.reason === 'no_socket_reset')).toEqual([]);
    expect(r.ctx.metrics.counter('tcp.rst.received').total).toBe(0);
    // Not a request failed because of the deletion (a request sent before the first handshake completed at 0 s fails
    // with no_connection, whatever the policy).
    expect(r.ctx.metrics.counter('requests.failed').total).toBe(r.failedBefore);
    expect(r.ctx.metrics.counter('client.reconnects').total).toBeGreaterThan(FLOWS / 4 - 40);
    expectConserved(r.ctx, r.w);
  });

  it('ETP Local balances per node, not per pod: a node with three pods gets the same share as a node with one', () => {
    const yaml = scenarioText(ECMP, (s) => {
      s.topology.nodes[0]!.pods!.push(pod('traefik-4'), pod('traefik-5'));
      s.topology.deployments.traefik!.replicas = 6;
    });
    const { ctx, w } = worldOf(yaml);
    runTo(ctx, 5);
    const accepted = new Map<string, number>();
    for (const pod of w.workloads.pods) accepted.set(pod.name, pod.tcp.sockets().filter((s) => s.state === TcpState.established).length);
    const perNode = new Map<string, number>();
    for (const pod of w.workloads.pods) perNode.set(pod.host.name, (perNode.get(pod.host.name) ?? 0) + accepted.get(pod.name)!);
    expect([...accepted.values()].reduce((a, b) => a + b, 0)).toBe(FLOWS);
    // docs/sources/load-balancers.md#metallb-bgp-mode: 1/4 per node; node-a's three pods split its quarter.
    for (const n of perNode.values()) {
      expect(n / FLOWS).toBeGreaterThan(0.25 - 0.06);
      expect(n / FLOWS).toBeLessThan(0.25 + 0.06);
    }
    for (const name of ['traefik-0', 'traefik-4', 'traefik-5']) {
      expect(accepted.get(name)! / FLOWS).toBeGreaterThan(1 / 12 - 0.04);
      expect(accepted.get(name)! / FLOWS).toBeLessThan(1 / 12 + 0.04);
    }
    // Each node handles about a quarter of the packets too.
    const packets = ['node-a', 'node-b', 'node-c', 'node-d'].map((node) => ctx.metrics.counter('node.packets', { node }).total);
    const total = packets.reduce((a, b) => a + b, 0);
    for (const n of packets) expect(n / total).toBeCloseTo(0.25, 1);
    expectConserved(ctx, w);
  });

  it('the same run through createSim with a timeline: report.packets is conserved and resets come at 10.6 s and 15.8 s', () => {
    const yaml = scenarioText(ECMP, (s) => s.timeline.push(fault(10, 'delete-pod', 'pod/traefik-1', { gracePeriodSeconds: 30 })));
    const sim = createSim(loadText(yaml, ['duration=16']));
    sim.runUntil(sim.durationUs);
    const report = sim.report(0);
    expectReportConserved(report);
    expect(Object.keys(report.drops).sort()).toEqual(['no_local_endpoint', 'no_socket_reset']);
    // Sample i counts (i, i+1] s: collateral at the withdrawal (10.6 s), the moved flows at the re-announcement (15.8 s).
    const resets = report.series['packets.dropped{reason=no_socket_reset}']!.values;
    expect(resets.slice(0, 10).every((v) => v === 0)).toBe(true);
    expect(resets[10]).toBeGreaterThan(FLOWS / 12 - 20);
    expect(resets.slice(11, 15).every((v) => v === 0)).toBe(true);
    expect(resets[15]).toBeGreaterThan(FLOWS / 2 - 40);
    expect(report.totals['tcp.rst.received']).toBe(report.drops.no_socket_reset);
  });
});

// F5 BIG-IP in front of NodePort Services (docs/sources/load-balancers.md#big-ip-health-monitors).

const VIP = ipv4('192.0.2.10');

/**
 * Four nodes, web pods on node-a and node-b, a NodePort Service with ETP Local, a BIG-IP virtual server whose pool
 * holds every node's NodePort, one internet client. A replacement pod never becomes Ready here (podStartSeconds).
 */
const F5_SPEC: ScenarioSpec = {
  id: 'edge-f5',
  title: 'F5 in front of node ports',
  description: 'a BIG-IP pool of node members in front of a NodePort Service with externalTrafficPolicy Local',
  duration: 60,
  topology: {
    nodes: [node('a', { pods: [pod('web-0')] }), node('b', { pods: [pod('web-1')] }), node('c'), node('d')],
    deployments: { web: httpServer(2) },
    services: { web: service('web', '10.96.0.20', { type: 'NodePort', nodePort: 30080, externalTrafficPolicy: 'Local' }) },
    loadBalancers: [{ name: 'bigip', ip: '10.0.0.250', virtualServers: [{ name: 'web', vip: '192.0.2.10', port: 80, service: 'web' }] }],
    externalClients: [{ name: 'internet', ip: '203.0.113.5', targetIp: '192.0.2.10', targetPort: 80 }],
  },
  params: { client: { connectionsPerPod: 8, reconnectMs: 200, requestsPerSecond: 50 }, kube: { podStartSeconds: 100 } },
};
const F5 = scenarioText(F5_SPEC);

interface Probe {
  sent: number;
  done: number;
  node: string;
  port: number;
  ok: boolean;
}

interface Pick {
  t: number;
  /** Member node address, or null when no member was eligible. */
  node: string | null;
}

interface Dial {
  t: number;
  connectedAt: number | null;
}

interface F5Run {
  ctx: SimContext;
  w: World;
  hop: LoadBalancerHop;
  drops: Drop[];
  probes: Probe[];
  picks: Pick[];
  internet: ExternalHost;
}

/** Builds the world with recorders on the load balancer's probes and picks and on every drop. */
function f5(yaml: string, sets: string[] = []): F5Run {
  const { ctx, w } = worldOf(yaml, sets);
  const drops = recordDrops(w);
  const hop = w.network.elements.find((e): e is LoadBalancerHop => e instanceof LoadBalancerHop)!;
  const probes: Probe[] = [];
  const probe = hop.probe.bind(hop);
  hop.probe = (ip, port, timeout, done) => {
    const sent = now(ctx);
    probe(ip, port, timeout, (ok) => {
      probes.push({ sent, done: now(ctx), node: formatIpv4(ip), port, ok });
      done(ok);
    });
  };
  const picks: Pick[] = [];
  const lb = hop.lb;
  const pick = lb.pick.bind(lb);
  lb.pick = (vs) => {
    const member = pick(vs);
    picks.push({ t: now(ctx), node: member < 0 ? null : formatIpv4(lb.member(member).ip) });
    return member;
  };
  const internet = w.network.elements.find((e): e is ExternalHost => e instanceof ExternalHost && e.entity === 'external/internet')!;
  return { ctx, w, hop, drops, probes, picks, internet };
}

/** The HTTP client's connect timeout (params.client.connectTimeoutMs default), applied to the test's own dials. */
const CONNECT_TIMEOUT = 5;

/**
 * Opens a fresh connection to the VIP from the internet host every `every` seconds in [from, to), running the sim,
 * and gives up on one still unanswered after CONNECT_TIMEOUT, as an application would.
 */
function dialEvery(r: F5Run, from: number, to: number, every: number): Dial[] {
  const dials: Dial[] = [];
  const pending: { dial: Dial; socket: Socket }[] = [];
  const giveUp = (upTo: number) => {
    while (pending.length > 0 && pending[0]!.dial.t + CONNECT_TIMEOUT <= upTo) {
      const { dial, socket } = pending.shift()!;
      runTo(r.ctx, dial.t + CONNECT_TIMEOUT);
      if (socket.state === TcpState.synSent) r.internet.tcp.abort(socket);
    }
  };
  for (let i = 0; from + i * every < to - 1e-9; i++) {
    const t = from + i * every;
    giveUp(t);
    runTo(r.ctx, t);
    const dial: Dial = { t, connectedAt: null };
    const owner: SocketOwner = { onConnected: () => (dial.connectedAt = now(r.ctx)), onData: () => {}, onClosed: () => {} };
    pending.push({ dial, socket: r.internet.tcp.connect(VIP, 80, owner) });
    dials.push(dial);
  }
  giveUp(to + CONNECT_TIMEOUT);
  runTo(r.ctx, Math.max(now(r.ctx), to));
  return dials;
}

const memberEvents = (ctx: SimContext, kind: string, node: string): number[] =>
  events(ctx, kind)
    .filter((e) => e.t > 0 && e.message.includes(`${node}:`))
    .map((e) => e.t / 1e6);

const healthOf = (r: F5Run): string[] => r.hop.lb.members(0).map((id) => r.hop.lb.member(id).health);
const isSnatPort = (d: Drop): boolean => Number(d.src.split(':')[1]) < 32768;

function deleteWeb1(r: F5Run): void {
  r.w.workloads.deletePod(r.w.workloads.findPod('web-1')!, 0, 'test');
}

/** node-b starts without a pod (its member down); web-1 runs on node-c, so its replacement lands on node-b. */
const F5_B_EMPTY = scenarioText(F5_SPEC, (s) => {
  delete s.topology.nodes[1]!.pods;
  s.topology.nodes[2]!.pods = [pod('web-1')];
});

describe('F5 pool of node members in front of a NodePort Service with ETP Local', () => {
  it('steady state: members without a local endpoint are down, get no connection, and keep failing their probes', () => {
    const r = f5(F5);
    runTo(r.ctx, 20.5);
    const vs = { vs: 'web' };
    expect(healthOf(r)).toEqual(['up', 'up', 'down', 'down']);
    expect(r.ctx.metrics.gauge('lb.members', { ...vs, state: 'up' }).value).toBe(2);
    expect(r.ctx.metrics.gauge('lb.members', { ...vs, state: 'down' }).value).toBe(2);
    // The client's 8 connections, alternately to node-a and node-b.
    expect(r.picks.map((p) => p.node)).toEqual(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? '10.0.0.11' : '10.0.0.12')));
    // Probes every 5 s to all four members; the SYNs to node-c and node-d die at kube-proxy (no local endpoint) and
    // the probes are given up 5 s later.
    expect(r.ctx.metrics.counter('lb.probes.sent', vs).total).toBe(16);
    const failed = r.probes.filter((p) => !p.ok);
    expect(failed.length).toBe(6);
    expect(new Set(failed.map((p) => p.node))).toEqual(new Set(['10.0.0.13', '10.0.0.14']));
    for (const p of failed) expect(p.done - p.sent).toBeCloseTo(5, 6);
    expect(new Set(r.probes.filter((p) => p.ok).map((p) => p.node))).toEqual(new Set(['10.0.0.11', '10.0.0.12']));
    // Only probe SYNs are dropped, all from the self IP's ephemeral ports (SNAT automap ports start at 1024): each
    // probe that fails sends its SYN at 0, 1 and 3 s, and the two sent at 20 s have sent one so far.
    expect(r.drops.length).toBe(6 * 3 + 2);
    expect(r.drops.every((d) => d.reason === 'no_local_endpoint' && (d.site === 'node/node-c' || d.site === 'node/node-d'))).toBe(true);
    expect(r.drops.every((d) => d.src.startsWith('10.0.0.250:') && !isSnatPort(d))).toBe(true);
    expect(r.ctx.metrics.counter('requests.ok').total).toBeGreaterThan(900);
    expect(r.ctx.metrics.counter('requests.failed').total).toBe(0);
    expect(r.ctx.metrics.counter('lb.probes.failed', vs).total).toBeGreaterThanOrEqual(6);
    expectConserved(r.ctx, r.w);
  });

  it('each probe that times out counts one failure (lb.probes.failed)', () => {
    const r = f5(F5);
    runTo(r.ctx, 20.5);
    // Probes sent at 5, 10 and 15 s to node-c and node-d timed out; those sent at 20 s are still outstanding.
    expect(r.probes.filter((p) => !p.ok).length).toBe(6);
    expect(r.ctx.metrics.counter('lb.probes.failed', { vs: 'web' }).total).toBe(6);
  });

  it('web-1 deleted (grace 0): node-b stays in the pool until 16 s after its last good probe; meanwhile its share of new connections fail', () => {
    const r = f5(F5);
    runTo(r.ctx, 21);
    deleteWeb1(r);
    const dials = dialEvery(r, 21.3, 45, 0.25);
    const lastOk = Math.max(...r.probes.filter((p) => p.node === '10.0.0.12' && p.ok).map((p) => p.done));
    expect(lastOk).toBeGreaterThan(20);
    expect(lastOk).toBeLessThan(20.1);
    expect(memberEvents(r.ctx, 'lb.member.down', '10.0.0.12').length).toBe(1);
    const down = memberEvents(r.ctx, 'lb.member.down', '10.0.0.12')[0]!;
    // docs/sources/load-balancers.md#big-ip-health-monitors, #big-ip-test-vectors, vector 1: down once no probe has
    // succeeded for the timeout (16 s) since the last success; the deletion came within one probe interval after that
    // success.
    expect(down - lastOk).toBeCloseTo(16, 6);
    expect(down - 21).toBeGreaterThan(16 - 5);
    expect(down - 21).toBeLessThanOrEqual(16);
    // Every probe after the deletion failed by timeout: its NodePort SYN is dropped at node-b.
    const later = r.probes.filter((p) => p.node === '10.0.0.12' && p.sent > 21);
    expect(later.length).toBeGreaterThanOrEqual(3);
    expect(later.every((p) => !p.ok && p.done - p.sent > 4.99)).toBe(true);

    const window = dials.filter((d) => d.t < down);
    const after = dials.filter((d) => d.t > down);
    const failedIn = window.filter((d) => d.connectedAt === null);
    // Round-robin over two eligible members: half of the new connections go to node-b and none of those connects.
    // Seed 1: 30 of 59 dials failed.
    expect(failedIn.length / window.length).toBeGreaterThan(0.4);
    expect(failedIn.length / window.length).toBeLessThan(0.6);
    expect(after.length).toBeGreaterThan(30);
    expect(after.every((d) => d.connectedAt !== null)).toBe(true);
    expect(r.picks.filter((p) => p.t > down && p.node !== '10.0.0.11')).toEqual([]);
    const toB = r.picks.filter((p) => p.t > 21 && p.t < down && p.node === '10.0.0.12');
    expect(toB.length).toBeGreaterThanOrEqual(failedIn.length);
    // Their SYNs die at node-b's kube-proxy: no local endpoint for the node port. A connection handed to node-b
    // sends its SYN at 0, 1 and 3 s before the 5 s connect timeout, so the last such drop is within 3 s of `down`.
    const atB = r.drops.filter((d) => d.site === 'node/node-b' && d.reason === 'no_local_endpoint' && isSnatPort(d));
    expect(atB.length).toBeGreaterThanOrEqual(3 * failedIn.length);
    expect(Math.max(...atB.map((d) => d.t))).toBeLessThan(down + 3.01);
    expect(r.ctx.metrics.counter('tcp.connect.failed').total).toBeGreaterThanOrEqual(failedIn.length);
    expect(new Set(r.drops.map((d) => d.reason))).toEqual(new Set(['no_local_endpoint']));
    expectConserved(r.ctx, r.w);

    // activation after-healthy changes nothing for members that were up from the start: the same run, dial for dial.
    const patched = f5(F5, ['params.lb.activation=after-healthy']);
    runTo(patched.ctx, 21);
    deleteWeb1(patched);
    const same = dialEvery(patched, 21.3, 45, 0.25);
    expect(same.map((d) => d.connectedAt)).toEqual(dials.map((d) => d.connectedAt));
    expect(memberEvents(patched.ctx, 'lb.member.down', '10.0.0.12')).toEqual([down]);
  });

  it('a member that starts down and then gets a pod takes no connection before it passes a probe (after-healthy or not)', () => {
    // A down member is skipped whatever the activation; after-healthy also keeps it unactivated until that probe.
    for (const activation of ['after-healthy', 'immediate']) {
      const r = f5(F5_B_EMPTY, ['params.kube.podStartSeconds=2', `params.lb.activation=${activation}`]);
      runTo(r.ctx, 21);
      expect(healthOf(r)).toEqual(['up', 'down', 'up', 'down']);
      expect(r.hop.lb.member(r.hop.lb.members(0)[1]!).activated).toBe(false);
      deleteWeb1(r);
      const dials = dialEvery(r, 21.3, 40, 0.1);
      expect(r.w.workloads.pods.find((p) => p.name === 'web-2')!.host.name).toBe('node-b');
      expect(events(r.ctx, 'pod.ready').find((e) => e.entity === 'pod/web-2')!.t).toBe(23_200_000);
      const up = memberEvents(r.ctx, 'lb.member.up', '10.0.0.12');
      expect(up.length).toBe(1);
      // node-b answers a probe once its kube-proxy has the endpoint (Ready 23.2 s + 0.1 s watch + the sync).
      expect(r.probes.some((p) => p.node === '10.0.0.12' && p.ok && p.done <= up[0]! && p.done > 23.3)).toBe(true);
      const toB = r.picks.filter((p) => p.node === '10.0.0.12');
      expect(toB.length).toBeGreaterThan(5);
      expect(Math.min(...toB.map((p) => p.t))).toBeGreaterThan(up[0]!);
      expect(r.hop.lb.member(r.hop.lb.members(0)[1]!).activated).toBe(true);
      // Once node-b is up, dials fail only when they go to node-c, whose pod is gone but whose member is not down yet.
      const cDown = memberEvents(r.ctx, 'lb.member.down', '10.0.0.13')[0]!;
      expect(cDown).toBeGreaterThan(35);
      expect(dials.filter((d) => d.t > cDown).every((d) => d.connectedAt !== null)).toBe(true);
      expectConserved(r.ctx, r.w);
    }
  });

  it('a member whose probes have been timing out comes up on its first good probe', () => {
    const r = f5(F5_B_EMPTY, ['params.kube.podStartSeconds=2']);
    runTo(r.ctx, 21);
    deleteWeb1(r);
    runTo(r.ctx, 32);
    const firstOk = Math.min(...r.probes.filter((p) => p.node === '10.0.0.12' && p.ok).map((p) => p.done));
    // Probed at 25 s, answered within milliseconds.
    expect(firstOk).toBeGreaterThan(25);
    expect(firstOk).toBeLessThan(25.1);
    expect(memberEvents(r.ctx, 'lb.member.up', '10.0.0.12')).toEqual([firstOk]);
  });

  it('a member new to the pool (unknown) takes traffic at once by default and blackholes it; after-healthy or unknownReceivesTraffic=false keep it out', () => {
    // A CIS node poll that finds node-d (no web pod) as a new node: its member is added again, unknown until probed.
    const outcome = (sets: string[]) => {
      const r = f5(F5, sets);
      runTo(r.ctx, 11);
      const lb = r.hop.lb;
      lb.removeMember(lb.members(0).find((id) => lb.member(id).ip === NODE.d)!);
      lb.addMember(0, { kind: 'node', ip: NODE.d, port: 30080 });
      expect(healthOf(r)).toEqual(['up', 'up', 'down', 'unknown']);
      const dials = dialEvery(r, 11.1, 35, 0.1);
      const toD = r.picks.filter((p) => p.node === '10.0.0.14');
      expectConserved(r.ctx, r.w);
      return { dials, toD, downAt: memberEvents(r.ctx, 'lb.member.down', '10.0.0.14') };
    };
    // docs/sources/load-balancers.md#big-ip-test-vectors, vector 2: unknown members that take traffic blackhole it
    // until the monitor timeout, 16 s.
    const open = outcome([]);
    expect(open.downAt).toEqual([27]);
    expect(open.toD.length).toBeGreaterThan(40);
    expect(Math.max(...open.toD.map((p) => p.t))).toBeLessThan(27);
    const window = open.dials.filter((d) => d.t < 27);
    const failed = window.filter((d) => d.connectedAt === null).length;
    // One member in three. Seed 1: 53 of 159.
    expect(failed / window.length).toBeGreaterThan(1 / 3 - 0.05);
    expect(failed / window.length).toBeLessThan(1 / 3 + 0.05);
    expect(open.dials.filter((d) => d.t > 27).every((d) => d.connectedAt !== null)).toBe(true);

    for (const sets of [['params.lb.activation=after-healthy'], ['params.lb.unknownReceivesTraffic=false']]) {
      const closed = outcome(sets);
      expect(closed.downAt).toEqual([27]);
      expect(closed.toD).toEqual([]);
      expect(closed.dials.every((d) => d.connectedAt !== null)).toBe(true);
    }
  });

  it('without SNAT the members answer the client directly, from an address it never dialled, so its connections never establish', () => {
    const r = f5(F5, ['params.lb.snat=false']);
    runTo(r.ctx, 12);
    // Probes come from the self IP either way, so the members stay up and keep being picked.
    expect(healthOf(r)).toEqual(['up', 'up', 'down', 'down']);
    expect(r.picks.length).toBeGreaterThan(8);
    expect(r.ctx.metrics.counter('tcp.connect.ok').total).toBe(r.probes.filter((p) => p.ok).length);
    expect(r.ctx.metrics.counter('requests.ok').total).toBe(0);
    // A real network does the same: the LB rewrote only the destination, so the node (ETP Local keeps the client's
    // source) routes its SYN-ACK straight to the client, from node IP:NodePort. The client's kernel has no socket
    // for that 4-tuple and answers with a RST; its own SYN to the VIP never gets a reply and the connect times out.
    const atClient = r.drops.filter((d) => d.site === 'external/internet');
    expect(atClient.length).toBeGreaterThan(8);
    expect(atClient.every((d) => d.reason === 'no_socket_reset' && /^10\.0\.0\.1[12]:30080$/.test(d.src))).toBe(true);
    expect(r.ctx.metrics.counter('tcp.connect.failed').total).toBeGreaterThanOrEqual(8);
    expect(r.ctx.metrics.counter('requests.failed', { reason: 'no_connection' }).total).toBeGreaterThan(0);
    expectConserved(r.ctx, r.w);
  });

  it('the same deletion through createSim with a timeline: report.packets is conserved', () => {
    const yaml = scenarioText(F5_SPEC, (s) => s.timeline.push(fault(21, 'delete-pod', 'pod/web-1', { gracePeriodSeconds: 0 })));
    const sim = createSim(loadText(yaml, ['duration=40']));
    sim.runUntil(sim.durationUs);
    const report = sim.report(0);
    expectReportConserved(report);
    expect(Object.keys(report.drops)).toEqual(['no_local_endpoint']);
    expect(
      sim
        .eventsSince(0)
        .filter((e) => e.kind === 'lb.member.down' && e.t > 0)
        .map((e) => e.t),
    ).toEqual([36_002_807]);
  });
});

// healthCheckNodePort on the wire (docs/sources/kube-proxy.md#healthchecknodeport).

/** The F5 scenario with a LoadBalancer Service: kube-proxy serves a healthCheckNodePort and the pool probes it. */
const HCNP = scenarioText(F5_SPEC, (s) => (s.topology.services!.web!.type = 'LoadBalancer'));

/** Sends one HTTP GET from the internet host to ip:port; the answer's status lands in `into`. */
function healthGet(r: F5Run, ip: number, port: number, into: { sent: number; status: number | null }[]): void {
  const entry = { sent: now(r.ctx), status: null as number | null };
  into.push(entry);
  const owner: SocketOwner = {
    onConnected: (socket) => r.internet.tcp.send(socket, Payload.request, 1),
    onData: (socket, payload, message) => {
      if (payload !== Payload.response) return;
      entry.status = message;
      r.internet.tcp.close(socket);
    },
    onClosed: () => {},
  };
  r.internet.tcp.connect(ip, port, owner);
}

describe('healthCheckNodePort on the wire', () => {
  it('a LoadBalancer + Local Service gets one; the pool probes it; nodes without a local endpoint answer 503', () => {
    const r = f5(HCNP);
    const service = r.w.services.get('web')!;
    // The lowest free port of 30000-32767 (30080 is the traffic node port).
    expect(service.healthCheckNodePort).toBe(30000);
    runTo(r.ctx, 1);
    const answers: { sent: number; status: number | null }[] = [];
    for (const ip of Object.values(NODE)) healthGet(r, ip, 30000, answers);
    runTo(r.ctx, 11);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 503, 503]);
    expect(r.probes.length).toBe(8);
    expect(r.probes.every((p) => p.port === 30000)).toBe(true);
    // A 503 is an answer, not a timeout: the probe fails within milliseconds.
    for (const p of r.probes) {
      expect(p.ok).toBe(p.node === '10.0.0.11' || p.node === '10.0.0.12');
      expect(p.done - p.sent).toBeLessThan(0.05);
    }
    expect(r.drops).toEqual([]);
    expect(r.hop.lb.members(0).map((id) => r.hop.lb.member(id).health)).toEqual(['up', 'up', 'down', 'down']);
    expect(r.ctx.metrics.counter('requests.failed').total).toBe(0);
    expectConserved(r.ctx, r.w);
  });

  it('after the only pod on node-b goes, node-b answers 503 once its kube-proxy has synced; its member is down within one monitor timeout', () => {
    const r = f5(HCNP);
    runTo(r.ctx, 21);
    const syncs = r.ctx.metrics.counter('kube_proxy.syncs', { node: 'node-b' });
    const syncsBefore = syncs.total;
    deleteWeb1(r);
    const answers: { sent: number; status: number | null }[] = [];
    let syncedAt = NaN;
    for (let i = 1; i < 200; i++) {
      runTo(r.ctx, 21 + i * 0.01);
      if (Number.isNaN(syncedAt) && syncs.total > syncsBefore) syncedAt = now(r.ctx);
      healthGet(r, NODE.b, 30000, answers);
    }
    runTo(r.ctx, 40);
    // The slice change reaches kube-proxy after 100 ms; the sync itself takes ≈50 ms (its fixed cost).
    expect(syncedAt).toBeGreaterThan(21.1);
    expect(syncedAt).toBeLessThan(21.2);
    expect(answers.every((a) => a.status !== null)).toBe(true);
    // Requests sent 10 ms or more before the sync ended were answered before it (a request takes < 1 ms to arrive).
    expect(answers.filter((a) => a.sent < syncedAt - 0.01).every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.sent >= syncedAt).every((a) => a.status === 503)).toBe(true);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(5);

    const bProbes = r.probes.filter((p) => p.node === '10.0.0.12');
    const lastOk = Math.max(...bProbes.filter((p) => p.ok).map((p) => p.done));
    expect(bProbes.filter((p) => p.sent > syncedAt).every((p) => !p.ok && p.done - p.sent < 0.05)).toBe(true);
    const [down] = memberEvents(r.ctx, 'lb.member.down', '10.0.0.12');
    expect(down! - lastOk).toBeCloseTo(16, 6);
    expect(down! - syncedAt).toBeLessThanOrEqual(16);
    expect(down! - syncedAt).toBeGreaterThan(16 - 5);
    expectConserved(r.ctx, r.w);
  });
});
