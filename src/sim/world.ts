import { bound } from './core/snapshot';
import type { ConnStateId, LiveView, TopologyView, WhyChain } from './api';
import { liveView, StepCounts, topologyView, type PicturedWorld } from './world-view';
import { millis, seconds } from './core/time';
import { ConnState } from './api';
import { HttpClients } from './apps/http-client';
import { HttpServers } from './apps/http-server';
import { IngressProxies, type AddressKind } from './apps/ingress-proxy';
import type { SimContext } from './context';
import { Host } from './infra/host';
import { hostNamespace, Network } from './infra/network';
import { Cni, cniSettings } from './infra/cni';
import { Hypervisor } from './infra/hypervisor';
import type { Pod } from './infra/pod';
import type { Gauge } from './core/metrics';
import { kubeProxyConntrackMax } from './net/conntrack';
import { cidr, ipv4 } from './net/ipv4';
import { Tcp, TcpStack, TcpState } from './net/tcp';
import { Udp, UdpStack } from './net/udp';
import { KubeProxy } from './k8s/kube-proxy';
import { Autoscaler, hpaSettings } from './k8s/autoscaler';
import { DnsClients } from './apps/dns-client';
import { DnsSystem } from './dns/dns-system';
import type { NamespaceStacks } from './dns/packet-transport';
import type { ExternalHost } from './infra/external-host';
import { setUpEdge, type Edge } from './edge';
import { buildWhy, whyFor, type WhyWorld } from './report/why';
import { elementOf, hostOf, isElement, NOWHERE } from './infra/fabric';
import { setUpDns } from './world-dns';
import { serveHealthChecks } from './k8s/health-check-server';
import { DROP_REASON_IDS, DROP_REASONS, explainDrop, type DropReason } from './report/drop-reasons';
import type { Scenario } from './scenario/schema';
import { knobsOf, type ScenarioParams } from './scenario/params';
import { GrpcServers } from './apps/grpc-server';
import { describeReconnect, GrpcClients, type GrpcClientSettings } from './apps/grpc-client';
import { deployApp, PodTemplates, type Fleets } from './apps/catalog';
import { DialCohort } from './apps/grpc/dial-cohort';
import { Service, ServiceDirectory } from './k8s/service';
import { Workloads } from './k8s/workloads';
import { probeSettings } from './k8s/kubelet-probes';
import { nodeLabels } from './k8s/scheduling';
import { Mesh } from './discovery/mesh';

/** Everything a scenario's topology turns into, wired together. */
export class World implements PicturedWorld {
  readonly hosts: Host[];
  readonly services = new Map<string, Service>();
  readonly directory = new ServiceDirectory();
  readonly tcp: Tcp;
  readonly udp: Udp;
  readonly network: Network;
  private readonly conntrackUsed: Gauge[];
  private readonly externals = new Map<number, ExternalHost>();
  readonly dns: DnsSystem | null;
  private readonly templates = new PodTemplates();
  readonly workloads: Workloads;
  private readonly servers: HttpServers;
  readonly kubeProxy: KubeProxy;
  readonly cni: Cni;
  /** Routers, MetalLB and load balancers in front of the cluster. */
  readonly edge: Edge;
  /** Service discovery through ZooKeeper, when the topology has an ensemble. */
  readonly mesh: Mesh | null;
  readonly steps = new StepCounts();
  private topologyVersion = 0;
  /** The scenario's parameters, which the world hands each mechanism its part of as it builds it. */
  readonly params: ScenarioParams;
  /** The scenario's fixes, which a compare's run B may roll out while it runs (faults/roll-out-fix.ts). */
  readonly fixes: Scenario['fixes'];

  constructor(
    readonly ctx: SimContext,
    scenario: Scenario,
  ) {
    const { topology, params } = scenario;
    this.params = params;
    this.fixes = scenario.fixes;
    const conntrackMax = params.node.conntrackMax ?? kubeProxyConntrackMax(params.node.cores);
    this.hosts = topology.nodes.map((n, index) => {
      const host = new Host({
        index,
        name: n.name,
        ip: ipv4(n.ip),
        podCidr: cidr(n.podCidr),
        platform: n.platform,
        cpus: params.node.cores,
        rpFilterAll: params.node.rpFilter,
        conntrackMax,
        dropReasonCount: DROP_REASON_IDS.length,
      });
      host.inCluster = n.joined;
      host.labels = nodeLabels(n.name, n.labels);
      host.rack = n.rack ?? null;
      host.room = n.room ?? null;
      host.schedulable = n.joined;
      if (n.platform === 'cloud') {
        // However small the instance, its allowances hold one connection and pass one packet a second.
        const allowance = Math.max(1, Math.round(params.instance.conntrackAllowance * n.size));
        const settings = { ...params.instance, conntrackAllowance: allowance, ppsAllowance: Math.max(1, params.instance.ppsAllowance * n.size) };
        host.hypervisor = new Hypervisor(n.name, settings, ctx.metrics, DROP_REASON_IDS.length);
      }
      return host;
    });
    this.tcp = new Tcp(ctx, params.tcp);
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
      otherServices: kp.otherServices,
      otherEndpoints: kp.otherEndpoints,
    });
    this.network = new Network(ctx, this.hosts, pods, this.kubeProxy.rules, this.tcp, this.udp, params.network.hopLatencyUs);
    const cni = (this.cni = new Cni(ctx, this.hosts, pods, this.network.fabric, cniSettings(params)));
    for (const host of this.hosts) cni.setUpHost(host);
    this.workloads = new Workloads(ctx, this.hosts, this.tcp, this.udp, cni, pods, this.kubeProxy, params.kube);
    const servers = (this.servers = new HttpServers(ctx, this.tcp, bound(this, this.isInternal), { serviceTimeMs: params.server.serviceTimeMs, cpu: params.cpu }));
    const clients = new HttpClients(ctx, this.tcp, params.client);
    this.conntrackUsed = this.hosts.map((h) => ctx.metrics.gauge('node.conntrack.used', { node: h.name }));
    // What the instances cost, so a fix that doubles their size shows its price next to its effect.
    const sizes = topology.nodes.reduce((sum, n) => sum + (n.platform === 'cloud' ? n.size : 0), 0);
    ctx.metrics.gauge('cluster.cost_per_hour').set(sizes * params.instance.hourlyCost);

    const dns = topology.dns ? setUpDns(this, topology.dns, params) : null;
    this.dns = dns?.system ?? null;
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
    const dnsClients = this.dns ? new DnsClients(ctx, this.dns, params.dnsClient.lookupsPerSecond) : null;
    const mesh = (this.mesh = topology.zookeeper ? new Mesh(ctx, topology.zookeeper.servers, params) : null);
    const grpcServers = new GrpcServers(ctx, this.tcp, this.dns, params.server.serviceTimeMs);
    const cohort = params.engine.cohorts ? new DialCohort(ctx, this.tcp, this.network.flows) : null;
    const grpcClients = new GrpcClients(ctx, this.dns, bound(this.workloads, this.workloads.deletionTime), cohort);
    const fleets = new WorldFleets(this, params.client, servers, clients, dnsClients, mesh, grpcServers, grpcClients);
    for (const [name, dep] of Object.entries(topology.deployments)) {
      const knobs = knobsOf(params, name);
      const spec = {
        name,
        // A DaemonSet's count follows its nodes once the workloads reconcile it.
        replicas: knobs.replicas ?? dep.replicas ?? 0,
        port: dep.port,
        maxSurge: dep.maxSurge,
        maxUnavailable: dep.maxUnavailable,
        gracePeriodSeconds: knobs.gracePeriodS ?? dep.terminationGracePeriodSeconds,
        preStopSeconds: dep.preStopSeconds,
        readySeconds: dep.readySeconds,
        nodes: dep.nodes,
        perNode: dep.kind === 'DaemonSet',
        probes: { readiness: probeSettings(dep.readinessProbe, dep.port), liveness: probeSettings(dep.livenessProbe, dep.port) },
        placement: {
          required: dep.podAntiAffinity?.required ?? [],
          preferred: dep.podAntiAffinity?.preferred ?? [],
          spread: dep.topologySpreadConstraints,
        },
      };
      this.workloads.addDeployment(spec, deployApp(fleets, this.templates, name, dep, knobs));
    }
    const autoscalers = Object.entries(topology.deployments).flatMap(([name, dep]) =>
      'autoscale' in dep && dep.autoscale ? [new Autoscaler(ctx, this.workloads, name, dep.autoscale, hpaSettings(params.hpa), bound(ctx.requests, ctx.requests.served, name))] : [],
    );
    const edge = setUpEdge(this, scenario, clients);
    this.edge = edge;
    this.workloads.reserveNames(topology.nodes.flatMap((n) => n.pods.map((p) => p.name)));
    topology.nodes.forEach((node, i) => {
      for (const pod of node.pods) {
        this.workloads.createPod(pod.deployment, this.hosts[i]!, pod.name, pod.ip === undefined ? undefined : ipv4(pod.ip));
      }
    });
    this.workloads.startSteadyState();
    edge.start();
    for (const autoscaler of autoscalers) autoscaler.start();
    dns?.start();
  }

  /**
   * Sets a deployment's CPU limit (cores; 0 lifts it) in its pod template and, as an in-place resize does, in the
   * cgroups of its running pods.
   */
  setCpuLimit(deployment: string, cores: number): void {
    const work = this.templates.cpuWork.get(deployment);
    if (!work) throw new Error(`target: deployment "${deployment}" takes no CPU time per request (cpuPerRequestMs), so there is nothing to limit`);
    work.limitCores = cores > 0 ? cores : undefined;
    for (const pod of this.workloads.pods) if (pod.deployment === deployment && pod.app) this.servers.setCpuLimit(pod, work.limitCores);
  }

  /** A gRPC client deployment's pod-template settings, or undefined when it runs no gRPC client. */
  grpcClientSettings(deployment: string): Readonly<GrpcClientSettings> | undefined {
    return this.templates.grpcClients.get(deployment);
  }

  /** Changes a gRPC client deployment's pod template; pods created from now on run with it. */
  setGrpcClientSettings(deployment: string, change: Partial<GrpcClientSettings>): void {
    const current = this.templates.grpcClients.get(deployment);
    if (!current) throw new Error(`no gRPC client deployment named "${deployment}"`);
    this.templates.grpcClients.set(deployment, { ...current, ...change });
  }

  /** What holds an address: a node, a pod, a Service, a load balancer or router, or something outside (a client). */
  /** Whether an address belongs to the simulated data centre (a node, pod, load balancer or router). */
  isInternal(ip: number): boolean {
    return this.addressKind(ip) !== 'external';
  }

  addressKind(ip: number): AddressKind {
    for (const service of this.services.values()) if (service.clusterIp === ip || service.loadBalancerIp === ip) return 'service';
    const code = this.network.fabric.route(ip);
    if (code === NOWHERE) return 'external';
    if (isElement(code)) {
      const kind = this.network.elements[elementOf(code)]!.entity.split('/')[0];
      return kind === 'lb' || kind === 'router' ? kind : 'external';
    }
    const host = this.hosts[hostOf(code)]!;
    return host.pods.has(ip) ? 'pod' : 'node';
  }

  addService(service: Service): void {
    this.services.set(service.name, service);
    this.directory.add(service);
    const index = this.workloads.addService(service);
    serveHealthChecks(this.hosts, this.kubeProxy, service, index);
  }

  /** A machine outside the cluster whose sockets DNS and clients may use. */
  addExternal(host: ExternalHost): void {
    this.externals.set(host.ns, host);
  }

  /** The sockets of a namespace: a pod, a node's host namespace, or an external machine. */
  stacksOf(ns: number): NamespaceStacks {
    if (ns >= 0) return this.workloads.pods[ns]!;
    const host = this.hosts[-1 - ns];
    if (host) return host;
    const external = this.externals.get(ns);
    if (!external) throw new Error(`no network namespace ${ns}`);
    return external;
  }

  /** Causal chains for the run's main symptoms, from the facts its mechanisms recorded. */
  why(): WhyChain[] {
    return buildWhy(this.ctx.causes, this.whyWorld());
  }

  /** The chain behind one symptom (a drop reason or error kind) at an entity, or where it happened most. */
  whyOf(kind: string, entity?: string): WhyChain | null {
    return whyFor(this.ctx.causes, this.whyWorld(), kind, entity, (k) => (Object.hasOwn(DROP_REASONS, k) ? explainDrop(k as DropReason) : undefined));
  }

  /** What the chain builders ask of the world about addresses, pods and clients. */
  private whyWorld(): WhyWorld {
    return {
      podByIp: (ip) => {
        const pods = this.workloads.pods;
        for (let i = pods.length - 1; i >= 0; i--) {
          const pod = pods[i]!;
          if (pod.ip !== ip) continue;
          const deletedAt = this.workloads.deletionTime(ip);
          return { entity: pod.entity, gone: pod.phase === 'gone', ...(deletedAt === undefined ? {} : { deletedAt }) };
        }
        return undefined;
      },
      holderOf: (ip) => {
        const target = this.network.fabric.holder(ip);
        if (target < 0) return target === NOWHERE ? undefined : this.network.elements[elementOf(target)]?.entity;
        const host = this.hosts[hostOf(target)]!;
        return host.hypervisor ? host.hypervisor.entity : host.entity;
      },
      nodeOf: (entity) => this.workloads.pods.find((p) => p.entity === entity)?.host.entity,
      nodeByIp: (ip) => this.hosts.find((h) => h.ip === ip)?.entity,
      journeys: () => this.ctx.requests.recent(),
      discovery: (service) => {
        const mesh = this.mesh;
        if (!mesh) return undefined;
        const { zk } = mesh;
        return { changes: zk.changes(service), watchers: mesh.clients.watchers.of(service).length, backends: zk.children(service).length, reads: zk.readsFor(service) };
      },
      reconnectPolicy: (deployment) => {
        if (this.templates.httpClients.has(deployment)) {
          const c = this.params.client;
          return `its clients redial ${c.reconnectMs} ms after a connection fails and give each attempt ${c.connectTimeoutMs} ms`;
        }
        const s = this.templates.grpcClients.get(deployment);
        if (!s) return undefined;
        return `its ${s.lbPolicy} channels redial each address ${describeReconnect(s)}, giving each attempt ${s.minConnectTimeoutMs} ms`;
      },
    };
  }

  /** Once a metrics step: gauges of tables, and the bounded sweep that expires their old entries. */
  sample(): void {
    const now = this.ctx.sched.now;
    for (const host of this.hosts) {
      host.conntrack.sweep(now, 4096);
      this.conntrackUsed[host.index]!.set(host.conntrack.size);
      host.hypervisor?.sample(now);
    }
    this.mesh?.clients.sample();
    this.steps.sample(this, now);
  }

  get version(): number {
    return this.topologyVersion;
  }

  touch(): void {
    this.topologyVersion++;
  }

  topology(): TopologyView {
    return topologyView(this, this.topologyVersion);
  }

  live(): LiveView {
    return liveView(this);
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

/** A part the scenario's checks require before a deployment may use it; its absence is a bug in those checks. */
/** The world's app mechanisms, some made only when a deployment first needs them. */
export class WorldFleets implements Fleets {
  private callersMade: HttpClients | null = null;
  private proxiesMade: IngressProxies | null = null;

  constructor(
    private readonly world: World,
    private readonly clientParams: Scenario['params']['client'],
    readonly httpServers: HttpServers,
    readonly httpClients: HttpClients,
    private readonly dnsClientsMade: DnsClients | null,
    private readonly meshMade: Mesh | null,
    readonly grpcServers: GrpcServers,
    readonly grpcClients: GrpcClients,
  ) {}

  callers(): HttpClients {
    return (this.callersMade ??= new HttpClients(this.world.ctx, this.world.tcp, this.clientParams, 'calls.'));
  }

  ingressProxies(): IngressProxies {
    const { world } = this;
    return (this.proxiesMade ??= new IngressProxies(world.ctx, world.tcp, new HttpClients(world.ctx, world.tcp, this.clientParams, 'ingress.upstream.'), bound(world, world.addressKind)));
  }

  dnsClients(): DnsClients {
    return present(this.dnsClientsMade, 'topology.dns');
  }

  mesh(): Mesh {
    return present(this.meshMade, 'topology.zookeeper');
  }

  service(name: string): Service {
    return present(this.world.services.get(name), `a service named "${name}"`);
  }
}

function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`the world was built without ${what}`);
  return value;
}
