/**
 * Cluster DNS: the CoreDNS Deployment behind the kube-dns Service, with kubeadm's Corefile
 * (docs/sources/dns.md#kubeadm-corefile).
 */
import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import { cacheCappedAt, DnsCache, type CacheInstruments, type CacheSettings } from './dns-cache';
import { ForwardPlugin, forwardSettings, KUBEADM_MAX_CONCURRENT, type ForwardReceiver, type ForwardSettings } from './forward';
import { inZone, newAnswer, type DnsAnswer, type DnsQuery } from './message';
import { ServerImpairment } from './server-impairment';
import type { DnsProto, DnsServer, DnsTransport } from './transport';
import { bound } from '../core/snapshot';

// Kubernetes' default cluster domain (kubelet --cluster-domain, kubeadm networking.dnsDomain).
export const CLUSTER_DOMAIN = 'cluster.local';

/**
 * The kubernetes plugin's view of the cluster, supplied by the lead: the addresses of an in-zone name (a Service's
 * ClusterIP, a headless Service's ready pod IPs), [] for a name that exists without A records, null for NXDOMAIN.
 */
export type ClusterRecords = (name: string) => readonly number[] | null;

export interface ClusterDnsOptions {
  clusterDomain: string;
  /** TTL of the kubernetes plugin's answers and of its denials (the SOA minimum). */
  ttl: number;
  records: ClusterRecords;
  /** The CoreDNS pods' resolv.conf nameservers (dnsPolicy Default: the node's, i.e. the VPC resolver). */
  upstreamServers: readonly number[];
  forward: Partial<ForwardSettings>;
  cache: CacheSettings;
  /** Whether `cache` also holds the cluster zone's answers. */
  cacheClusterZone: boolean;
}

export function clusterDnsOptions(required: Pick<ClusterDnsOptions, 'records' | 'upstreamServers'> & Partial<ClusterDnsOptions>): ClusterDnsOptions {
  return {
    clusterDomain: CLUSTER_DOMAIN,
    // kubeadm: `kubernetes cluster.local in-addr.arpa ip6.arpa { … ttl 30 }` (docs/sources/dns.md#kubeadm-corefile).
    ttl: 30,
    // kubeadm: `forward . /etc/resolv.conf { max_concurrent 1000 }` (docs/sources/dns.md#kubeadm-corefile).
    forward: { maxConcurrent: KUBEADM_MAX_CONCURRENT },
    // kubeadm: `cache 30` (docs/sources/dns.md#kubeadm-corefile).
    cache: cacheCappedAt(30),
    // kubeadm's `cache 30` covered the cluster domain until newer releases excluded it
    // (docs/sources/dns.md#kubeadm-corefile).
    cacheClusterZone: true,
    ...required,
  };
}

/** The kubernetes plugin's name for a Service: `<service>.<namespace>.svc.<domain>`. */
export function serviceDnsName(service: string, namespace: string, domain = CLUSTER_DOMAIN): string {
  return `${service}.${namespace}.svc.${domain}`;
}

interface Replica {
  readonly host: number;
  readonly ip: number;
  readonly cache: DnsCache;
  readonly forward: number;
  readonly server: DnsServer;
  listening: boolean;
}

/**
 * Every CoreDNS replica, with one set of scheduler handlers. A replica is authoritative for the cluster domain
 * (answers from `records`, NXDOMAIN for unknown names, TTL 30) and forwards every other name to its upstream through
 * the cache. Reverse zones fall through to the forward, as the kubernetes plugin's `fallthrough in-addr.arpa ip6.arpa`
 * does for addresses it does not know (the model answers no PTR queries).
 */
export class ClusterDns implements ForwardReceiver {
  private readonly forward: ForwardPlugin;
  private readonly replicas: Replica[] = [];
  private readonly pendingReplica: number[] = [];
  private readonly pendingExchange: number[] = [];
  private readonly freePending: number[] = [];
  private readonly cacheInstruments: CacheInstruments;
  private readonly queries: Counter;
  private readonly nxdomain: Counter;
  /** A fault may make every replica lose or delay queries for a while. */
  readonly impairment: ServerImpairment;

  constructor(
    private readonly ctx: SimContext,
    private readonly transport: DnsTransport,
    readonly options: ClusterDnsOptions,
  ) {
    this.forward = new ForwardPlugin(ctx, transport, 'dns.cluster');
    this.impairment = new ServerImpairment(ctx, 'cluster', 'deployment/coredns');
    const m = ctx.metrics;
    this.cacheInstruments = {
      hits: m.counter('dns.cluster.cache.hits'),
      misses: m.counter('dns.cluster.cache.misses'),
      entries: m.gauge('dns.cluster.cache.entries'),
    };
    this.queries = m.counter('dns.cluster.queries');
    this.nxdomain = m.counter('dns.cluster.nxdomain');
  }

  /** A replica (pod) listening on its pod IP in namespace `host`; `from` is the sender id of its upstream sockets. */
  addReplica(host: number, ip: number, from: number, name: string): number {
    const index = this.replicas.length;
    const server = this.impairment.wrap({ onQuery: bound(this, this.onQuery, index) });
    this.replicas.push({
      host,
      ip,
      cache: new DnsCache(this.options.cache, this.cacheInstruments),
      forward: this.forward.addInstance({
        from,
        entity: `pod/${name}`,
        metrics: 'dns.cluster',
        settings: forwardSettings(this.options.upstreamServers, this.options.forward),
      }),
      server,
      listening: true,
    });
    this.transport.listen(host, ip, server);
    return index;
  }

  /** The replica's pod is gone: it stops answering; answers to queries it had forwarded are dropped. */
  removeReplica(index: number): void {
    const r = this.replicas[index]!;
    if (!r.listening) return;
    r.listening = false;
    this.transport.unlisten(r.host, r.ip);
  }

  inflight(index: number): number {
    return this.forward.inflight(this.replicas[index]!.forward);
  }

  upstreamHealth(index: number): { ip: number; fails: number; down: boolean }[] {
    return this.forward.upstreamHealth(this.replicas[index]!.forward);
  }

  onForwarded(token: number, answer: DnsAnswer, fromUpstream: boolean): void {
    const r = this.replicas[this.pendingReplica[token]!]!;
    const exchange = this.pendingExchange[token]!;
    this.freePending.push(token);
    if (fromUpstream) r.cache.store(answer, this.ctx.sched.now);
    this.transport.respond(exchange, answer);
  }

  private onQuery(index: number, exchange: number, query: DnsQuery, proto: DnsProto): void {
    const r = this.replicas[index]!;
    const o = this.options;
    const now = this.ctx.sched.now;
    const ids = this.transport.ids;
    this.queries.inc();
    const authoritative = inZone(query.name, o.clusterDomain);
    if (!authoritative || o.cacheClusterZone) {
      const hit = r.cache.lookup(ids, query, now);
      if (hit !== undefined) {
        this.transport.respond(exchange, hit);
        return;
      }
    }
    if (authoritative) {
      const addresses = query.type === 'A' ? o.records(query.name) : [];
      if (addresses === null) this.nxdomain.inc();
      const answer = newAnswer(ids, query, addresses === null ? 'NXDOMAIN' : 'NOERROR', addresses ?? [], o.ttl);
      if (o.cacheClusterZone) r.cache.store(answer, now);
      this.transport.respond(exchange, answer);
      return;
    }
    const token = this.freePending.pop() ?? this.pendingReplica.length;
    this.pendingReplica[token] = index;
    this.pendingExchange[token] = exchange;
    this.forward.serve(r.forward, query, proto, this, token);
  }
}
