import type { SimContext } from '../context';
import { seconds } from '../core/time';
import { formatIpv4 } from '../net/ipv4';
import { LbPools, POOL_DEFAULTS, type LbMember, type MemberSpec, type PoolSettings, type ProbeFn } from './lb-pool';

/** `automap`: the LB rewrites the client source to its own self IP, so replies come back through it. */
export type SnatMode = 'automap' | 'none';

export interface VirtualServerSpec {
  name: string;
  vip: number;
  port: number;
  snat?: SnatMode;
  pool?: Partial<PoolSettings>;
}

// CIS virtual servers default to SNAT automap (F5 CIS VirtualServer `snat: auto`; unconfirmed,
// docs/sources/load-balancers.md#snat-automap).
export const DEFAULT_SNAT: SnatMode = 'automap';

// CIS re-reads the node list every 30 s, `--node-poll-interval`
// (docs/sources/load-balancers.md#container-ingress-services); the lead calls syncMembers on it.
export const CIS_NODE_POLL_INTERVAL = seconds(30);

/**
 * An F5 BIG-IP-style load balancer: virtual servers (VIP:port), each with one pool. The lead asks `virtualServer` for
 * the VIP a SYN is sent to, `pick` for the member a new connection goes to (-1: drop with `lb_member_down`),
 * `snatSource` for the source address it leaves with, and keeps per-connection stickiness itself.
 */
export class LoadBalancer {
  private readonly pools: LbPools;
  private readonly vips: number[] = [];
  private readonly ports: number[] = [];
  private readonly snat: SnatMode[] = [];
  private readonly names: string[] = [];

  constructor(
    private readonly ctx: SimContext,
    readonly name: string,
    /** The self IP that SNAT automap uses. */
    readonly selfIp: number,
    probe: ProbeFn,
  ) {
    this.pools = new LbPools(ctx, this.entity, probe);
  }

  /** Built once: it names the entity in every drop, trace and log line. */
  get entity(): string {
    return (this.entityText ??= `lb/${this.name}`);
  }
  private entityText: string | undefined;

  /** Adds a virtual server and its empty pool; the returned index names both. */
  addVirtualServer(spec: VirtualServerSpec): number {
    const settings: PoolSettings = { ...POOL_DEFAULTS, ...spec.pool };
    const vs = this.pools.addPool(spec.name, settings, { vs: spec.name });
    this.vips.push(spec.vip);
    this.ports.push(spec.port);
    this.snat.push(spec.snat ?? DEFAULT_SNAT);
    this.names.push(spec.name);
    const unknown = settings.unknownReceivesTraffic ? 'unknown members take traffic' : 'unknown members take none';
    const where = `${formatIpv4(spec.vip)}:${spec.port}`;
    this.ctx.note('info', this.entity, 'lb.vs.added', `virtual server ${spec.name} on ${where}, activation ${settings.activation}, ${unknown}`);
    return vs;
  }

  /** The virtual server listening on vip:port, or -1. */
  virtualServer(vip: number, port: number): number {
    for (let i = 0; i < this.vips.length; i++) if (this.vips[i] === vip && this.ports[i] === port) return i;
    return -1;
  }

  get virtualServerCount(): number {
    return this.names.length;
  }

  virtualServerName(vs: number): string {
    return this.names[vs]!;
  }

  /** The member for a new connection (round-robin over eligible members), or -1 when none is eligible. */
  pick(vs: number): number {
    return this.pools.pick(vs);
  }

  /** Source address of the connection from the LB to the member: the self IP with SNAT automap, else the client's. */
  snatSource(vs: number, clientIp: number): number {
    return this.snat[vs] === 'automap' ? this.selfIp : clientIp;
  }

  snatMode(vs: number): SnatMode {
    return this.snat[vs]!;
  }

  member(id: number): LbMember {
    return this.pools.member(id);
  }

  members(vs: number): readonly number[] {
    return this.pools.poolMembers(vs);
  }

  addMember(vs: number, spec: MemberSpec): number {
    return this.pools.addMember(vs, spec);
  }

  removeMember(id: number): void {
    this.pools.removeMember(id);
  }

  markHealthy(id: number): void {
    this.pools.markHealthy(id);
  }

  markDown(id: number): void {
    this.pools.markDown(id);
  }

  /** One CIS sync: the pool becomes `desired` (node IP:NodePort per node, or pod IP:port per endpoint). */
  syncMembers(vs: number, desired: readonly MemberSpec[]): void {
    this.pools.sync(vs, desired);
  }
}
