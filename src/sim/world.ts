import type { ConnStateId, TopologyView } from './api';
import { millis, seconds, toSeconds } from './core/time';
import { ConnState } from './api';
import { HttpClients } from './apps/http-client';
import { HttpServers } from './apps/http-server';
import type { SimContext } from './context';
import { Host } from './infra/host';
import { hostNamespace, Network } from './infra/network';
import { Cni } from './infra/cni';
import { Hypervisor } from './infra/hypervisor';
import type { Pod } from './infra/pod';
import type { Gauge } from './core/metrics';
import { kubeProxyConntrackMax } from './net/conntrack';
import { cidr, formatCidr, formatIpv4, ipv4 } from './net/ipv4';
import { Tcp, TcpStack, TcpState } from './net/tcp';
import { Udp, UdpStack } from './net/udp';
import { KubeProxy } from './k8s/kube-proxy';
import { DnsClients } from './apps/dns-client';
import { DnsSystem } from './dns/dns-system';
import { ExternalDns, EXTERNAL_DNS_DEFAULTS, type DesiredRecord } from './dns/external-dns';
import { CLUSTER_DOMAIN, serviceDnsName } from './dns/cluster-dns';
import { inZone } from './dns/message';
import type { NamespaceStacks } from './dns/packet-transport';
import { DNS_PORT } from './dns/transport';
import { ExternalHost } from './infra/external-host';
import { Proto } from './net/packet';
import { Bgp } from './infra/bgp';
import { toElement } from './infra/fabric';
import { LoadBalancer } from './infra/load-balancer';
import { LoadBalancerHop } from './infra/load-balancer-hop';
import type { MemberSpec } from './infra/lb-pool';
import { Router } from './infra/router';
import { RouterHop } from './infra/router-hop';
import { serveHealthChecks } from './k8s/health-check-server';
import { MetalLb } from './k8s/metallb';
import type { Ipv4 } from './net/ipv4';

// Model choice: every workload of a scenario lives in one namespace.
const NAMESPACE = 'default';
import { DROP_REASON_IDS } from './report/drop-reasons';
import type { Scenario } from './scenario/schema';
import { Service, ServiceDirectory } from './k8s/service';
import { Workloads } from './k8s/workloads';

/** Everything a scenario's topology turns into, wired together. */
export class World {
  readonly hosts: Host[];
  readonly services = new Map<string, Service>();
  readonly directory = new ServiceDirectory();
  readonly tcp: Tcp;
  readonly udp: Udp;
  readonly network: Network;
  private readonly conntrackUsed: Gauge[];
  private readonly externals = new Map<number, ExternalHost>();
  private externalDns: ExternalDns | null = null;
  readonly dns: DnsSystem | null;
  readonly workloads: Workloads;
  readonly kubeProxy: KubeProxy;
  private topologyVersion = 0;

  constructor(
    readonly ctx: SimContext,
    scenario: Scenario,
  ) {
    const { topology, params } = scenario;
    const conntrackMax = params.node.conntrackMax ?? kubeProxyConntrackMax(params.node.cores);
    this.hosts = topology.nodes.map((n, index) => {
      const host = new Host({
        index,
        name: n.name,
        ip: ipv4(n.ip),
        podCidr: cidr(n.podCidr),
        platform: n.platform,
        rpFilterAll: params.node.rpFilter,
        conntrackMax,
        dropReasonCount: DROP_REASON_IDS.length,
      });
      if (n.platform === 'cloud') {
        const allowance = Math.round(params.instance.conntrackAllowance * n.size);
        const settings = { ...params.instance, conntrackAllowance: allowance, ppsAllowance: params.instance.ppsAllowance * n.size };
        host.hypervisor = new Hypervisor(n.name, settings, ctx.metrics, DROP_REASON_IDS.length);
      }
      return host;
    });
    this.tcp = new Tcp(ctx);
    this.udp = new Udp(ctx);
    for (const host of this.hosts) {
      host.tcp = new TcpStack(this.tcp, host.ip, hostNamespace(host.index));
      host.udp = new UdpStack(this.udp, host.ip, hostNamespace(host.index));
    }
    const pods: Pod[] = [];
    const kp = params.kubeProxy;
    this.kubeProxy = new KubeProxy(ctx, this.hosts, {
      minSyncPeriod: millis(kp.minSyncPeriodMs),
      syncPeriod: seconds(kp.syncPeriodS),
      restore: kp.restore,
      syncCostPerRuleUs: kp.syncCostPerRuleUs,
    });
    this.network = new Network(ctx, this.hosts, pods, this.kubeProxy.rules, this.tcp, this.udp);
    const cni = new Cni(ctx, this.hosts, pods, this.network.fabric);
    for (const host of this.hosts) cni.setUpHost(host);
    this.workloads = new Workloads(ctx, this.hosts, this.tcp, this.udp, cni, pods, this.kubeProxy);
    const servers = new HttpServers(ctx, this.tcp);
    const clients = new HttpClients(ctx, this.tcp);
    this.conntrackUsed = this.hosts.map((h) => ctx.metrics.gauge('node.conntrack.used', { node: h.name }));

    const dns = (this.dns = topology.dns ? this.setUpDns(topology.dns) : null);
    for (const [name, svc] of Object.entries(topology.services)) {
      const backend = topology.deployments[svc.selector]!;
      const service = new Service(name, ipv4(svc.clusterIp), svc.port, svc.selector, backend.port, {
        type: svc.type,
        nodePort: svc.nodePort,
        loadBalancerIp: svc.loadBalancerIp === undefined ? undefined : ipv4(svc.loadBalancerIp),
        externalTrafficPolicy: svc.externalTrafficPolicy,
      });
      this.addService(service);
    }
    const dnsClients = dns ? new DnsClients(ctx, dns) : null;
    for (const [name, dep] of Object.entries(topology.deployments)) {
      const spec = { name, replicas: dep.replicas, port: dep.port };
      if (dep.app === 'http-server') this.workloads.addDeployment(spec, (pod) => servers.create(pod, dep.port));
      else if (dep.app === 'dns-client') this.workloads.addDeployment(spec, (pod) => dnsClients!.create(pod, dep.lookup!));
      else {
        const service = this.services.get(dep.target!)!;
        const target = { name: service.name, ip: service.clusterIp, port: service.port };
        this.workloads.addDeployment(spec, (pod) => clients.create(pod, target));
      }
    }
    const startEdge = this.setUpEdge(scenario, clients);
    this.workloads.reserveNames(topology.nodes.flatMap((n) => n.pods.map((p) => p.name)));
    topology.nodes.forEach((node, i) => {
      for (const pod of node.pods) {
        this.workloads.createPod(pod.deployment, this.hosts[i]!, pod.name, pod.ip === undefined ? undefined : ipv4(pod.ip));
      }
    });
    this.workloads.startSteadyState();
    startEdge();
    this.externalDns?.start();
  }

  private addService(service: Service): void {
    this.services.set(service.name, service);
    this.directory.add(service);
    const index = this.workloads.addService(service);
    serveHealthChecks(this.hosts, this.kubeProxy, service, index);
  }

  /**
   * What sits in front of the cluster: routers with MetalLB's BGP announcements for LoadBalancer IPs, F5-style load
   * balancers whose pools follow Services, and clients on the internet. Returns what to start once pods run.
   */
  private setUpEdge(scenario: Scenario, clients: HttpClients): () => void {
    const { topology, params } = scenario;
    const routers = new Map<string, RouterHop>();
    for (const r of topology.routers) {
      const router = new Router(this.ctx, r.name, { ecmpMode: r.ecmp });
      routers.set(r.name, new RouterHop(this.network, router, ipv4(r.ip)));
    }
    const starts: (() => void)[] = [];
    if (topology.bgp) {
      const hop = routers.get(topology.bgp.router)!;
      const speakerNames = topology.bgp.speakers ?? topology.nodes.map((n) => n.name);
      const speakers = this.hosts.filter((h) => speakerNames.includes(h.name));
      const announced = [...this.services.values()].filter((s) => s.type === 'LoadBalancer' && s.loadBalancerIp !== undefined);
      const bgp = new Bgp(this.ctx, { convergenceDelay: millis(params.bgp.convergenceMs) });
      const metallb = new MetalLb(bgp, hop.router, speakers, announced);
      for (const service of announced) this.network.fabric.addBlock({ base: service.loadBalancerIp! as Ipv4, prefix: 32 }, toElement(hop.element));
      this.workloads.watchSlices((service) => metallb.refresh(service));
      starts.push(() => metallb.start());
    }
    for (const spec of topology.loadBalancers) starts.push(this.setUpLoadBalancer(spec, params.lb));
    for (const c of topology.externalClients) {
      const host = new ExternalHost(this.network, `external/${c.name}`, ipv4(c.ip), this.tcp, this.udp);
      this.externals.set(host.ns, host);
      const client = clients.create({ entity: host.entity, name: c.name, tcp: host.tcp }, { name: `${c.targetIp}:${c.targetPort}`, ip: ipv4(c.targetIp), port: c.targetPort });
      starts.push(() => client.start());
    }
    return () => {
      for (const start of starts) start();
    };
  }

  /** An F5-style box: its pools are the Service's node ports (one member per node) or its ready pods. */
  private setUpLoadBalancer(spec: Scenario['topology']['loadBalancers'][number], settings: Scenario['params']['lb']): () => void {
    let hop: LoadBalancerHop | null = null;
    const probeTimeout = seconds(Math.min(settings.monitorIntervalS, settings.monitorTimeoutS));
    const lb = new LoadBalancer(this.ctx, spec.name, ipv4(spec.ip), (member, done) => {
      const m = lb.member(member);
      hop!.probe(m.ip, hop!.probePort.get(member) ?? m.port, probeTimeout, done);
    });
    hop = new LoadBalancerHop(this.ctx, this.network, lb, this.tcp, this.udp, settings.insertXff);
    const pool = {
      monitor: { intervalSeconds: settings.monitorIntervalS, timeoutSeconds: settings.monitorTimeoutS },
      probeTimeoutSeconds: toSeconds(probeTimeout),
      unknownReceivesTraffic: settings.unknownReceivesTraffic,
      activation: settings.activation,
    };
    const syncs: (() => void)[] = [];
    for (const v of spec.virtualServers) {
      const service = this.services.get(v.service)!;
      const vs = lb.addVirtualServer({ name: v.name, vip: ipv4(v.vip), port: v.port, snat: settings.snat ? 'automap' : 'none', pool });
      hop.serve(ipv4(v.vip));
      const desired = (): MemberSpec[] =>
        v.members === 'nodes'
          ? this.hosts.map((h) => ({ kind: 'node', ip: h.ip, port: service.nodePort! }))
          : service.slice.endpoints.filter((e) => e.ready).map((e) => ({ kind: 'pod', ip: e.ip, port: e.port, reach: 'routed' }));
      const sync = () => {
        lb.syncMembers(vs, desired());
        if (service.healthCheckNodePort === undefined || v.members !== 'nodes') return;
        for (const id of lb.members(vs)) hop!.probePort.set(id, service.healthCheckNodePort);
      };
      // CIS follows a Service's endpoints as they change (cluster mode); node lists are static in this model.
      if (v.members === 'pods') this.workloads.watchSlices((changed) => changed === service && sync());
      // The starting state is what the monitor would have settled on: members that can serve are up, others down.
      const canServe = (ip: number): boolean =>
        v.members === 'pods' ||
        service.externalTrafficPolicy === 'Cluster' ||
        service.slice.endpoints.some((e) => e.ready && this.hosts[e.node]!.ip === ip);
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

  /** The sockets of a namespace: a pod, a node's host namespace, or an external machine. */
  private stacksOf(ns: number): NamespaceStacks {
    if (ns >= 0) return this.workloads.pods[ns]!;
    const host = this.hosts[-1 - ns];
    if (host) return host;
    const external = this.externals.get(ns);
    if (!external) throw new Error(`no network namespace ${ns}`);
    return external;
  }

  /** CoreDNS replicas behind kube-dns (UDP) and kube-dns-upstream (TCP), the cloud resolver, node-local DNS if asked. */
  private setUpDns(config: NonNullable<Scenario['topology']['dns']>): DnsSystem {
    const resolver = new ExternalHost(this.network, 'external/dns-resolver', ipv4(config.resolverIp), this.tcp, this.udp);
    this.externals.set(resolver.ns, resolver);
    const clusterIp = ipv4(config.clusterIp);
    const records = (name: string): readonly number[] | null => {
      for (const service of this.services.values()) if (name === serviceDnsName(service.name, NAMESPACE)) return [service.clusterIp];
      return inZone(name, CLUSTER_DOMAIN) ? null : [];
    };
    const dns = new DnsSystem(this.ctx, (ns) => this.stacksOf(ns), this.hosts, records, {
      clusterIp,
      upstreamClusterIp: ipv4(config.upstreamClusterIp),
      nodeLocal: config.nodeLocal,
      resolver,
      records: Object.fromEntries(Object.entries(config.records).map(([name, ips]) => [name, ips.map(ipv4)])),
      recordTtl: config.recordTtl,
      namespace: NAMESPACE,
    });
    this.workloads.addDeployment({ name: 'coredns', replicas: config.replicas, port: DNS_PORT }, (pod) => dns.clusterDnsApp(pod));
    this.addService(new Service('kube-dns', clusterIp, DNS_PORT, 'coredns', DNS_PORT, { proto: Proto.udp }));
    this.addService(new Service('kube-dns-upstream', ipv4(config.upstreamClusterIp), DNS_PORT, 'coredns', DNS_PORT));
    if (config.externalDns) this.externalDns = this.setUpExternalDns(dns, config.externalDns);
    return dns;
  }

  /** external-dns keeps the provider's record for a hostname equal to a deployment's running pods' addresses. */
  private setUpExternalDns(dns: DnsSystem, config: NonNullable<NonNullable<Scenario['topology']['dns']>['externalDns']>): ExternalDns {
    const source = (): DesiredRecord[] => {
      const targets = this.workloads.pods
        .filter((p) => p.deployment === config.deployment && p.ready && (p.phase === 'running' || p.phase === 'terminating'))
        .map((p) => ({ ip: p.ip, terminating: p.phase === 'terminating' }));
      return [{ name: config.hostname, targets }];
    };
    const controller = new ExternalDns(this.ctx, dns.provider, source, {
      ...EXTERNAL_DNS_DEFAULTS,
      interval: seconds(config.intervalS),
      events: config.events,
      removeOnTerminating: config.removeOnTerminating,
    });
    this.workloads.watchSlices((service) => service.selector === config.deployment && controller.notify());
    return controller;
  }

  /** Once a metrics step: gauges of tables, and the bounded sweep that expires their old entries. */
  sample(): void {
    const now = this.ctx.sched.now;
    for (const host of this.hosts) {
      host.conntrack.sweep(now, 4096);
      this.conntrackUsed[host.index]!.set(host.conntrack.size);
      host.hypervisor?.sample(now);
    }
  }

  get version(): number {
    return this.topologyVersion;
  }

  touch(): void {
    this.topologyVersion++;
  }

  topology(): TopologyView {
    return {
      version: this.topologyVersion,
      nodes: this.hosts.map((h) => ({ index: h.index, name: h.name, ip: formatIpv4(h.ip), podCidr: formatCidr(h.podCidr) })),
      pods: this.workloads.pods
        .filter((p) => p.shown)
        .map((p) => ({
          index: p.index,
          name: p.name,
          node: p.host.name,
          ip: formatIpv4(p.ip),
          deployment: p.deployment,
          phase: p.phase,
          ready: p.ready,
        })),
      services: [...this.services.values()].map((s) => ({
        name: s.name,
        clusterIp: formatIpv4(s.clusterIp),
        port: s.port,
        selector: s.selector,
        endpoints: s.slice.endpoints.filter((e) => e.ready).map((e) => this.workloads.pods[e.pod]!.name),
      })),
    };
  }

  /** Client-side connections with a known backend, as (client pod, backend pod, state) triples. */
  connections(): Int32Array {
    const out: number[] = [];
    for (const socket of this.tcp.sockets.values()) {
      if (socket.backendPod < 0) continue;
      let state: ConnStateId;
      if (socket.state === TcpState.synSent) state = ConnState.connecting;
      else if (socket.state === TcpState.established) state = ConnState.established;
      else state = ConnState.closing;
      out.push(socket.stack.ns, socket.backendPod, state);
    }
    return Int32Array.from(out);
  }
}
