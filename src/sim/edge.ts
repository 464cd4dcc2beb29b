import type { HttpClient, HttpClients } from './apps/http-client';
import { seconds, toSeconds, type SimTime } from './core/time';
import { Bgp, bgpOptions } from './infra/bgp';
import { ExternalHost } from './infra/external-host';
import { toElement } from './infra/fabric';
import type { MemberSpec } from './infra/lb-pool';
import { CIS_NODE_POLL_INTERVAL, LoadBalancer } from './infra/load-balancer';
import { LoadBalancerHop } from './infra/load-balancer-hop';
import { Router } from './infra/router';
import { RouterHop } from './infra/router-hop';
import { MetalLb } from './k8s/metallb';
import { parseForwardedFor } from './net/forwarded';
import { cidr, ipv4, type Ipv4 } from './net/ipv4';
import type { Scenario } from './scenario/schema';
import type { WorldCore } from './world-core';

/** A client on the internet, with the address it sends to. */
export interface ExternalClient {
  client: HttpClient;
  entity: string;
  targetIp: number;
}

/** The edge's parts by name, for faults to act on. */
export interface Edge {
  routers: ReadonlyMap<string, RouterHop>;
  metallb: MetalLb | null;
  loadBalancers: ReadonlyMap<string, LoadBalancerHop>;
  externalClients: ReadonlyMap<string, ExternalClient>;
  /** Nodes joined or left the cluster: CIS re-reads the node list at its next poll and syncs node-member pools. */
  nodesChanged(): void;
  /** Every pool of the named load balancer emptied and filled again: each member new, unknown until probed. */
  recreatePools(lb: string): void;
}

/**
 * What sits in front of the cluster: routers with MetalLB's BGP announcements for LoadBalancer IPs, F5-style load
 * balancers whose pools follow Services, and clients on the internet. Returns the parts and what to start once pods run.
 */
export function setUpEdge(world: WorldCore, scenario: Scenario, clients: HttpClients): { edge: Edge; start: () => void } {
  const { topology, params } = scenario;
  const routers = new Map<string, RouterHop>();
  const loadBalancers = new Map<string, LoadBalancerHop>();
  const externalClients = new Map<string, ExternalClient>();
  let metallb: MetalLb | null = null;
  for (const r of topology.routers) {
    const router = new Router(world.ctx, r.name, { ecmpMode: r.ecmp });
    routers.set(r.name, new RouterHop(world.network, router, ipv4(r.ip)));
  }
  const starts: (() => void)[] = [];
  if (topology.bgp) {
    const hop = routers.get(topology.bgp.router)!;
    const speakerNames = topology.bgp.speakers ?? topology.nodes.map((n) => n.name);
    // A node not yet joined starts its speaker when it joins.
    const speakers = world.hosts.filter((h) => speakerNames.includes(h.name) && h.inCluster);
    const announced = [...world.services.values()].filter((s) => s.type === 'LoadBalancer' && s.loadBalancerIp !== undefined);
    const bgp = new Bgp(world.ctx, bgpOptions(params.bgp));
    const speakersOf = new MetalLb(world.ctx, bgp, hop.router, speakers, announced);
    metallb = speakersOf;
    for (const service of announced) world.network.fabric.addBlock({ base: service.loadBalancerIp! as Ipv4, prefix: 32 }, toElement(hop.element));
    world.workloads.watchSlices((service) => speakersOf.refresh(service));
    starts.push(() => speakersOf.start());
  }
  const nodeSyncs: (() => void)[] = [];
  const recreates = new Map<string, () => void>();
  for (const spec of topology.loadBalancers) {
    const built = setUpLoadBalancer(world, spec, params.lb);
    loadBalancers.set(spec.name, built.hop);
    nodeSyncs.push(built.syncNodes);
    recreates.set(spec.name, built.recreate);
    starts.push(built.start);
  }
  let pollPending = false;
  const nodePoll = world.ctx.sched.register('cis.node-poll', () => {
    pollPending = false;
    for (const sync of nodeSyncs) sync();
  });
  const nodesChanged = () => {
    if (pollPending || nodeSyncs.length === 0) return;
    pollPending = true;
    // CIS polls the node list every 30 s from its start (docs/sources/load-balancers.md#container-ingress-services);
    // the change shows at the next poll.
    const now = world.ctx.sched.now;
    world.ctx.sched.at((Math.floor(now / CIS_NODE_POLL_INTERVAL) * CIS_NODE_POLL_INTERVAL + CIS_NODE_POLL_INTERVAL) as SimTime, nodePoll);
  };
  for (const c of topology.externalClients) {
    const host = new ExternalHost(world.network, `external/${c.name}`, ipv4(c.ip), world.tcp, world.udp);
    world.addExternal(host);
    const target = { name: `${c.targetIp}:${c.targetPort}`, ip: ipv4(c.targetIp), port: c.targetPort };
    const forwardedFor = c.forwardedFor === undefined ? null : parseForwardedFor(c.forwardedFor);
    const client = clients.create({ entity: host.entity, name: c.name, tcp: host.tcp }, target, { forwardedFor });
    externalClients.set(c.name, { client, entity: host.entity, targetIp: target.ip });
    starts.push(() => client.start());
  }
  return {
    edge: { routers, metallb, loadBalancers, externalClients, nodesChanged, recreatePools: (lb) => recreates.get(lb)?.() },
    start: () => {
      for (const start of starts) start();
    },
  };
}

/** An F5-style box: its pools are the Service's node ports (one member per node) or its ready pods. */
function setUpLoadBalancer(
  world: WorldCore,
  spec: Scenario['topology']['loadBalancers'][number],
  settings: Scenario['params']['lb'],
): { hop: LoadBalancerHop; start: () => void; syncNodes: () => void; recreate: () => void } {
  let hop: LoadBalancerHop | null = null;
  const probeTimeout = seconds(Math.min(settings.monitorIntervalS, settings.monitorTimeoutS));
  const lb = new LoadBalancer(world.ctx, spec.name, ipv4(spec.ip), (member, done) => {
    const m = lb.member(member);
    hop!.probe(m.ip, hop!.probePort.get(member) ?? m.port, probeTimeout, done);
  });
  hop = new LoadBalancerHop(world.ctx, world.network, lb, world.tcp, world.udp, settings.xff);
  for (const prefix of spec.returnRoutes) {
    const block = cidr(prefix);
    hop.returnRoutes.push(block);
    for (const host of world.hosts) host.routing.main.add({ dst: block, type: 'unicast', dev: 'eth0', via: lb.selfIp });
  }
  const pool = {
    monitor: { intervalSeconds: settings.monitorIntervalS, timeoutSeconds: settings.monitorTimeoutS },
    probeTimeoutSeconds: toSeconds(probeTimeout),
    unknownReceivesTraffic: settings.unknownReceivesTraffic,
    activation: settings.activation,
  };
  const syncs: (() => void)[] = [];
  const nodeSyncs: (() => void)[] = [];
  const recreates: (() => void)[] = [];
  for (const v of spec.virtualServers) {
    const service = world.services.get(v.service)!;
    const vs = lb.addVirtualServer({ name: v.name, vip: ipv4(v.vip), port: v.port, snat: settings.snat ? 'automap' : 'none', pool });
    hop.serve(ipv4(v.vip));
    const desired = (): MemberSpec[] =>
      v.members === 'nodes'
        ? world.hosts.filter((h) => h.inCluster && (v.memberNodes === undefined || v.memberNodes.includes(h.name))).map((h) => ({ kind: 'node', ip: h.ip, port: service.nodePort! }))
        : service.slice.endpoints.filter((e) => e.ready).map((e) => ({ kind: 'pod', ip: e.ip, port: e.port, reach: 'routed' }));
    const sync = () => {
      lb.syncMembers(vs, desired());
      if (service.healthCheckNodePort === undefined || v.members !== 'nodes') return;
      for (const id of lb.members(vs)) hop!.probePort.set(id, service.healthCheckNodePort);
    };
    // CIS follows a Service's endpoints as they change (cluster mode), and the node list on its poll (nodesChanged).
    if (v.members === 'pods') world.workloads.watchSlices((changed) => changed === service && sync());
    else nodeSyncs.push(sync);
    recreates.push(() => {
      for (const id of [...lb.members(vs)]) lb.removeMember(id);
      sync();
    });
    // The starting state is what the monitor would have settled on: members that can serve are up, others down.
    const canServe = (ip: number): boolean =>
      v.members === 'pods' || service.externalTrafficPolicy === 'Cluster' || service.slice.endpoints.some((e) => e.ready && world.hosts[e.node]!.ip === ip);
    syncs.push(() => {
      sync();
      for (const id of lb.members(vs)) {
        if (canServe(lb.member(id).ip)) lb.markHealthy(id);
        else lb.markDown(id);
      }
    });
  }
  return {
    hop,
    start: () => {
      for (const sync of syncs) sync();
    },
    syncNodes: () => {
      for (const sync of nodeSyncs) sync();
    },
    recreate: () => {
      for (const recreate of recreates) recreate();
    },
  };
}
