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

/** One routing table with longest-prefix match; ties go to the route added first, as with equal-metric routes. */
export class RouteTable {
  private readonly routes: Route[] = [];

  add(route: Route): void {
    this.routes.push(route);
  }

  remove(predicate: (route: Route) => boolean): number {
    let removed = 0;
    for (let i = this.routes.length - 1; i >= 0; i--) {
      if (predicate(this.routes[i]!)) {
        this.routes.splice(i, 1);
        removed++;
      }
    }
    return removed;
  }

  lookup(dst: number): Route | undefined {
    let best: Route | undefined;
    for (const route of this.routes) {
      if (cidrContains(route.dst, dst) && (!best || route.dst.prefix > best.dst.prefix)) best = route;
    }
    return best;
  }

  list(): readonly Route[] {
    return this.routes;
  }
}
