import type { HttpClient, HttpClients } from './apps/http-client';
import { bound } from './core/snapshot';
import type { HandlerId } from './core/scheduler';
import { seconds, toSeconds, type Duration, type SimTime } from './core/time';
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
import type { Service } from './k8s/service';
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

/** Something the edge starts once pods run. */
interface Starts {
  start(): void;
}

export class EdgeParts implements Edge {
  readonly routers = new Map<string, RouterHop>();
  readonly loadBalancers = new Map<string, LoadBalancerHop>();
  readonly externalClients = new Map<string, ExternalClient>();
  metallb: MetalLb | null = null;
  readonly boxes = new Map<string, F5Box>();
  readonly starts: Starts[] = [];
  private pollPending = false;
  private readonly nodePoll: HandlerId;

  constructor(private readonly world: WorldCore) {
    this.nodePoll = world.ctx.sched.register('cis.node-poll', bound(this, this.poll));
  }

  poll(): void {
    this.pollPending = false;
    for (const box of this.boxes.values()) box.syncNodes();
  }

  nodesChanged(): void {
    if (this.pollPending || this.boxes.size === 0) return;
    this.pollPending = true;
    // CIS polls the node list every 30 s from its start (docs/sources/load-balancers.md#container-ingress-services);
    // the change shows at the next poll.
    const { sched } = this.world.ctx;
    sched.at((Math.floor(sched.now / CIS_NODE_POLL_INTERVAL) * CIS_NODE_POLL_INTERVAL + CIS_NODE_POLL_INTERVAL) as SimTime, this.nodePoll);
  }

  recreatePools(lb: string): void {
    this.boxes.get(lb)?.recreate();
  }

  start(): void {
    for (const part of this.starts) part.start();
  }
}

/**
 * What sits in front of the cluster: routers with MetalLB's BGP announcements for LoadBalancer IPs, F5-style load
 * balancers whose pools follow Services, and clients on the internet. Returns the parts, which start once pods run.
 */
export function setUpEdge(world: WorldCore, scenario: Scenario, clients: HttpClients): Edge & Starts {
  const { topology, params } = scenario;
  const edge = new EdgeParts(world);
  for (const r of topology.routers) {
    const router = new Router(world.ctx, r.name, { ecmpMode: r.ecmp });
    edge.routers.set(r.name, new RouterHop(world.network, router, ipv4(r.ip)));
  }
  if (topology.bgp) {
    const hop = edge.routers.get(topology.bgp.router)!;
    const speakerNames = topology.bgp.speakers ?? topology.nodes.map((n) => n.name);
    // A node not yet joined starts its speaker when it joins.
    const speakers = world.hosts.filter((h) => speakerNames.includes(h.name) && h.inCluster);
    const announced = [...world.services.values()].filter((s) => s.type === 'LoadBalancer' && s.loadBalancerIp !== undefined);
    const bgp = new Bgp(world.ctx, bgpOptions(params.bgp));
    const metallb = new MetalLb(world.ctx, bgp, hop.router, speakers, announced);
    edge.metallb = metallb;
    for (const service of announced) world.network.fabric.addBlock({ base: service.loadBalancerIp! as Ipv4, prefix: 32 }, toElement(hop.element));
    world.workloads.watchSlices(bound(metallb, metallb.refresh));
    edge.starts.push(metallb);
  }
  for (const spec of topology.loadBalancers) {
    const box = new F5Box(world, spec, params.lb);
    edge.loadBalancers.set(spec.name, box.hop);
    edge.boxes.set(spec.name, box);
    edge.starts.push(box);
  }
  for (const c of topology.externalClients) {
    const host = new ExternalHost(world.network, `external/${c.name}`, ipv4(c.ip), world.tcp, world.udp);
    world.addExternal(host);
    const target = { name: `${c.targetIp}:${c.targetPort}`, ip: ipv4(c.targetIp), port: c.targetPort };
    const forwardedFor = c.forwardedFor === undefined ? null : parseForwardedFor(c.forwardedFor);
    const client = clients.create({ entity: host.entity, name: c.name, tcp: host.tcp }, target, { forwardedFor });
    edge.externalClients.set(c.name, { client, entity: host.entity, targetIp: target.ip });
    edge.starts.push(client);
  }
  return edge;
}

/** An F5-style box: its pools are the Service's node ports (one member per node) or its ready pods. */
export class F5Box {
  readonly lb: LoadBalancer;
  readonly hop: LoadBalancerHop;
  private readonly probeTimeout: Duration;
  private readonly servers: PoolSync[] = [];

  constructor(world: WorldCore, spec: Scenario['topology']['loadBalancers'][number], settings: Scenario['params']['lb']) {
    this.probeTimeout = seconds(Math.min(settings.monitorIntervalS, settings.monitorTimeoutS));
    const lb = (this.lb = new LoadBalancer(world.ctx, spec.name, ipv4(spec.ip), bound(this, this.probe)));
    const hop = (this.hop = new LoadBalancerHop(world.ctx, world.network, lb, world.tcp, world.udp, settings.xff));
    for (const prefix of spec.returnRoutes) {
      const block = cidr(prefix);
      hop.returnRoutes.push(block);
      for (const host of world.hosts) host.routing.main.add({ dst: block, type: 'unicast', dev: 'eth0', via: lb.selfIp });
    }
    const pool = {
      monitor: { intervalSeconds: settings.monitorIntervalS, timeoutSeconds: settings.monitorTimeoutS },
      probeTimeoutSeconds: toSeconds(this.probeTimeout),
      unknownReceivesTraffic: settings.unknownReceivesTraffic,
      activation: settings.activation,
    };
    for (const v of spec.virtualServers) {
      const vs = lb.addVirtualServer({ name: v.name, vip: ipv4(v.vip), port: v.port, snat: settings.snat ? 'automap' : 'none', pool });
      hop.serve(ipv4(v.vip));
      const server = new PoolSync(world, lb, hop, vs, v, world.services.get(v.service)!);
      // CIS follows a Service's endpoints as they change (cluster mode), and the node list on its poll (nodesChanged).
      if (v.members === 'pods') world.workloads.watchSlices(bound(server, server.slicesChanged));
      this.servers.push(server);
    }
  }

  probe(member: number, done: (ok: boolean) => void): void {
    const m = this.lb.member(member);
    this.hop.probe(m.ip, this.hop.probePort.get(member) ?? m.port, this.probeTimeout, done);
  }

  start(): void {
    for (const server of this.servers) server.settle();
  }

  syncNodes(): void {
    for (const server of this.servers) if (server.spec.members === 'nodes') server.sync();
  }

  /** Every pool emptied and filled again: each member new, unknown until probed. */
  recreate(): void {
    for (const server of this.servers) server.recreate();
  }
}

/** One virtual server's pool as CIS keeps it: the Service's nodes or its ready pods. */
export class PoolSync {
  constructor(
    private readonly world: WorldCore,
    private readonly lb: LoadBalancer,
    private readonly hop: LoadBalancerHop,
    private readonly vs: number,
    readonly spec: Scenario['topology']['loadBalancers'][number]['virtualServers'][number],
    private readonly service: Service,
  ) {}

  private desired(): MemberSpec[] {
    const { spec: v, service, world } = this;
    return v.members === 'nodes'
      ? world.hosts.filter((h) => h.inCluster && (v.memberNodes === undefined || v.memberNodes.includes(h.name))).map((h) => ({ kind: 'node', ip: h.ip, port: service.nodePort! }))
      : service.slice.endpoints.filter((e) => e.ready).map((e) => ({ kind: 'pod', ip: e.ip, port: e.port, reach: 'routed' }));
  }

  sync(): void {
    const { lb, vs, service } = this;
    lb.syncMembers(vs, this.desired());
    if (service.healthCheckNodePort === undefined || this.spec.members !== 'nodes') return;
    for (const id of lb.members(vs)) this.hop.probePort.set(id, service.healthCheckNodePort);
  }

  slicesChanged(changed: Service): void {
    if (changed === this.service) this.sync();
  }

  recreate(): void {
    for (const id of [...this.lb.members(this.vs)]) this.lb.removeMember(id);
    this.sync();
  }

  private canServe(ip: number): boolean {
    const { spec: v, service, world } = this;
    return v.members === 'pods' || service.externalTrafficPolicy === 'Cluster' || service.slice.endpoints.some((e) => e.ready && world.hosts[e.node]!.ip === ip);
  }

  /** The starting state is what the monitor would have settled on: members that can serve are up, others down. */
  settle(): void {
    this.sync();
    for (const id of this.lb.members(this.vs)) {
      if (this.canServe(this.lb.member(id).ip)) this.lb.markHealthy(id);
      else this.lb.markDown(id);
    }
  }
}
