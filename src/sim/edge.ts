import type { HttpClients } from './apps/http-client';
import { millis, seconds, toSeconds } from './core/time';
import { Bgp } from './infra/bgp';
import { ExternalHost } from './infra/external-host';
import { toElement } from './infra/fabric';
import type { MemberSpec } from './infra/lb-pool';
import { LoadBalancer } from './infra/load-balancer';
import { LoadBalancerHop } from './infra/load-balancer-hop';
import { Router } from './infra/router';
import { RouterHop } from './infra/router-hop';
import { MetalLb } from './k8s/metallb';
import { ipv4, type Ipv4 } from './net/ipv4';
import type { Scenario } from './scenario/schema';
import type { World } from './world';

/**
 * What sits in front of the cluster: routers with MetalLB's BGP announcements for LoadBalancer IPs, F5-style load
 * balancers whose pools follow Services, and clients on the internet. Returns what to start once pods run.
 */
export function setUpEdge(world: World, scenario: Scenario, clients: HttpClients): () => void {
  const { topology, params } = scenario;
  const routers = new Map<string, RouterHop>();
  for (const r of topology.routers) {
    const router = new Router(world.ctx, r.name, { ecmpMode: r.ecmp });
    routers.set(r.name, new RouterHop(world.network, router, ipv4(r.ip)));
  }
  const starts: (() => void)[] = [];
  if (topology.bgp) {
    const hop = routers.get(topology.bgp.router)!;
    const speakerNames = topology.bgp.speakers ?? topology.nodes.map((n) => n.name);
    const speakers = world.hosts.filter((h) => speakerNames.includes(h.name));
    const announced = [...world.services.values()].filter((s) => s.type === 'LoadBalancer' && s.loadBalancerIp !== undefined);
    const bgp = new Bgp(world.ctx, { convergenceDelay: millis(params.bgp.convergenceMs) });
    const metallb = new MetalLb(bgp, hop.router, speakers, announced);
    for (const service of announced) world.network.fabric.addBlock({ base: service.loadBalancerIp! as Ipv4, prefix: 32 }, toElement(hop.element));
    world.workloads.watchSlices((service) => metallb.refresh(service));
    starts.push(() => metallb.start());
  }
  for (const spec of topology.loadBalancers) starts.push(setUpLoadBalancer(world, spec, params.lb));
  for (const c of topology.externalClients) {
    const host = new ExternalHost(world.network, `external/${c.name}`, ipv4(c.ip), world.tcp, world.udp);
    world.addExternal(host);
    const client = clients.create({ entity: host.entity, name: c.name, tcp: host.tcp }, { name: `${c.targetIp}:${c.targetPort}`, ip: ipv4(c.targetIp), port: c.targetPort });
    starts.push(() => client.start());
  }
  return () => {
    for (const start of starts) start();
  };
}

/** An F5-style box: its pools are the Service's node ports (one member per node) or its ready pods. */
function setUpLoadBalancer(world: World, spec: Scenario['topology']['loadBalancers'][number], settings: Scenario['params']['lb']): () => void {
  let hop: LoadBalancerHop | null = null;
  const probeTimeout = seconds(Math.min(settings.monitorIntervalS, settings.monitorTimeoutS));
  const lb = new LoadBalancer(world.ctx, spec.name, ipv4(spec.ip), (member, done) => {
    const m = lb.member(member);
    hop!.probe(m.ip, hop!.probePort.get(member) ?? m.port, probeTimeout, done);
  });
  hop = new LoadBalancerHop(world.ctx, world.network, lb, world.tcp, world.udp, settings.insertXff);
  const pool = {
    monitor: { intervalSeconds: settings.monitorIntervalS, timeoutSeconds: settings.monitorTimeoutS },
    probeTimeoutSeconds: toSeconds(probeTimeout),
    unknownReceivesTraffic: settings.unknownReceivesTraffic,
    activation: settings.activation,
  };
  const syncs: (() => void)[] = [];
  for (const v of spec.virtualServers) {
    const service = world.services.get(v.service)!;
    const vs = lb.addVirtualServer({ name: v.name, vip: ipv4(v.vip), port: v.port, snat: settings.snat ? 'automap' : 'none', pool });
    hop.serve(ipv4(v.vip));
    const desired = (): MemberSpec[] =>
      v.members === 'nodes'
        ? world.hosts.map((h) => ({ kind: 'node', ip: h.ip, port: service.nodePort! }))
        : service.slice.endpoints.filter((e) => e.ready).map((e) => ({ kind: 'pod', ip: e.ip, port: e.port, reach: 'routed' }));
    const sync = () => {
      lb.syncMembers(vs, desired());
      if (service.healthCheckNodePort === undefined || v.members !== 'nodes') return;
      for (const id of lb.members(vs)) hop!.probePort.set(id, service.healthCheckNodePort);
    };
    // CIS follows a Service's endpoints as they change (cluster mode); node lists are static in this model.
    if (v.members === 'pods') world.workloads.watchSlices((changed) => changed === service && sync());
    // The starting state is what the monitor would have settled on: members that can serve are up, others down.
    const canServe = (ip: number): boolean =>
      v.members === 'pods' ||
      service.externalTrafficPolicy === 'Cluster' ||
      service.slice.endpoints.some((e) => e.ready && world.hosts[e.node]!.ip === ip);
    syncs.push(() => {
      sync();
      for (const id of lb.members(vs)) {
        if (canServe(lb.member(id).ip)) lb.markHealthy(id);
        else lb.markDown(id);
      }
    });
  }
  return () => {
    for (const sync of syncs) sync();
  };
}

