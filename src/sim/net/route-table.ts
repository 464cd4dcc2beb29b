import { cidrContains, type Cidr } from './ipv4';

/** Route types of the Linux FIB that matter to forwarding and source validation. */
export type RouteType = 'unicast' | 'local' | 'blackhole' | 'unreachable' | 'prohibit';

export interface Route {
  dst: Cidr;
  type: RouteType;
  /** Outgoing interface; absent for blackhole/unreachable/prohibit. */
  dev?: string;
  /** Next-hop gateway address, when the destination is not on the link. */
  via?: number;
}

/**
 * One routing table with longest-prefix match; ties go to the route added first, as with equal-metric routes. Host
 * routes (/32, one per pod with routed CNIs) sit in a map so a node with many pods still looks up in constant time.
 */
export class RouteTable {
  private readonly hostRoutes = new Map<number, Route>();
  /** Shorter prefixes, longest first, in insertion order within a length. */
  private readonly prefixRoutes: Route[] = [];

  /** `cache` is told of every change, so that whoever caches lookups can forget them. */
  constructor(private readonly cache: { forget(): void } | null = null) {}

  add(route: Route): void {
    this.cache?.forget();
    if (route.dst.prefix === 32) {
      if (!this.hostRoutes.has(route.dst.base)) this.hostRoutes.set(route.dst.base, route);
      return;
    }
    let at = this.prefixRoutes.length;
    while (at > 0 && this.prefixRoutes[at - 1]!.dst.prefix < route.dst.prefix) at--;
    this.prefixRoutes.splice(at, 0, route);
  }

  remove(predicate: (route: Route) => boolean): number {
    this.cache?.forget();
    let removed = 0;
    for (const [key, route] of this.hostRoutes) {
      if (predicate(route)) {
        this.hostRoutes.delete(key);
        removed++;
      }
    }
    for (let i = this.prefixRoutes.length - 1; i >= 0; i--) {
      if (predicate(this.prefixRoutes[i]!)) {
        this.prefixRoutes.splice(i, 1);
        removed++;
      }
    }
    return removed;
  }

  /** Removes the /32 route to one address, if there is one. */
  removeHost(ip: number): boolean {
    this.cache?.forget();
    return this.hostRoutes.delete(ip);
  }

  lookup(dst: number): Route | undefined {
    const host = this.hostRoutes.get(dst);
    if (host) return host;
    for (const route of this.prefixRoutes) if (cidrContains(route.dst, dst)) return route;
    return undefined;
  }

  list(): Route[] {
    return [...this.prefixRoutes, ...this.hostRoutes.values()].sort((a, b) => b.dst.prefix - a.dst.prefix);
  }
}
