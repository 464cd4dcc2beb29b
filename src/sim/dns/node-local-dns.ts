/**
 * NodeLocal DNSCache: a CoreDNS on every node, caching in front of cluster DNS and the node's resolver
 * (docs/sources/dns.md#nodelocal-dnscache).
 */
import type { SimContext } from '../context';
import type { Counter, Gauge } from '../core/metrics';
import { ipv4 } from '../net/ipv4';
import { CLUSTER_DOMAIN } from './cluster-dns';
import { cacheCappedAt, DnsCache, NODELOCAL_CLUSTER_ZONE_CACHE, type CacheInstruments, type CacheSettings } from './dns-cache';
import { BYTES_PER_CONCURRENT_QUERY, ForwardPlugin, forwardSettings, type ForwardReceiver, type ForwardSettings } from './forward';
import { ZoneMatcher, type DnsAnswer, type DnsQuery } from './message';
import type { DnsProto, DnsServer, DnsTransport } from './transport';
import { bound } from '../core/snapshot';

// The link-local address node-local DNS conventionally binds (unconfirmed, docs/sources/dns.md#nodelocal-dnscache).
export const NODE_LOCAL_DNS_IP = ipv4('169.254.20.10');

export interface NodeLocalDnsOptions {
  /** The link-local address pods are pointed at. */
  localIp: number;
  /** kube-dns's ClusterIP, bound on every node as well, so pods whose resolv.conf names it reach the local cache. */
  kubeDnsIp: number;
  /** Cluster DNS as reached from the node (the kube-dns-upstream Service, since kube-dns's own IP is bound locally). */
  clusterDnsIps: readonly number[];
  /** The node's own resolv.conf nameservers (the VPC resolver), for names outside the cluster. */
  upstreamServers: readonly number[];
  clusterDomain: string;
  /** Forward settings of the cluster and reverse zones; force_tcp is always on there. */
  clusterForward: Partial<ForwardSettings>;
  /** Forward settings of the `.` zone; no max_concurrent and the client's protocol unless set here. */
  externalForward: Partial<ForwardSettings>;
  clusterCache: CacheSettings;
  /** The reverse zones' and the `.` zone's `cache 30`. */
  otherCache: CacheSettings;
}

export function nodeLocalDnsOptions(required: Pick<NodeLocalDnsOptions, 'kubeDnsIp' | 'clusterDnsIps' | 'upstreamServers'> & Partial<NodeLocalDnsOptions>): NodeLocalDnsOptions {
  return {
    localIp: NODE_LOCAL_DNS_IP,
    clusterDomain: CLUSTER_DOMAIN,
    clusterForward: {},
    externalForward: {},
    clusterCache: NODELOCAL_CLUSTER_ZONE_CACHE,
    // `cache 30` for in-addr.arpa, ip6.arpa and `.` (docs/sources/dns.md#nodelocal-dnscache).
    otherCache: cacheCappedAt(30),
    ...required,
  };
}

interface ZoneBlock {
  readonly zone: string;
  readonly cache: DnsCache;
  readonly forward: number;
}

interface NodeLocalInstance {
  readonly host: number;
  readonly name: string;
  readonly zones: readonly string[];
  readonly blocks: readonly ZoneBlock[];
  readonly server: DnsServer;
  readonly inflightGauge: Gauge;
  readonly memoryGauge: Gauge;
  inflight: number;
  listening: boolean;
}

/**
 * Every node's node-local DNS, with one set of scheduler handlers. Server blocks per the default Corefile: the cluster
 * zone (cache success 30 / denial 5, forward with force_tcp to cluster DNS), in-addr.arpa and ip6.arpa (cache 30, same
 * forward), and `.` (cache 30, forward to the node's resolvers). A query goes to its most specific zone: a cache hit
 * is answered at once, a miss is forwarded and the upstream's answer cached on the way back.
 */
export class NodeLocalDns implements ForwardReceiver {
  private readonly forward: ForwardPlugin;
  /** Every node has the same server blocks. */
  private readonly zones: ZoneMatcher;
  private readonly nodes: NodeLocalInstance[] = [];
  private readonly pendingNode: number[] = [];
  private readonly pendingBlock: number[] = [];
  private readonly pendingExchange: number[] = [];
  private readonly freePending: number[] = [];
  private readonly cacheInstruments: CacheInstruments;
  private readonly queries: Counter;
  private readonly inflightTotal: Gauge;
  private readonly memoryTotal: Gauge;

  constructor(
    private readonly ctx: SimContext,
    private readonly transport: DnsTransport,
    readonly options: NodeLocalDnsOptions,
  ) {
    this.forward = new ForwardPlugin(ctx, transport, 'dns.nodelocal');
    this.zones = new ZoneMatcher([options.clusterDomain, 'in-addr.arpa', 'ip6.arpa', '.']);
    const m = ctx.metrics;
    this.cacheInstruments = {
      hits: m.counter('dns.nodelocal.cache.hits'),
      misses: m.counter('dns.nodelocal.cache.misses'),
      entries: m.gauge('dns.nodelocal.cache.entries'),
    };
    this.queries = m.counter('dns.nodelocal.queries');
    this.inflightTotal = m.gauge('dns.nodelocal.inflight');
    this.memoryTotal = m.gauge('dns.nodelocal.memory_bytes');
  }

  /** Upstream queries node-local DNS on the named node holds now (its slots in use), or -1 when the node runs none. */
  inFlightOn(name: string): number {
    const node = this.nodes.find((n) => n.name === name);
    return node ? node.inflight : -1;
  }

  /** max_concurrent of the cluster-zone forward each node runs; 0 means no cap. */
  get maxConcurrent(): number {
    return forwardSettings([], this.options.clusterForward).maxConcurrent;
  }

  /**
   * Starts node-local DNS on a node. `host` is the node's network namespace (the DaemonSet runs with hostNetwork),
   * `from` the sender id its upstream sockets use.
   */
  addNode(host: number, from: number, name: string): number {
    const o = this.options;
    const node = this.nodes.length;
    const entity = `node/${name}`;
    const clusterForward = forwardSettings(o.clusterDnsIps, { ...o.clusterForward, forceTcp: true });
    const externalForward = forwardSettings(o.upstreamServers, o.externalForward);
    const zones = this.zones.zones;
    const blocks = zones.map((zone, i) => ({
      zone,
      cache: new DnsCache(i === 0 ? o.clusterCache : o.otherCache, this.cacheInstruments),
      forward: this.forward.addInstance({
        from,
        entity,
        metrics: 'dns.nodelocal',
        settings: zone === '.' ? externalForward : clusterForward,
      }),
    }));
    const m = this.ctx.metrics;
    this.nodes.push({
      host,
      name,
      zones,
      blocks,
      server: { onQuery: bound(this, this.onQuery, node) },
      inflightGauge: m.gauge('dns.nodelocal.inflight', { node: name }),
      memoryGauge: m.gauge('dns.nodelocal.memory_bytes', { node: name }),
      inflight: 0,
      listening: false,
    });
    this.start(node);
    return node;
  }

  /** Binds the local IP and the kube-dns ClusterIP; after a stop, the restarted process starts with empty caches. */
  start(node: number): void {
    const n = this.nodes[node]!;
    if (n.listening) return;
    n.listening = true;
    for (const block of n.blocks) block.cache.clear();
    this.transport.listen(n.host, this.options.localIp, n.server);
    this.transport.listen(n.host, this.options.kubeDnsIp, n.server);
  }

  /** Stops answering (the pod died); queries already forwarded still finish, and their answers are dropped. */
  stop(node: number): void {
    const n = this.nodes[node]!;
    if (!n.listening) return;
    n.listening = false;
    this.transport.unlisten(n.host, this.options.localIp);
    this.transport.unlisten(n.host, this.options.kubeDnsIp);
    this.ctx.note('warn', `node/${n.name}`, 'dns.nodelocal.stopped', 'node-local DNS stopped answering');
  }

  /** Queries being forwarded from this node. */
  inflight(node: number): number {
    return this.nodes[node]!.inflight;
  }

  /** About 2 KB per query in flight (docs/sources/dns.md#concurrency-limit). */
  memoryBytes(node: number): number {
    return this.nodes[node]!.inflight * BYTES_PER_CONCURRENT_QUERY;
  }

  /** Upstream health of the zone block holding `zone` ('cluster.local' or '.'). */
  upstreamHealth(node: number, zone: string): { ip: number; fails: number; down: boolean }[] {
    const n = this.nodes[node]!;
    return this.forward.upstreamHealth(n.blocks[n.zones.indexOf(zone)]!.forward);
  }

  onForwarded(token: number, answer: DnsAnswer, fromUpstream: boolean): void {
    const node = this.pendingNode[token]!;
    const block = this.nodes[node]!.blocks[this.pendingBlock[token]!]!;
    const exchange = this.pendingExchange[token]!;
    this.freePending.push(token);
    if (fromUpstream) block.cache.store(answer, this.ctx.sched.now);
    this.transport.respond(exchange, answer);
    this.refreshInflight(node);
  }

  private onQuery(node: number, exchange: number, query: DnsQuery, proto: DnsProto): void {
    const n = this.nodes[node]!;
    this.queries.inc();
    const b = this.zones.closest(query.name);
    const block = n.blocks[b]!;
    const hit = block.cache.lookup(this.transport.ids, query, this.ctx.sched.now);
    if (hit !== undefined) {
      this.transport.respond(exchange, hit);
      return;
    }
    const token = this.freePending.pop() ?? this.pendingNode.length;
    this.pendingNode[token] = node;
    this.pendingBlock[token] = b;
    this.pendingExchange[token] = exchange;
    this.forward.serve(block.forward, query, proto, this, token);
    this.refreshInflight(node);
  }

  private refreshInflight(node: number): void {
    const n = this.nodes[node]!;
    let inflight = 0;
    for (const block of n.blocks) inflight += this.forward.inflight(block.forward);
    const delta = inflight - n.inflight;
    if (delta === 0) return;
    n.inflight = inflight;
    n.inflightGauge.set(inflight);
    n.memoryGauge.set(inflight * BYTES_PER_CONCURRENT_QUERY);
    this.inflightTotal.add(delta);
    this.memoryTotal.add(delta * BYTES_PER_CONCURRENT_QUERY);
  }
}
