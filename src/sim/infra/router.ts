import type { SimContext } from '../context';
import type { Counter, Gauge } from '../core/metrics';
import { EcmpGroup, flowHash, DEFAULT_RESILIENT_BUCKETS, movedShare, sampleMapping, type EcmpMode } from '../net/ecmp';
import { formatCidr, formatIpv4, type Cidr } from '../net/ipv4';
import { RouteTable, type Route } from '../net/route-table';

export interface RouterOptions {
  ecmpMode: EcmpMode;
  /** The box's hash key; a different seed sends the same flow to a different next hop. */
  hashSeed: number;
  /**
   * Hash the ports too (5-tuple) or only addresses and protocol (3-tuple); routers differ
   * (docs/sources/load-balancers.md#metallb-bgp-mode).
   */
  hashPorts: boolean;
  resilientBuckets: number;
}

export const ROUTER_DEFAULTS: RouterOptions = {
  // Legacy Linux multipath groups use hash-threshold, RFC 2992 (docs/sources/load-balancers.md#ecmp-hash-threshold).
  ecmpMode: 'hash-threshold',
  // Model choice: any fixed key; only a change of key matters.
  hashSeed: 0,
  // Model choice: 5-tuple; MetalLB notes routers hash 3- or 5-tuple depending on the box
  // (docs/sources/load-balancers.md#metallb-bgp-mode).
  hashPorts: true,
  resilientBuckets: DEFAULT_RESILIENT_BUCKETS,
};

/** A BGP-learned prefix: one ECMP group whose next hops are in the order they were announced. */
interface MultipathRoute {
  route: Route;
  group: EcmpGroup;
  hops: number[];
  nextHopsGauge: Gauge;
}

/**
 * A stateless L3 router (a ToR or the upstream of MetalLB speakers): connected and static routes, and BGP routes
 * that form one ECMP group per prefix. It knows nothing of connections: a flow whose hash now picks another next hop
 * simply goes there.
 */
export class Router {
  private readonly table = new RouteTable();
  /** ECMP groups of the routes in `table`, keyed by the route object. */
  private readonly groups = new Map<Route, EcmpGroup>();
  private readonly multipath = new Map<string, MultipathRoute>();
  private mode: EcmpMode;
  private seed: number;
  private readonly hashPorts: boolean;
  private readonly buckets: number;
  private readonly rehashes: Counter;

  constructor(
    private readonly ctx: SimContext,
    readonly name: string,
    options: Partial<RouterOptions> = {},
  ) {
    const o = { ...ROUTER_DEFAULTS, ...options };
    this.mode = o.ecmpMode;
    this.seed = o.hashSeed;
    this.hashPorts = o.hashPorts;
    this.buckets = o.resilientBuckets;
    this.rehashes = ctx.metrics.counter('router.rehashes', { router: name });
  }

  /** Built once: it names the entity in every drop, trace and log line. */
  get entity(): string {
    return (this.entityText ??= `router/${this.name}`);
  }
  private entityText: string | undefined;

  get ecmpMode(): EcmpMode {
    return this.mode;
  }

  get hashSeed(): number {
    return this.seed;
  }

  /** A directly attached subnet (e.g. the node subnet): its addresses are their own next hop. */
  addConnected(prefix: Cidr): void {
    this.table.add({ dst: prefix, type: 'unicast', dev: 'connected' });
  }

  /** A static route through a gateway (e.g. a node's pod block via that node, for routed pod networks). */
  addStatic(prefix: Cidr, via: number): void {
    this.table.add({ dst: prefix, type: 'unicast', dev: 'static', via });
  }

  /** Removes the connected or static routes for exactly this prefix; BGP routes are withdrawn through `forget`. */
  removeStatic(prefix: Cidr): number {
    return this.table.remove((r) => r.dev !== 'bgp' && r.dst.base === prefix.base && r.dst.prefix === prefix.prefix);
  }

  /** The flow hash this router computes; the lead passes it to `nextHop`. */
  hash(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): number {
    return this.hashPorts ? flowHash(proto, srcIp, srcPort, dstIp, dstPort, this.seed) : flowHash(proto, srcIp, 0, dstIp, 0, this.seed);
  }

  /** Longest-prefix match, then the ECMP pick for BGP routes: the next-hop address, or -1 when there is no route. */
  nextHop(dstIp: number, hash: number): number {
    const route = this.table.lookup(dstIp);
    if (route === undefined || route.type !== 'unicast') return -1;
    if (route.dev === 'bgp') return this.groups.get(route)!.select(hash);
    return route.via ?? dstIp;
  }

  /** `nextHop` for a 5-tuple. */
  route(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): number {
    return this.nextHop(dstIp, this.hash(proto, srcIp, srcPort, dstIp, dstPort));
  }

  /**
   * Installs a BGP path: a new next hop joins the end of the prefix's ECMP group. Called by Bgp after convergence;
   * `initial` for the starting state, where no flow existed to be moved.
   */
  learn(prefix: Cidr, nextHop: number, cause?: string, initial = false): void {
    const key = formatCidr(prefix);
    let mp = this.multipath.get(key);
    if (mp === undefined) {
      const route: Route = { dst: prefix, type: 'unicast', dev: 'bgp' };
      const nextHopsGauge = this.ctx.metrics.gauge('router.ecmp.next_hops', { router: this.name, prefix: key });
      mp = { route, group: this.newGroup(), hops: [], nextHopsGauge };
      this.multipath.set(key, mp);
    }
    if (mp.hops.includes(nextHop)) return;
    const before = initial ? null : sampleMapping(mp.group);
    if (mp.hops.length === 0) {
      this.table.add(mp.route);
      this.groups.set(mp.route, mp.group);
    } else {
      this.rehashes.inc();
    }
    mp.hops.push(nextHop);
    this.install(mp, key, before, `learned ${key} via ${formatIpv4(nextHop)}`, cause);
  }

  /** Removes one BGP path; the prefix's route goes when its last next hop does. */
  forget(prefix: Cidr, nextHop: number, cause?: string): void {
    const key = formatCidr(prefix);
    const mp = this.multipath.get(key);
    const at = mp === undefined ? -1 : mp.hops.indexOf(nextHop);
    if (mp === undefined || at < 0) return;
    const before = sampleMapping(mp.group);
    mp.hops.splice(at, 1);
    if (mp.hops.length === 0) {
      this.table.remove((r) => r === mp.route);
      this.groups.delete(mp.route);
    } else {
      this.rehashes.inc();
    }
    this.install(mp, key, before, `withdrew ${key} via ${formatIpv4(nextHop)}`, cause);
  }

  /** Every BGP prefix with its next hops in ECMP order, for the topology picture. */
  multipathRoutes(): { prefix: string; hops: readonly number[] }[] {
    return [...this.multipath].map(([prefix, mp]) => ({ prefix, hops: mp.hops }));
  }

  /** BGP next hops of a prefix, in ECMP order (empty when it has no route). */
  multipathHops(prefix: Cidr): readonly number[] {
    return this.multipath.get(formatCidr(prefix))?.hops ?? [];
  }

  /** A fault: a new ECMP mode or hash seed. Every group is rebuilt, so nearly every flow may move. */
  setHashing(mode: EcmpMode, seed: number, cause?: string): void {
    if (mode === this.mode && seed === this.seed) return;
    const before = `${this.mode}/${this.seed}`;
    this.mode = mode;
    this.seed = seed;
    for (const mp of this.multipath.values()) {
      mp.group = this.newGroup();
      mp.group.setNextHops(mp.hops);
      if (mp.hops.length > 0) {
        this.groups.set(mp.route, mp.group);
        this.rehashes.inc();
      }
    }
    const message = `ECMP hashing changed from ${before} to ${mode}/${seed}; flows rehash`;
    this.ctx.note('warn', this.entity, 'router.hashing.changed', message, cause === undefined ? undefined : { cause });
  }

  private newGroup(): EcmpGroup {
    return new EcmpGroup(this.mode, this.buckets);
  }

  /** Programs the group's new next hops and tells what share of the flows it had sent somewhere now go elsewhere. */
  private install(mp: MultipathRoute, key: string, before: Int32Array | null, what: string, cause: string | undefined): void {
    const hopsBefore = mp.group.nextHops.length;
    mp.group.setNextHops(mp.hops);
    mp.nextHopsGauge.set(mp.hops.length);
    const rehashed = before !== null && hopsBefore > 0 && mp.hops.length > 0;
    const moved = rehashed ? movedShare(before, sampleMapping(mp.group)) : 0;
    const rehash = rehashed ? `; ${Math.round(moved * 100)} % of flows now hash to another next hop` : '';
    const message = `${what}: ${mp.hops.length} next hop(s) for ${key}${rehash}`;
    this.ctx.note('info', this.entity, 'router.ecmp.changed', message, cause === undefined ? undefined : { cause });
    if (!rehashed) return;
    const detail = { prefix: key, before: hopsBefore, after: mp.hops.length, movedPct: Math.round(moved * 1000) / 10, mode: this.mode, via: cause ?? '', what };
    this.ctx.causes.record('ecmp_changed', this.entity, this.ctx.sched.now, detail);
  }
}
