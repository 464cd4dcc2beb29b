import { DNS_TARGET_ENTITIES, isResolver } from './world-dns';
import type { ExternalView, LbMemberView, LiveView, LoadBalancerView, RouterView, TopologyView } from './api';
import type { DropSite } from './infra/network';
import { ExternalHost } from './infra/external-host';
import { LoadBalancerHop } from './infra/load-balancer-hop';
import { RouterHop } from './infra/router-hop';
import { NOWHERE } from './infra/fabric';
import { formatCidr, formatIpv4 } from './net/ipv4';
import { DROP_REASON_IDS } from './report/drop-reasons';
import type { Mesh } from './discovery/mesh';
import type { DnsSystem } from './dns/dns-system';
import type { Edge } from './edge';
import type { KubeProxy } from './k8s/kube-proxy';
import type { WorldCore } from './world-core';

/** What the pictures read of a world besides its core: DNS, the edge, kube-proxy's state and the mesh. */
export interface PicturedWorld extends WorldCore {
  readonly dns: DnsSystem | null;
  readonly edge: Edge;
  readonly kubeProxy: KubeProxy;
  readonly mesh: Mesh | null;
  readonly steps: StepCounts;
}

/** Plain-data pictures of a World for the UI: its structure (sent when it changes) and its live numbers (every frame). */

/** Drop sites in the order `TopologyView.sites` names them: nodes, packet elements, instances, the fabric. */
function dropSites(world: PicturedWorld): DropSite[] {
  const instances = world.hosts.flatMap((h) => (h.hypervisor ? [h.hypervisor] : []));
  return [...world.hosts, ...world.network.elements, ...instances, world.network.fabricDropSite];
}

function externalKind(entity: string): ExternalView['kind'] {
  return isResolver(entity) ? 'resolver' : 'client';
}

export function topologyView(world: PicturedWorld, version: number): TopologyView {
  const nodeLocal = world.dns?.nodeLocal ?? null;
  const routers: RouterView[] = [];
  const loadBalancers: LoadBalancerView[] = [];
  const externals: ExternalView[] = [];
  for (const element of world.network.elements) {
    if (element instanceof RouterHop) {
      const r = element.router;
      routers.push({ name: r.name, entity: r.entity, ip: formatIpv4(element.ip), ecmp: r.ecmpMode, hashSeed: r.hashSeed });
    } else if (element instanceof LoadBalancerHop) {
      loadBalancers.push({ name: element.lb.name, entity: element.lb.entity, ip: formatIpv4(element.lb.selfIp) });
    } else if (element instanceof ExternalHost) {
      externals.push({ entity: element.entity, name: element.entity.slice(element.entity.indexOf('/') + 1), ip: formatIpv4(element.ip), kind: externalKind(element.entity) });
    }
  }
  if (world.dns) externals.push({ entity: world.dns.provider.entity, name: world.dns.provider.entity.split('/')[1]!, ip: null, kind: 'dns-provider' });
  if (world.mesh) externals.push({ entity: world.mesh.zk.entity, name: 'ensemble', ip: null, kind: 'zookeeper' });

  return {
    version,
    dnsTargets: world.dns ? DNS_TARGET_ENTITIES : {},
    nodes: world.hosts.map((h) => ({
      index: h.index,
      name: h.name,
      ip: formatIpv4(h.ip),
      podCidr: formatCidr(h.podCidr),
      platform: h.platform,
      rpFilter: h.rpFilterAll,
      interfaces: h.ifaces
        .filter((i) => i.kind !== 'veth')
        .map((i) => ({ name: i.name, kind: i.kind as 'primary' | 'secondary' | 'tunnel', ip: i.hasAddress ? formatIpv4(i.primaryAddress) : null, rpFilter: i.rpFilter })),
      conntrackMax: h.conntrack.max,
      instance: h.hypervisor ? { entity: h.hypervisor.entity, allowance: h.hypervisor.allowance } : null,
      dnsMaxConcurrent: nodeLocal && nodeLocal.inFlightOn(h.name) >= 0 ? nodeLocal.maxConcurrent : null,
      schedulable: h.schedulable,
      inCluster: h.inCluster,
      powered: h.powered,
      uplinkUp: h.uplinkUp,
      labels: h.labels,
      rack: h.rack,
      room: h.room,
    })),
    pods: world.workloads.pods
      .filter((p) => p.shown)
      .map((p) => ({
        index: p.index,
        name: p.name,
        node: p.host.name,
        ip: formatIpv4(p.ip),
        deployment: p.deployment,
        phase: p.phase,
        ready: p.ready,
        ipAttached: p.phase === 'gone' && p.ip !== 0 && world.network.fabric.holder(p.ip) !== NOWHERE,
      })),
    services: [...world.services.values()].map((s) => ({
      name: s.name,
      clusterIp: formatIpv4(s.clusterIp),
      port: s.port,
      selector: s.selector,
      endpoints: s.slice.endpoints.filter((e) => e.ready).map((e) => world.workloads.pods[e.pod]!.name),
    })),
    routers,
    loadBalancers,
    externals,
    sites: dropSites(world).map((s) => s.entity),
  };
}

export function liveView(world: PicturedWorld): LiveView {
  const hosts = world.hosts;
  const nodeLocal = world.dns?.nodeLocal ?? null;
  const conntrackUsed = new Float64Array(hosts.length);
  const instanceTracked = new Float64Array(hosts.length);
  const dnsInFlight = new Float64Array(hosts.length);
  const kubeProxyPending = new Float64Array(hosts.length);
  const kubeProxySyncing = new Uint8Array(hosts.length);
  for (const h of hosts) {
    kubeProxyPending[h.index] = world.kubeProxy.pendingChanges(h.index);
    kubeProxySyncing[h.index] = world.kubeProxy.syncing(h.index) ? 1 : 0;
    conntrackUsed[h.index] = h.conntrack.size;
    instanceTracked[h.index] = h.hypervisor ? h.hypervisor.table.size : -1;
    dnsInFlight[h.index] = nodeLocal ? nodeLocal.inFlightOn(h.name) : -1;
  }
  const members: LbMemberView[] = [];
  const routes: LiveView['routes'] = [];
  for (const element of world.network.elements) {
    if (element instanceof LoadBalancerHop) {
      const lb = element.lb;
      for (let vs = 0; vs < lb.virtualServerCount; vs++) {
        for (const id of lb.members(vs)) {
          const m = lb.member(id);
          if (m.removed) continue;
          members.push({ lb: lb.entity, virtualServer: lb.virtualServerName(vs), ip: formatIpv4(m.ip), port: m.port, kind: m.kind, health: m.health });
        }
      }
    } else if (element instanceof RouterHop) {
      for (const r of element.router.multipathRoutes()) routes.push({ router: element.entity, prefix: r.prefix, nextHops: r.hops.map(formatIpv4) });
    }
  }
  const bgpSessions = (world.edge.metallb?.sessions() ?? []).map((s) => ({ router: s.router, node: s.speaker, up: s.up, routes: s.routes }));
  return {
    conntrackUsed,
    instanceTracked,
    dnsInFlight,
    members,
    routes,
    bgpSessions,
    kubeProxyPending,
    kubeProxySyncing,
    traffic: world.steps.traffic,
    drops: world.steps.drops,
    reasons: DROP_REASON_IDS,
    step: { end: world.steps.end, seconds: world.steps.seconds },
  };
}

/**
 * Drops by site and traffic between sites during the last metrics step, taken when the metrics sample: so every rate
 * the picture shows is the charts' latest point, and falls to zero in the step after drops stop.
 */
export class StepCounts {
  /** Simulated time the step ended (µs); 0 before the first. */
  end = 0;
  seconds = 0;
  /** Drops during the step by site and reason: drops[site * reasons + r], sites in `dropSites` order. */
  drops = new Float64Array(0);
  /** Quads of from site, to site, packets and first SYNs during the step. */
  traffic = new Float64Array(0);
  private readonly dropsBefore = new Map<DropSite, Float64Array>();
  private readonly trafficBefore = new Map<number, [packets: number, syns: number]>();

  sample(world: PicturedWorld, now: number): void {
    const sites = dropSites(world);
    const reasons = DROP_REASON_IDS.length;
    const drops = new Float64Array(sites.length * reasons);
    sites.forEach((site, i) => {
      const counts = world.network.dropsAtSite(site);
      if (!counts) return;
      const before = this.dropsBefore.get(site);
      for (let r = 0; r < reasons; r++) drops[i * reasons + r] = counts[r]! - (before?.[r] ?? 0);
      this.dropsBefore.set(site, Float64Array.from(counts));
    });
    const quads = world.network.trafficQuads();
    const traffic: number[] = [];
    for (let i = 0; i + 3 < quads.length; i += 4) {
      const key = quads[i]! * 65536 + quads[i + 1]!;
      const [packets, syns] = this.trafficBefore.get(key) ?? [0, 0];
      if (quads[i + 2]! > packets) traffic.push(quads[i]!, quads[i + 1]!, quads[i + 2]! - packets, quads[i + 3]! - syns);
      this.trafficBefore.set(key, [quads[i + 2]!, quads[i + 3]!]);
    }
    this.seconds = (now - this.end) / 1e6;
    this.end = now;
    this.drops = drops;
    this.traffic = Float64Array.from(traffic);
  }
}
