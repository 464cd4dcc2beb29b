import { describe, expect, it } from 'vitest';
import { ConnState, type LogEvent, type RunReport, type Sim } from '../../src/sim/api';
import { atSeconds } from '../../src/sim/core/time';
import { CtState } from '../../src/sim/net/conntrack';
import { formatIpv4, ipv4 } from '../../src/sim/net/ipv4';
import { Proto } from '../../src/sim/net/packet';
import { TcpState, type Socket, type SocketOwner } from '../../src/sim/net/tcp';
import { createSim } from '../../src/sim/sim';
import { eniPodDeletion, fault, httpServer, node, pod, scenarioText, service, webAndClients } from '../fixtures/scenario-builder';
import { loadText, runText, worldOf } from '../fixtures/scenario-run';

const series = (r: RunReport, key: string): number[] => {
  const s = r.series[key];
  if (!s) throw new Error(`no series ${key}; have ${Object.keys(r.series).join(', ')}`);
  return s.values;
};
const sum = (values: number[], from = 0, to = values.length) => values.slice(from, to).reduce((a, b) => a + b, 0);
const dropSeries = (r: RunReport, reason: string) => series(r, `packets.dropped{reason=${reason}}`);
const dropsLogged = (sim: Sim, reason: string): LogEvent[] => sim.eventsSince(0).filter((e) => e.kind === 'packet.dropped' && e.reason === reason);

function expectConserved(r: RunReport): void {
  const { sent, delivered, dropped, inFlight } = r.packets;
  expect(delivered + dropped + inFlight).toBe(sent);
  expect(sum(Object.values(r.drops))).toBe(dropped);
}

function established(sim: Sim): number {
  const c = sim.connections();
  let n = 0;
  for (let i = 2; i < c.length; i += 3) if (c[i] === ConnState.established) n++;
  return n;
}

/**
 * One server pod on node-a, one client on node-b, both cloud instances with pod addresses on a second interface
 * (Cilium ENI style). web-0 is deleted at 5 s with no grace period; kube-proxy never learns of it within the run, so
 * the client keeps redialling the dead address. The address is released from node-a's interface 10 s later.
 */
const ENI = scenarioText(eniPodDeletion('datapath-eni', 40));

/** When node-a released the deleted pod's address, in seconds. */
function releasedAt(sim: Sim): number {
  const event = sim.eventsSince(0).find((e) => e.kind === 'cni.ip-released' && e.entity === 'node/node-a');
  if (!event) throw new Error('the address was never released');
  return event.t / 1e6;
}

describe('ENI pod networking: SYNs to a deleted pod address', () => {
  it('die as rp_filter martians on the old node while the address is attached, then as no_route at the fabric', () => {
    const { sim, report } = runText(ENI);
    const release = releasedAt(sim);
    expect(release).toBeCloseTo(15.2, 5);
    expect(Object.keys(report.drops).sort()).toEqual(['no_route', 'rp_filter_martian']);
    const martian = dropSeries(report, 'rp_filter_martian');
    const noRoute = dropSeries(report, 'no_route');
    // Sample i counts drops in (i, i+1] s.
    expect(sum(martian, 0, 5)).toBe(0);
    expect(sum(martian, 5, 15)).toBeGreaterThanOrEqual(3);
    expect(sum(martian, Math.ceil(release))).toBe(0);
    expect(sum(noRoute, 0, Math.floor(release))).toBe(0);
    expect(sum(noRoute, Math.ceil(release))).toBeGreaterThanOrEqual(3);

    const martians = dropsLogged(sim, 'rp_filter_martian');
    expect(martians.length).toBeGreaterThan(0);
    for (const e of martians) {
      expect(e.entity).toBe('node/node-a');
      expect(e.message).toMatch(/SYN 10\.244\.2\.\d+:\d+ → 10\.244\.1\.5:8080/);
      const from = e.message.match(/SYN (10\.244\.2\.\d+)/)![1];
      expect(e.cause).toBe(`martian source 10.244.1.5 from ${from}, on dev eth1: eth1 has no IPv4 address, rp_filter 2`);
    }
    for (const e of dropsLogged(sim, 'no_route')) expect(e.entity).toBe('network/fabric');
    expect(
      series(report, 'requests.ok')
        .slice(6)
        .every((v) => v === 0),
    ).toBe(true);
    expectConserved(report);
  });

  it('each SYN that reaches the old instance holds a hypervisor tracked entry there, until the address is gone', () => {
    const { report } = runText(ENI);
    const oldNode = series(report, 'hypervisor.conntrack.used{instance=node-a}');
    const clientNode = series(report, 'hypervisor.conntrack.used{instance=node-b}');
    // Redials at 5.3 s and 10.6 s (connect timeout 5 s + reconnect 300 ms) each add a flow on node-a.
    expect(oldNode[5]!).toBe(oldNode[4]! + 1);
    expect(oldNode[10]!).toBe(oldNode[5]! + 1);
    // After the release nothing reaches node-a any more; the client's instance keeps tracking each attempt.
    expect(Math.max(...oldNode.slice(16))).toBeLessThanOrEqual(oldNode[14]!);
    // Redials at 21.2, 26.5, 31.8 and 37.1 s: one more entry each (the RST-closed first connection expires near 15 s).
    expect(clientNode[39]! - clientNode[16]!).toBe(4);
  });

  it('strict rp_filter drops them as martians too', () => {
    const { report } = runText(ENI, ['params.node.rpFilter=1']);
    expect(report.drops.rp_filter_martian).toBeGreaterThan(0);
  });

  it('with an address on the pod interface, loose rp_filter lets them through and the source/destination check drops them', () => {
    const base = runText(ENI).report;
    const { sim, report } = runText(ENI, ['params.node.podInterfaceHasIp=true']);
    expect(Object.keys(report.drops).sort()).toEqual(['no_route', 'source_dest_check']);
    expect(report.drops.source_dest_check).toBe(base.drops.rp_filter_martian);
    for (const e of dropsLogged(sim, 'source_dest_check')) {
      expect(e.entity).toBe('instance/node-a');
      expect(e.message).toMatch(/→ 10\.244\.1\.5:8080/);
    }
    const release = releasedAt(sim);
    expect(sum(dropSeries(report, 'source_dest_check'), Math.ceil(release))).toBe(0);
    expectConserved(report);
  });

  it('with an address on the pod interface, strict rp_filter still finds them martian (the way back is eth0)', () => {
    const { report } = runText(ENI, ['params.node.podInterfaceHasIp=true', 'params.node.rpFilter=1']);
    expect(Object.keys(report.drops).sort()).toEqual(['no_route', 'rp_filter_martian']);
  });

  it('without the source/destination check they loop between node-a and the fabric until their TTL runs out', () => {
    const base = runText(ENI).report;
    const { sim, report } = runText(ENI, ['params.node.podInterfaceHasIp=true', 'params.instance.sourceDestCheck=false']);
    expect(Object.keys(report.drops).sort()).toEqual(['no_route', 'ttl_expired']);
    expect(report.drops.ttl_expired).toBe(base.drops.rp_filter_martian);
    for (const e of dropsLogged(sim, 'ttl_expired')) expect(e.entity).toBe('node/node-a');
    // TTL 64 less one at the client's node: node-a forwards each looping SYN 63 times.
    const extra = report.totals['node.packets{node=node-a}']! - base.totals['node.packets{node=node-a}']!;
    expect(extra).toBe(62 * report.drops.ttl_expired!);
    expectConserved(report);
  });

  it('with rp_filter off they are not martians: the source/destination check drops them', () => {
    const { report } = runText(ENI, ['params.node.rpFilter=0']);
    expect(report.drops.rp_filter_martian).toBeUndefined();
    expect(Object.keys(report.drops).sort()).toEqual(['no_route', 'source_dest_check']);
  });

  it('routed pod networking on bare metal: the old node blackholes them instead', () => {
    const { report } = runText(ENI, ['params.node.podNetwork=routed', 'topology.nodes[0].platform=bare-metal', 'topology.nodes[1].platform=bare-metal']);
    expect(Object.keys(report.drops)).toEqual(['no_local_pod']);
  });
});

/**
 * A server on a cloud instance with a tiny tracked-connection allowance (20); one client with 30 connections on an
 * instance ten times the size. ENI mode, so the instances send only from addresses attached to them.
 */
const ALLOWANCE = scenarioText({
  id: 'datapath-allowance',
  title: 'Hypervisor allowance',
  description: 'more connections than the instance may track',
  seed: 2,
  duration: 30,
  topology: {
    nodes: [node('a', { platform: 'cloud', pods: [pod('web-0', { ip: '10.244.1.5' })] }), node('b', { platform: 'cloud', size: 10, pods: [pod('client-0')] })],
    ...webAndClients(1, 1),
  },
  params: { client: { requestsPerSecond: 50, connectionsPerPod: 30 }, node: { podNetwork: 'eni' }, instance: { conntrackAllowance: 20 } },
});

describe('hypervisor tracked-connection allowance on the packet path', () => {
  it('new connections beyond the allowance fail with hypervisor_conntrack_exceeded; established ones keep working', () => {
    const sim = createSim(loadText(ALLOWANCE));
    sim.runUntil(atSeconds(10));
    expect(established(sim)).toBe(20);
    sim.runUntil(sim.durationUs);
    expect(established(sim)).toBe(20);
    const r = sim.report(0);
    expect(Object.keys(r.drops)).toEqual(['hypervisor_conntrack_exceeded']);
    expect(r.totals['hypervisor.conntrack_allowance_exceeded{instance=node-a}']).toBe(r.drops.hypervisor_conntrack_exceeded);
    expect(r.totals['hypervisor.conntrack_allowance_exceeded']).toBe(r.drops.hypervisor_conntrack_exceeded);
    for (const e of dropsLogged(sim, 'hypervisor_conntrack_exceeded')) {
      expect(e.entity).toBe('instance/node-a');
      expect(e.cause).toBe('20 of 20 tracked connections in use; 100 % of those sampled are flows to 10.244.1.5');
    }
    // The client's larger instance tracks every attempt, failed or not, well within its 200.
    expect(r.totals['hypervisor.conntrack_allowance_exceeded{instance=node-b}']).toBe(0);
    expect(r.totals['tcp.connect.failed']).toBeGreaterThan(0);
    expect(series(r, 'hypervisor.conntrack.used{instance=node-a}').slice(1)).toEqual(new Array(29).fill(20));
    expect(series(r, 'hypervisor.conntrack_allowance_available{instance=node-a}').slice(1)).toEqual(new Array(29).fill(0));
    // Every request rides one of the tracked connections and is answered.
    expect(r.totals['requests.failed'] ?? 0).toBe(0);
    expect(
      series(r, 'requests.ok')
        .slice(1)
        .every((v) => v > 0),
    ).toBe(true);
    expectConserved(r);
  });

  it('untracked flows leave the allowance alone: every connection is established, nothing is dropped', () => {
    const sim = createSim(loadText(ALLOWANCE, ['params.instance.untracked=true']));
    sim.runUntil(sim.durationUs);
    const r = sim.report(0);
    expect(r.drops).toEqual({});
    expect(established(sim)).toBe(30);
    expect(r.totals['hypervisor.conntrack.used{instance=node-a}']).toBe(0);
  });

  it('a larger instance size scales the allowance', () => {
    const sim = createSim(loadText(ALLOWANCE, ['topology.nodes[0].size=2']));
    sim.runUntil(sim.durationUs);
    expect(sim.report(0).drops).toEqual({});
    expect(established(sim)).toBe(30);
  });
});

/** Bare-metal nodes whose conntrack holds 3 entries; a client opens 5 connections; the only server is deleted at 10 s. */
const conntrack = (duration: number, grace: number): string =>
  scenarioText({
    id: 'datapath-conntrack',
    title: 'Node conntrack',
    description: 'a tiny nf_conntrack_max',
    seed: 3,
    duration,
    topology: { nodes: [node('a', { pods: [pod('web-0')] }), node('b', { pods: [pod('client-0')] })], ...webAndClients(1, 1) },
    params: { client: { requestsPerSecond: 5, connectionsPerPod: 5 }, node: { conntrackMax: 3 }, kube: { podStartSeconds: 1000 } },
    timeline: [fault(10, 'delete-pod', 'pod/web-0', { gracePeriodSeconds: grace })],
  });

describe('node connection tracking on the packet path', () => {
  it('with the table full, new flows drop as host_conntrack_full; reset flows leave it after the close timeout (10 s)', () => {
    const sim = createSim(loadText(conntrack(40, 0)));
    sim.runUntil(atSeconds(9));
    expect(established(sim)).toBe(3);
    sim.runUntil(sim.durationUs);
    const r = sim.report(0);
    const full = dropSeries(r, 'host_conntrack_full');
    expect(sum(full, 0, 10)).toBeGreaterThan(0);
    expect(sum(full, 10)).toBe(0);
    for (const e of dropsLogged(sim, 'host_conntrack_full')) {
      expect(e.entity).toBe('node/node-b');
      expect(e.cause).toBe('nf_conntrack table full: 3 of 3 entries');
    }
    for (const node of ['node-a', 'node-b']) {
      const used = series(r, `node.conntrack.used{node=${node}}`);
      expect(used.slice(0, 18)).toEqual(new Array(18).fill(3));
      // The kernel resets the connections at 10 s; CLOSE lasts 10 s; the next sweep finds them gone.
      expect(used.slice(21)).toEqual(new Array(used.length - 21).fill(0));
    }
    // With no endpoints left kube-proxy rejects redials before they are tracked.
    expect(r.drops.service_no_endpoints).toBeGreaterThan(0);
    expectConserved(r);
  });

  it('a graceful close leaves the flows in TIME_WAIT (120 s) without any reset', () => {
    const r = runText(conntrack(140, 5)).report;
    expect(r.drops.no_socket_reset ?? 0).toBe(0);
    expect(r.totals['tcp.rst.sent'] ?? 0).toBe(0);
    for (const node of ['node-a', 'node-b']) {
      const used = series(r, `node.conntrack.used{node=${node}}`);
      expect(used[60]).toBe(3);
      expect(used.slice(133)).toEqual(new Array(used.length - 133).fill(0));
    }
  });
});

/** Three bare-metal nodes; the backend runs on node-a, a probe pod on node-b; node-c runs no endpoint. */
const nodePort = (externalTrafficPolicy: 'Cluster' | 'Local'): string =>
  scenarioText({
    id: 'datapath-nodeport',
    title: 'NodePort',
    description: 'a pod reaches a NodePort Service through node addresses',
    seed: 4,
    duration: 10,
    topology: {
      nodes: [node('a', { pods: [pod('web-0')] }), node('b', { pods: [pod('probe-0')] }), node('c')],
      deployments: { web: httpServer(1, { port: 8080 }), probe: httpServer(1, { port: 9000 }) },
      services: { web: service('web', '10.96.0.10', { type: 'NodePort', nodePort: 30080, externalTrafficPolicy }) },
    },
  });

class Recorder implements SocketOwner {
  readonly closed: string[] = [];
  onConnected(): void {}
  onData(): void {}
  onClosed(_socket: Socket, cause: string): void {
    this.closed.push(cause);
  }
}

/** Dials each address from the probe pod and returns the sockets and the peer addresses the backend sees. */
function dialNodePort(policy: 'Cluster' | 'Local', targets: string[]) {
  const { ctx, w } = worldOf(nodePort(policy));
  ctx.sched.runUntil(atSeconds(1));
  const probe = w.workloads.findPod('probe-0')!;
  const web = w.workloads.findPod('web-0')!;
  const owner = new Recorder();
  const sockets = targets.map((target) => {
    const [ip, port] = target.split(':');
    return probe.tcp.connect(ipv4(ip!), Number(port), owner);
  });
  ctx.sched.runUntil(atSeconds(3));
  const seenByBackend = new Map(web.tcp.sockets().map((s) => [s.remotePort, formatIpv4(s.remoteIp)]));
  return { ctx, probe, sockets, seen: (s: Socket) => seenByBackend.get(s.localPort), drops: ctx.drops.totals(), owner };
}

describe('kube-proxy NodePort Services on the packet path', () => {
  it('externalTrafficPolicy Cluster: the backend sees the address of the node that was dialled (masquerade)', () => {
    const { sockets, seen, drops } = dialNodePort('Cluster', ['10.0.0.11:30080', '10.0.0.13:30080']);
    const [viaA, viaC] = sockets;
    expect(viaA!.state).toBe(TcpState.established);
    expect(viaC!.state).toBe(TcpState.established);
    expect(seen(viaA!)).toBe('10.0.0.11');
    expect(seen(viaC!)).toBe('10.0.0.13');
    expect(drops).toEqual({});
  });

  it("externalTrafficPolicy Local: the backend sees the client's own address; a node without an endpoint drops", () => {
    const { probe, sockets, seen, drops, ctx } = dialNodePort('Local', ['10.0.0.11:30080', '10.0.0.13:30080']);
    const [viaA, viaC] = sockets;
    expect(viaA!.state).toBe(TcpState.established);
    expect(seen(viaA!)).toBe(formatIpv4(probe.ip));
    expect(viaC!.state).toBe(TcpState.synSent);
    expect(seen(viaC!)).toBeUndefined();
    // The first SYN and its retransmission after 1 s, both at node-c.
    expect(drops).toEqual({ no_local_endpoint: 2 });
    const logged = ctx.log.since(0).filter((e) => e.reason === 'no_local_endpoint');
    expect(logged.map((e) => e.entity)).toEqual(['node/node-c', 'node/node-c']);
  });

  it('a pod dialling the ClusterIP is not masqueraded: the backend sees the pod', () => {
    const { probe, sockets, seen } = dialNodePort('Local', ['10.96.0.10:80']);
    expect(sockets[0]!.state).toBe(TcpState.established);
    expect(seen(sockets[0]!)).toBe(formatIpv4(probe.ip));
  });

  it('a pod that reaches itself through its Service is masqueraded (hairpin), so its replies come back through the node', () => {
    const { ctx, w } = worldOf(nodePort('Cluster'));
    ctx.sched.runUntil(atSeconds(1));
    const web = w.workloads.findPod('web-0')!;
    const socket = web.tcp.connect(ipv4('10.96.0.10'), 80, new Recorder());
    ctx.sched.runUntil(atSeconds(2));
    expect(socket.state).toBe(TcpState.established);
    const accepted = web.tcp.sockets().find((s) => s.localPort === 8080)!;
    // kube-proxy's KUBE-SEP chain marks `-s <endpoint IP>` for masquerade; without it the server would answer itself
    // inside its own namespace and the client would see a reply from the pod address instead of the Service's.
    expect(formatIpv4(accepted.remoteIp)).not.toBe(formatIpv4(web.ip));
  });

  it('a node port on a node address that is not the one dialled does not match', () => {
    const { sockets, owner, drops } = dialNodePort('Cluster', ['10.0.0.11:30081']);
    // Nothing listens on node-a's port 30081: the host answers with a reset.
    expect(sockets[0]!.state).toBe(TcpState.closed);
    expect(owner.closed).toEqual(['reset']);
    expect(drops).toEqual({ no_socket_reset: 1 });
  });
});

describe('UDP on the packet path', () => {
  const UDP = nodePort('Cluster');

  it('a datagram to a port nobody binds is dropped as udp_no_socket; a bound port receives it', () => {
    const { ctx, w } = worldOf(UDP);
    ctx.sched.runUntil(atSeconds(1));
    const probe = w.workloads.findPod('probe-0')!;
    const web = w.workloads.findPod('web-0')!;
    const got: string[] = [];
    web.udp.bind(5353, { onDatagram: (src, sport, _dst, dport, message) => got.push(`${formatIpv4(src)}:${sport}→${dport} #${message}`) });
    const sport = probe.udp.bindEphemeral({ onDatagram: () => {} });
    probe.udp.send(sport, web.ip, 5353, 7);
    probe.udp.send(sport, web.ip, 5354, 8);
    ctx.sched.runUntil(atSeconds(2));
    expect(got).toEqual([`${formatIpv4(probe.ip)}:${sport}→5353 #7`]);
    expect(ctx.drops.totals()).toEqual({ udp_no_socket: 1 });
    const logged = ctx.log.since(0).filter((e) => e.reason === 'udp_no_socket');
    // Drops inside a pod's namespace are reported by its node.
    expect(logged.map((e) => e.entity)).toEqual(['node/node-a']);
    expect(logged[0]!.message).toBe(`dropped UDP ${formatIpv4(probe.ip)}:${sport} → ${formatIpv4(web.ip)}:5354 (udp_no_socket)`);
    expect(ctx.metrics.counter('udp.datagrams.received').total).toBe(1);
    expect(ctx.metrics.counter('udp.datagrams.sent').total).toBe(2);
  });

  it("a datagram to a node's unbound host port is dropped at the node", () => {
    const { ctx, w } = worldOf(UDP);
    const probe = w.workloads.findPod('probe-0')!;
    probe.udp.send(40000, ipv4('10.0.0.11'), 9999, 1);
    ctx.sched.runUntil(atSeconds(1));
    expect(ctx.drops.totals()).toEqual({ udp_no_socket: 1 });
    expect(ctx.log.since(0).find((e) => e.reason === 'udp_no_socket')?.entity).toBe('node/node-a');
  });

  it('node conntrack keeps an unanswered UDP flow for udp_timeout (30 s); a reply makes it a stream (120 s)', () => {
    const { ctx, w } = worldOf(UDP);
    const probe = w.workloads.findPod('probe-0')!;
    const web = w.workloads.findPod('web-0')!;
    web.udp.bind(5353, { onDatagram: (src, sport, _dst, _dport, message) => web.udp.send(5353, src, sport, message) });
    const nodeB = w.hosts[1]!.conntrack;
    // Two datagrams a second apart to a port nobody answers on: still unreplied.
    probe.udp.send(40000, web.ip, 5354, 1);
    ctx.sched.runUntil(atSeconds(1));
    probe.udp.send(40000, web.ip, 5354, 2);
    ctx.sched.runUntil(atSeconds(2));
    const unanswered = nodeB.lookup(Proto.udp, probe.ip, 40000, web.ip, 5354, atSeconds(2));
    expect(unanswered).toBeGreaterThanOrEqual(0);
    expect(nodeB.stateOf(unanswered)).toBe(CtState.udpUnreplied);
    expect(nodeB.expiresAt(unanswered) / 1e6).toBeCloseTo(31, 3);
    // A query that is answered.
    probe.udp.send(40001, web.ip, 5353, 3);
    ctx.sched.runUntil(atSeconds(3));
    const answered = nodeB.lookup(Proto.udp, probe.ip, 40001, web.ip, 5353, atSeconds(3));
    expect(nodeB.stateOf(answered)).toBe(CtState.udpStream);
    expect(nodeB.expiresAt(answered) / 1e6).toBeCloseTo(122, 2);
  });

  it('after an unbind the port no longer receives', () => {
    const { ctx, w } = worldOf(UDP);
    const probe = w.workloads.findPod('probe-0')!;
    const web = w.workloads.findPod('web-0')!;
    let received = 0;
    web.udp.bind(5353, { onDatagram: () => received++ });
    probe.udp.send(40000, web.ip, 5353, 1);
    ctx.sched.runUntil(atSeconds(1));
    web.udp.unbind(5353);
    probe.udp.send(40000, web.ip, 5353, 2);
    ctx.sched.runUntil(atSeconds(2));
    expect(received).toBe(1);
    expect(ctx.drops.totals()).toEqual({ udp_no_socket: 1 });
  });
});
