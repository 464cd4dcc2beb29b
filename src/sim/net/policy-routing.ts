import { cidrContains, type Cidr } from './ipv4';
import { RouteTable, type Route } from './route-table';

// Table ids from iproute2's rt_tables: local 255, main 254, default 253.
export const TABLE_LOCAL = 255;
export const TABLE_MAIN = 254;
export const TABLE_DEFAULT = 253;
// Cilium in ENI mode steers a pod's egress with `from <pod IP> lookup <ENI table>` at priority 110 (pkg/datapath/linux/linux_defaults).
export const SOURCE_RULE_PRIORITY = 110;
// ...and sends traffic for the pod to the main table with `to <pod IP> lookup main` at priority 20 (same file).
export const DESTINATION_RULE_PRIORITY = 20;

// Placeholder table ids for the two per-pod rule maps.
const BY_SOURCE = -1;
const BY_DESTINATION = -2;

/** Slots of the lookup cache: a node sees a few thousand (destination, source) pairs at most at once. */
const CACHE_SLOTS = 4096;

export interface IpRule {
  priority: number;
  from?: Cidr;
  to?: Cidr;
  table: number;
}

/**
 * `ip rule` plus the tables it selects: rules are tried by priority and the first table holding a matching route
 * answers (a table without one falls through to the next rule, as in fib_rules_lookup). Per-pod rules (`to` the pod
 * and `from` the pod) share one priority each and live in maps.
 */
export class PolicyRouting {
  private readonly tables = new Map<number, RouteTable>();
  private readonly rules: IpRule[] = [];
  private readonly bySource = new Map<number, number>();
  private readonly byDestination = new Map<number, number>();
  /**
   * A direct-mapped cache of lookups by (destination, source), emptied by any change to rules or tables. Every packet
   * takes two or three lookups through five rules, so this is the node's hottest path under a SYN flood.
   */
  private readonly cacheDst = new Uint32Array(CACHE_SLOTS);
  private readonly cacheSrc = new Uint32Array(CACHE_SLOTS);
  private readonly cacheRoute: (Route | undefined | null)[] = new Array<Route | undefined | null>(CACHE_SLOTS).fill(null);
  /**
   * Lookups whose source no rule looks at, cached by destination alone: a node that thousands of pods send to keeps
   * one entry per destination instead of one per sender.
   */
  private readonly byDst = new Map<number, Route | undefined>();
  /** Rules that match on the source with a prefix (per-pod source rules live in bySource). */
  private fromRules = 0;

  constructor() {
    // The kernel's default rules: 0 local, 32766 main, 32767 default.
    this.addRule({ priority: 0, table: TABLE_LOCAL });
    this.addRule({ priority: DESTINATION_RULE_PRIORITY, table: BY_DESTINATION });
    this.addRule({ priority: SOURCE_RULE_PRIORITY, table: BY_SOURCE });
    this.addRule({ priority: 32766, table: TABLE_MAIN });
    this.addRule({ priority: 32767, table: TABLE_DEFAULT });
  }

  /** Drops every cached lookup: a rule or a route changed. */
  forget(): void {
    this.cacheRoute.fill(null);
    this.byDst.clear();
  }

  table(id: number): RouteTable {
    let t = this.tables.get(id);
    if (!t) this.tables.set(id, (t = new RouteTable(this)));
    return t;
  }

  get main(): RouteTable {
    return this.table(TABLE_MAIN);
  }

  get local(): RouteTable {
    return this.table(TABLE_LOCAL);
  }

  addRule(rule: IpRule): void {
    if (rule.from) this.fromRules++;
    let at = this.rules.length;
    while (at > 0 && this.rules[at - 1]!.priority > rule.priority) at--;
    this.rules.splice(at, 0, rule);
    this.forget();
  }

  /** `ip rule add from <ip>/32 lookup <table>` at the per-pod priority. */
  addSourceRule(ip: number, table: number): void {
    this.bySource.set(ip, table);
    this.forget();
  }

  /** Deletes a per-pod source rule, as the CNI does when it garbage-collects a deleted pod's state. */
  removeSourceRule(ip: number): boolean {
    this.forget();
    return this.bySource.delete(ip);
  }

  hasSourceRule(ip: number): boolean {
    return this.bySource.has(ip);
  }

  /** `ip rule add to <ip>/32 lookup <table>` at the per-pod ingress priority. */
  addDestinationRule(ip: number, table: number): void {
    this.byDestination.set(ip, table);
    this.forget();
  }

  removeDestinationRule(ip: number): boolean {
    this.forget();
    return this.byDestination.delete(ip);
  }

  /** The route a packet from `src` to `dst` takes; undefined when no rule's table has one. */
  lookup(dst: number, src: number): Route | undefined {
    if (this.fromRules === 0 && !this.bySource.has(src)) {
      let route = this.byDst.get(dst);
      if (route === undefined && !this.byDst.has(dst)) this.byDst.set(dst, (route = this.resolve(dst, src)));
      return route;
    }
    let h = Math.imul(dst ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13) ^ src, 0xc2b2ae35);
    const slot = (h ^ (h >>> 16)) & (CACHE_SLOTS - 1);
    const cached = this.cacheRoute[slot];
    if (cached !== null && this.cacheDst[slot] === dst >>> 0 && this.cacheSrc[slot] === src >>> 0) return cached;
    const route = this.resolve(dst, src);
    this.cacheDst[slot] = dst;
    this.cacheSrc[slot] = src;
    this.cacheRoute[slot] = route;
    return route;
  }

  private resolve(dst: number, src: number): Route | undefined {
    for (const rule of this.rules) {
      let table: number;
      if (rule.table < 0) {
        const t = rule.table === BY_SOURCE ? this.bySource.get(src) : this.byDestination.get(dst);
        if (t === undefined) continue;
        table = t;
      } else {
        if (rule.from && !cidrContains(rule.from, src)) continue;
        if (rule.to && !cidrContains(rule.to, dst)) continue;
        table = rule.table;
      }
      const route = this.tables.get(table)?.lookup(dst);
      if (route) return route;
    }
    return undefined;
  }

  /** Rules as `ip rule list` would print them, source rules expanded. */
  listRules(): IpRule[] {
    const out: IpRule[] = [];
    for (const rule of this.rules) {
      const host = (ip: number): Cidr => ({ base: ip as Cidr['base'], prefix: 32 });
      if (rule.table === BY_SOURCE) for (const [ip, table] of this.bySource) out.push({ priority: rule.priority, from: host(ip), table });
      else if (rule.table === BY_DESTINATION) for (const [ip, table] of this.byDestination) out.push({ priority: rule.priority, to: host(ip), table });
      else out.push(rule);
    }
    return out;
  }
}
