import type { SimContext } from '../context';
import type { Host } from '../infra/host';
import type { Pod, PodApp } from '../infra/pod';
import type { ExternalHost } from '../infra/external-host';
import { hostNamespace } from '../infra/network';
import type { Ipv4 } from '../net/ipv4';
import { ClusterDns, clusterDnsOptions, type ClusterRecords } from './cluster-dns';
import { DnsProvider, ROUTE53_DEFAULTS } from './dns-provider';
import type { ForwardSettings } from './forward';
import { NodeLocalDns, nodeLocalDnsOptions, NODE_LOCAL_DNS_IP } from './node-local-dns';
import { ServerImpairment } from './server-impairment';
import { PacketDnsTransport, type NamespaceStacks } from './packet-transport';
import { podResolvConf, StubResolver, type ResolvConf } from './stub-resolver';

export interface DnsSystemConfig {
  /** The kube-dns Service's ClusterIP, which pods have as nameserver. */
  clusterIp: number;
  /** The kube-dns-upstream Service node-local DNS forwards the cluster zone to over TCP. */
  upstreamClusterIp: number;
  nodeLocal: boolean;
  /** The cloud's resolver, which answers from the provider's records. */
  resolver: ExternalHost;
  /** A records the provider holds: name → addresses, with one TTL. */
  records: Record<string, readonly number[]>;
  recordTtl: number;
  /** Namespace of every pod, for the search list. */
  namespace: string;
  /** node-local DNS's forward settings for both its zones (max_concurrent, the request deadline). */
  forward: Partial<ForwardSettings>;
}

/**
 * The cluster's DNS as a whole, on the packet path: every pod's stub resolver, node-local DNS on every node (bound to
 * 169.254.20.10 and the kube-dns ClusterIP, whose traffic skips conntrack), CoreDNS replicas behind kube-dns, and a
 * Route 53-like provider answering at the cloud resolver's address.
 */
export class DnsSystem {
  readonly transport: PacketDnsTransport;
  readonly stub: StubResolver;
  readonly cluster: ClusterDns;
  readonly nodeLocal: NodeLocalDns | null;
  readonly provider: DnsProvider;
  /** A fault may make the cloud resolver lose or delay queries for a while. */
  readonly providerImpairment: ServerImpairment;
  readonly conf: ResolvConf;
  private readonly replicaOf = new Map<number, number>();

  constructor(
    private readonly ctx: SimContext,
    stacksOf: (ns: number) => NamespaceStacks,
    hosts: readonly Host[],
    records: ClusterRecords,
    private readonly config: DnsSystemConfig,
  ) {
    this.transport = new PacketDnsTransport(ctx, stacksOf);
    this.stub = new StubResolver(ctx, this.transport);
    const resolverIp = config.resolver.ip;
    this.provider = new DnsProvider(ctx, this.transport, ROUTE53_DEFAULTS, config.resolver.entity);
    this.providerImpairment = new ServerImpairment(ctx, 'provider', config.resolver.entity);
    this.transport.listen(config.resolver.ns, resolverIp, this.providerImpairment.wrap(this.provider));
    const batch = Object.entries(config.records).map(([name, addresses]) => ({
      action: 'UPSERT' as const,
      record: { name, addresses, ttl: config.recordTtl, owner: null },
    }));
    if (batch.length > 0) this.provider.changeRecordSets(batch);
    this.cluster = new ClusterDns(ctx, this.transport, clusterDnsOptions({ records, upstreamServers: [resolverIp] }));
    this.nodeLocal = config.nodeLocal
      ? new NodeLocalDns(
          ctx,
          this.transport,
          nodeLocalDnsOptions({
            kubeDnsIp: config.clusterIp,
            clusterDnsIps: [config.upstreamClusterIp],
            upstreamServers: [resolverIp],
            clusterForward: config.forward,
            externalForward: config.forward,
          }),
        )
      : null;
    if (this.nodeLocal) {
      for (const host of hosts) {
        // The DaemonSet's dummy interface holds both addresses, and its NOTRACK rules keep them out of conntrack and NAT.
        for (const ip of [NODE_LOCAL_DNS_IP, config.clusterIp]) {
          host.routing.local.add({ dst: { base: ip as Ipv4, prefix: 32 }, type: 'local', dev: 'nodelocaldns' });
          host.notrack.add(ip);
        }
        const ns = hostNamespace(host.index);
        this.nodeLocal.addNode(ns, ns, host.name);
      }
    }
    this.conf = podResolvConf(config.namespace, [config.nodeLocal ? NODE_LOCAL_DNS_IP : config.clusterIp]);
  }

  /** A CoreDNS replica: listens on its pod address while it runs. */
  clusterDnsApp(pod: Pod): PodApp {
    return new ClusterDnsPod(this, pod);
  }

  /** A CoreDNS pod's container runs: it joins the replicas the cluster DNS spreads queries over. */
  replicaStarted(pod: Pod): void {
    this.replicaOf.set(pod.index, this.cluster.addReplica(pod.index, pod.ip, pod.index, pod.name));
  }

  replicaStopped(pod: Pod): void {
    const replica = this.replicaOf.get(pod.index);
    if (replica !== undefined) this.cluster.removeReplica(replica);
  }
}

/** The app of a CoreDNS pod. */
export class ClusterDnsPod implements PodApp {
  constructor(
    private readonly system: DnsSystem,
    private readonly pod: Pod,
  ) {}

  start(): void {
    this.system.replicaStarted(this.pod);
  }

  terminate(exit: () => void): void {
    this.system.replicaStopped(this.pod);
    exit();
  }

  killed(): void {
    this.system.replicaStopped(this.pod);
  }
}
