import type { SimContext } from '../context';
import type { Counter, Gauge } from '../core/metrics';
import type { EventHandle, HandlerId } from '../core/scheduler';
import { atSeconds, seconds, toSeconds } from '../core/time';
import { formatIpv4 } from '../net/ipv4';
import { MemberMonitor, receivesTraffic, RoundRobin, type MemberHealth, type MonitorSettings } from './health-monitor';
import { bound } from '../core/snapshot';

/**
 * `node`: node IP : NodePort, kube-proxy does the last hop; `pod`: pod IP : port, reached over the pod network
 * (docs/sources/load-balancers.md#container-ingress-services).
 */
export type MemberKind = 'node' | 'pod';
/** How the load balancer reaches a pod member: a VXLAN tunnel into the overlay or static routes to pod blocks. */
export type PodReach = 'vxlan' | 'routed';

export interface MemberSpec {
  kind: MemberKind;
  ip: number;
  port: number;
  /** Only for pod members. */
  reach?: PodReach;
}

export interface PoolSettings {
  monitor: MonitorSettings;
  /** A probe unanswered this long counts as failed and a late answer is ignored; at most the interval. */
  probeTimeoutSeconds: number;
  /** Whether members never yet checked (blue) take new connections. */
  unknownReceivesTraffic: boolean;
  /** `after-healthy`: a new member takes no connection before its first successful probe. */
  activation: 'immediate' | 'after-healthy';
}

export const POOL_DEFAULTS: PoolSettings = {
  // BIG-IP HTTP/TCP monitor: interval 5 s, timeout 16 s (docs/sources/load-balancers.md#big-ip-health-monitors).
  monitor: { intervalSeconds: 5, timeoutSeconds: 16 },
  // Model choice: a probe is abandoned when the next one is due, so at most one is outstanding per member.
  probeTimeoutSeconds: 5,
  // Widely described as BIG-IP's behaviour but unconfirmed from an F5 primary source; the 1&1 talk relies on it
  // (docs/sources/load-balancers.md#members-with-unknown-health).
  unknownReceivesTraffic: true,
  activation: 'immediate',
};

/** Sends one health probe to a member; the packet path calls `done` once with the outcome (or never, if nothing answers). */
export type ProbeFn = (member: number, done: (ok: boolean) => void) => void;

/** A pool member as the lead reads it: where to send, and what the monitor last said. */
export interface LbMember extends Readonly<MemberSpec> {
  readonly id: number;
  readonly pool: number;
  readonly health: MemberHealth;
  /** Has passed a probe at least once. */
  readonly activated: boolean;
  readonly removed: boolean;
}

interface MemberState extends LbMember {
  health: MemberHealth;
  activated: boolean;
  removed: boolean;
  monitor: MemberMonitor;
  outstanding: boolean;
  probeTimer: EventHandle;
  probeTimeout: EventHandle;
  downTimer: EventHandle;
  /** Numbers each probe, so the answer of one that was given up on is not taken for the next one's. */
  probeSeq: number;
}

interface Pool {
  name: string;
  settings: PoolSettings;
  /** Ids of current members, in the order they joined. */
  members: number[];
  rr: RoundRobin;
  eligible: (index: number) => boolean;
  picks: Counter;
  probesSent: Counter;
  probesFailed: Counter;
  gauges: Record<MemberHealth, Gauge>;
}

/**
 * The pools of one BIG-IP: members, a monitor per member probing on the simulation clock, and round-robin over the
 * members that may take new connections. Member ids are never reused, so a late probe answer cannot land on a
 * newcomer.
 */
export class LbPools {
  private readonly pools: Pool[] = [];
  private readonly members: MemberState[] = [];
  private readonly probeHandler: HandlerId;
  private readonly timeoutHandler: HandlerId;
  private readonly downHandler: HandlerId;
  /** Seconds of the pick in progress, read by the pools' eligibility callbacks. */
  private pickSeconds = 0;

  constructor(
    private readonly ctx: SimContext,
    /** Log entity of the load balancer, e.g. `lb/bigip`. */
    private readonly entity: string,
    private readonly probe: ProbeFn,
  ) {
    this.probeHandler = ctx.sched.register('lb/probe', bound(this, this.sendProbe));
    this.timeoutHandler = ctx.sched.register('lb/probe-timeout', bound(this, this.probeTimedOut));
    this.downHandler = ctx.sched.register('lb/monitor-timeout', bound(this, this.refresh));
  }

  /** A new pool; counters and gauges carry `labels` (the virtual server). */
  addPool(name: string, settings: PoolSettings, labels: Readonly<Record<string, string>>): number {
    if (!(settings.probeTimeoutSeconds > 0 && settings.probeTimeoutSeconds <= settings.monitor.intervalSeconds)) {
      throw new RangeError(`pool ${name}: probe timeout must be in (0, interval]`);
    }
    const id = this.pools.length;
    const members: number[] = [];
    const metrics = this.ctx.metrics;
    this.pools.push({
      name,
      settings,
      members,
      rr: new RoundRobin(),
      eligible: bound(this, this.memberEligible, id),
      picks: metrics.counter('lb.connections', labels),
      probesSent: metrics.counter('lb.probes.sent', labels),
      probesFailed: metrics.counter('lb.probes.failed', labels),
      gauges: {
        unknown: metrics.gauge('lb.members', { ...labels, state: 'unknown' }),
        up: metrics.gauge('lb.members', { ...labels, state: 'up' }),
        down: metrics.gauge('lb.members', { ...labels, state: 'down' }),
      },
    });
    return id;
  }

  /** Round-robin among members that may take a new connection: a member id, or -1 when none may. */
  pick(pool: number): number {
    const p = this.pools[pool]!;
    this.pickSeconds = toSeconds(this.ctx.sched.now);
    const index = p.rr.pick(p.eligible, p.members.length);
    if (index < 0) return -1;
    p.picks.inc();
    const id = p.members[index]!;
    const m = this.members[id]!;
    // For the why chains: a connection given to a member nobody has checked yet.
    if (m.health === 'unknown') this.ctx.causes.record('lb_pick_unknown', `${this.entity} ${formatIpv4(m.ip)}`, this.ctx.sched.now);
    return id;
  }

  member(id: number): LbMember {
    const m = this.members[id];
    if (m === undefined) throw new RangeError(`no pool member ${id}`);
    return m;
  }

  /** Current member ids of a pool, in joining order. */
  poolMembers(pool: number): readonly number[] {
    return this.pools[pool]!.members;
  }

  /** Adds a member, unknown until its first probe (one interval from now) or down after the monitor timeout. */
  addMember(pool: number, spec: MemberSpec): number {
    const p = this.pools[pool]!;
    const id = this.members.length;
    const now = this.ctx.sched.now;
    const { intervalSeconds, timeoutSeconds } = p.settings.monitor;
    const m: MemberState = {
      ...spec,
      id,
      pool,
      health: 'unknown',
      activated: false,
      removed: false,
      monitor: new MemberMonitor(p.settings.monitor, toSeconds(now)),
      outstanding: false,
      probeTimer: this.ctx.sched.after(seconds(intervalSeconds), this.probeHandler, id),
      probeTimeout: -1,
      downTimer: this.ctx.sched.after(seconds(timeoutSeconds), this.downHandler, id),
      probeSeq: 0,
    };
    this.members.push(m);
    p.members.push(id);
    p.gauges.unknown.add(1);
    this.ctx.note('info', this.entity, 'lb.member.added', `pool ${p.name}: added ${describe(m)} (unknown until probed)`);
    return id;
  }

  /** The starting state of a run: the member has passed its probes for a while, so it is up and activated. */
  markHealthy(id: number): void {
    const m = this.members[id]!;
    m.outstanding = true;
    this.probeDone(id, m.probeSeq, true);
  }

  /** The starting state of a run: the member has failed its probes for longer than the monitor timeout, so it is down. */
  markDown(id: number): void {
    const m = this.members[id]!;
    const settings = this.pools[m.pool]!.settings.monitor;
    m.monitor = new MemberMonitor(settings, toSeconds(this.ctx.sched.now) - settings.timeoutSeconds);
    this.ctx.sched.cancel(m.downTimer);
    this.refresh(id);
  }

  removeMember(id: number): void {
    const m = this.members[id];
    if (m === undefined || m.removed) return;
    const p = this.pools[m.pool]!;
    m.removed = true;
    this.ctx.sched.cancel(m.probeTimer);
    this.ctx.sched.cancel(m.probeTimeout);
    this.ctx.sched.cancel(m.downTimer);
    p.members.splice(p.members.indexOf(id), 1);
    p.gauges[m.health].add(-1);
    this.ctx.note('info', this.entity, 'lb.member.removed', `pool ${p.name}: removed ${describe(m)}`);
  }

  /** Makes the pool's members match `desired` (as CIS does on each node poll): removes the missing, appends the new. */
  sync(pool: number, desired: readonly MemberSpec[]): void {
    const p = this.pools[pool]!;
    const key = (s: MemberSpec) => `${s.kind}/${s.ip}:${s.port}`;
    const want = new Set(desired.map(key));
    for (const id of [...p.members]) if (!want.has(key(this.members[id]!))) this.removeMember(id);
    const have = new Set(p.members.map((id) => key(this.members[id]!)));
    for (const spec of desired) if (!have.has(key(spec))) this.addMember(pool, spec);
  }

  /** Whether pool `pool`'s `index`-th member may be picked. */
  private memberEligible(pool: number, index: number): boolean {
    const p = this.pools[pool]!;
    return this.eligible(this.members[p.members[index]!]!, p.settings);
  }

  private eligible(m: MemberState, settings: PoolSettings): boolean {
    if (settings.activation === 'after-healthy' && !m.activated) return false;
    return receivesTraffic(m.monitor.health(this.pickSeconds), settings.unknownReceivesTraffic);
  }

  private sendProbe(id: number): void {
    const m = this.members[id]!;
    const p = this.pools[m.pool]!;
    p.probesSent.inc();
    m.outstanding = true;
    m.probeTimeout = this.ctx.sched.after(seconds(p.settings.probeTimeoutSeconds), this.timeoutHandler, id);
    m.probeTimer = this.ctx.sched.after(seconds(p.settings.monitor.intervalSeconds), this.probeHandler, id);
    const seq = ++m.probeSeq;
    this.probe(id, bound(this, this.probeDone, id, seq));
  }

  private probeDone(id: number, seq: number, ok: boolean): void {
    const m = this.members[id]!;
    if (m.removed || !m.outstanding || seq !== m.probeSeq) return;
    m.outstanding = false;
    this.ctx.sched.cancel(m.probeTimeout);
    if (!ok) {
      this.pools[m.pool]!.probesFailed.inc();
      return;
    }
    m.monitor.record(toSeconds(this.ctx.sched.now), true);
    m.activated = true;
    this.ctx.sched.cancel(m.downTimer);
    m.downTimer = this.ctx.sched.at(atSeconds(m.monitor.downAt), this.downHandler, id);
    this.refresh(id);
  }

  private probeTimedOut(id: number): void {
    const m = this.members[id]!;
    m.outstanding = false;
    this.pools[m.pool]!.probesFailed.inc();
  }

  /** Re-reads the monitor; logs and counts a change of state. */
  private refresh(id: number): void {
    const m = this.members[id]!;
    const health = m.monitor.health(toSeconds(this.ctx.sched.now));
    if (health === m.health) return;
    const p = this.pools[m.pool]!;
    p.gauges[m.health].add(-1);
    p.gauges[health].add(1);
    const before = m.health;
    m.health = health;
    const why = health === 'down' ? `: no successful probe for ${p.settings.monitor.timeoutSeconds} s` : '';
    const message = `pool ${p.name}: ${describe(m)} ${before} → ${health}${why}`;
    this.ctx.note(health === 'down' ? 'warn' : 'info', this.entity, `lb.member.${health}`, message);
  }
}

function describe(m: MemberSpec): string {
  return `${m.kind} member ${formatIpv4(m.ip)}:${m.port}`;
}
