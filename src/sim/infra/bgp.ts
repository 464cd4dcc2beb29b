import type { SimContext } from '../context';
import type { EventHandle, HandlerId } from '../core/scheduler';
import { millis, seconds, toSeconds, type Duration, type SimTime } from '../core/time';
import { formatCidr, formatIpv4, type Cidr } from '../net/ipv4';
import type { Router } from './router';

export interface BgpOptions {
  /** From an UPDATE leaving the speaker to the router forwarding by it: UPDATE processing, best path, FIB programming. */
  convergenceDelay: Duration;
  /** The router drops a silent peer's routes this long after its last KEEPALIVE. */
  holdTime: Duration;
  /** Interval between the speaker's KEEPALIVEs, which fixes when the hold timer fires after a silent failure. */
  keepaliveTime: Duration;
}

export const BGP_DEFAULTS: BgpOptions = {
  // Model choice: 500 ms, a few hundred ms of UPDATE processing and FIB programming on a ToR for a handful of /32s.
  convergenceDelay: millis(500),
  // RFC 4271 §10 suggests HoldTime 90 s; MetalLB's BGPPeer holdTime defaults to 90 s as well
  // (docs/sources/load-balancers.md#bgp-timers).
  holdTime: seconds(90),
  // RFC 4271 §10: KeepaliveTime one third of HoldTime, 30 s.
  keepaliveTime: seconds(30),
};

interface Speaker {
  nextHop: number;
  entity: string;
  /** Prefixes the speaker wants announced (its Adj-RIB-Out), whether or not its sessions are up. */
  announced: Set<number>;
  sessions: number[];
}

interface Session {
  speaker: number;
  router: Router;
  up: boolean;
  upSince: SimTime;
  /** Prefixes the router holds or will hold once UPDATEs in flight arrive. */
  sent: Set<number>;
  /** Prefixes the router holds now. */
  delivered: Set<number>;
  /** The pending hold-timer flush of every route of this session, or -1. */
  holdTimerFlush: EventHandle;
}

const WITHDRAW = 0;
const ANNOUNCE = 1;
const CLOSED = 0;
const HOLD_TIMER_EXPIRED = 1;

/**
 * MetalLB-style BGP between speakers (one per node, identified by its next-hop address) and routers. A speaker
 * announces or withdraws prefixes (LoadBalancer /32s); each router learns of it after the convergence delay, and
 * routes that differ only in next hop join one ECMP group in the order they arrived. A session that closes
 * gracefully takes its routes with it after the convergence delay; one that goes silent keeps them until the
 * router's hold timer fires.
 */
export class Bgp {
  private readonly opts: BgpOptions;
  private readonly speakers: Speaker[] = [];
  private readonly sessions: Session[] = [];
  private readonly prefixes: Cidr[] = [];
  private readonly prefixIds = new Map<string, number>();
  private readonly deliverHandler: HandlerId;
  private readonly flushHandler: HandlerId;

  constructor(
    private readonly ctx: SimContext,
    options: Partial<BgpOptions> = {},
  ) {
    this.opts = { ...BGP_DEFAULTS, ...options };
    if (!(this.opts.keepaliveTime > 0 && this.opts.keepaliveTime <= this.opts.holdTime)) {
      throw new RangeError('BGP keepaliveTime must be positive and at most holdTime');
    }
    this.deliverHandler = ctx.sched.register('bgp/update', (session, update) => this.deliver(session, update));
    this.flushHandler = ctx.sched.register('bgp/flush', (session, why) => this.flushSession(session, why));
  }

  /** A speaker whose routes point at `nextHop` (its node address); `entity` names it in the log, e.g. `node/node-c`. */
  addSpeaker(nextHop: number, entity: string): number {
    this.speakers.push({ nextHop, entity, announced: new Set(), sessions: [] });
    return this.speakers.length - 1;
  }

  /** Establishes a session from a speaker to a router now; the router learns what the speaker already announces. */
  connect(speaker: number, router: Router): number {
    const s = this.speaker(speaker);
    const id = this.sessions.length;
    const now = this.ctx.sched.now;
    this.sessions.push({ speaker, router, up: false, upSince: now, sent: new Set(), delivered: new Set(), holdTimerFlush: -1 });
    s.sessions.push(id);
    this.sessionUp(id);
    return id;
  }

  announce(speaker: number, prefix: Cidr): void {
    const s = this.speaker(speaker);
    const id = this.prefixId(prefix);
    if (s.announced.has(id)) return;
    s.announced.add(id);
    const to = `${this.upSessions(s)} router(s)`;
    this.ctx.note('info', s.entity, 'bgp.announce', `announces ${formatCidr(prefix)} via ${formatIpv4(s.nextHop)} to ${to}`);
    for (const session of s.sessions) this.send(session, id, ANNOUNCE);
  }

  /** The starting state of a run: the speaker has announced the prefix and every router already holds it. */
  announceConverged(speaker: number, prefix: Cidr): void {
    const s = this.speaker(speaker);
    const id = this.prefixId(prefix);
    s.announced.add(id);
    for (const sessionId of s.sessions) {
      const session = this.session(sessionId);
      if (!session.up) continue;
      session.sent.add(id);
      session.delivered.add(id);
      session.router.learn(prefix, s.nextHop, s.entity, true);
    }
  }

  withdraw(speaker: number, prefix: Cidr): void {
    const s = this.speaker(speaker);
    const id = this.prefixId(prefix);
    if (!s.announced.delete(id)) return;
    this.ctx.note('info', s.entity, 'bgp.withdraw', `withdraws ${formatCidr(prefix)} from ${this.upSessions(s)} router(s)`);
    for (const session of s.sessions) this.send(session, id, WITHDRAW);
  }

  isAnnouncing(speaker: number, prefix: Cidr): boolean {
    const id = this.prefixIds.get(formatCidr(prefix));
    return id !== undefined && this.speaker(speaker).announced.has(id);
  }

  /** Every session as the picture shows it: which speaker, which router, whether it is up, how many routes the router holds from it. */
  sessionStates(): { speaker: string; router: string; up: boolean; routes: number }[] {
    return this.sessions.map((ss) => ({ speaker: this.speakers[ss.speaker]!.entity, router: ss.router.entity, up: ss.up, routes: ss.delivered.size }));
  }

  isUp(session: number): boolean {
    return this.session(session).up;
  }

  /**
   * Ends a session. Graceful (NOTIFICATION Cease, speaker shut down cleanly): the router withdraws the session's
   * routes at once, i.e. after the convergence delay. Otherwise (node or link died): the router keeps forwarding to
   * the dead next hop until the hold timer fires, holdTime after the last KEEPALIVE it received.
   */
  sessionDown(session: number, graceful: boolean): void {
    const ss = this.session(session);
    if (!ss.up) return;
    ss.up = false;
    const s = this.speakers[ss.speaker]!;
    const now = this.ctx.sched.now;
    const { holdTime, keepaliveTime, convergenceDelay } = this.opts;
    if (graceful) {
      ss.sent.clear();
      this.ctx.sched.after(convergenceDelay, this.flushHandler, session, CLOSED);
      this.ctx.note('info', s.entity, 'bgp.session.down', `closed its BGP session with ${ss.router.entity}; routes withdrawn`);
      return;
    }
    const lastKeepalive = ss.upSince + Math.floor((now - ss.upSince) / keepaliveTime) * keepaliveTime;
    const expiry = (lastKeepalive + holdTime) as SimTime;
    ss.holdTimerFlush = this.ctx.sched.at((expiry + convergenceDelay) as SimTime, this.flushHandler, session, HOLD_TIMER_EXPIRED);
    const until = `the router keeps its routes until the hold timer fires at ${toSeconds(expiry)} s`;
    this.ctx.note('warn', s.entity, 'bgp.session.down', `lost its BGP session with ${ss.router.entity}; ${until}`);
  }

  /**
   * Re-establishes a session. The speaker sends what changed since the router last heard from it. Model choice: a
   * peer back before the hold timer fired keeps its routes, as with graceful restart (RFC 4724).
   */
  sessionUp(session: number): void {
    const ss = this.session(session);
    if (ss.up) return;
    ss.up = true;
    ss.upSince = this.ctx.sched.now;
    if (ss.holdTimerFlush !== -1) {
      this.ctx.sched.cancel(ss.holdTimerFlush);
      ss.holdTimerFlush = -1;
    }
    const s = this.speakers[ss.speaker]!;
    this.ctx.note('info', s.entity, 'bgp.session.up', `established a BGP session with ${ss.router.entity}`);
    for (const id of [...ss.sent]) if (!s.announced.has(id)) this.send(session, id, WITHDRAW);
    for (const id of s.announced) this.send(session, id, ANNOUNCE);
  }

  /** Every session of a speaker down (the node or its speaker pod goes away). */
  speakerDown(speaker: number, graceful: boolean): void {
    for (const session of this.speaker(speaker).sessions) this.sessionDown(session, graceful);
  }

  speakerUp(speaker: number): void {
    for (const session of this.speaker(speaker).sessions) this.sessionUp(session);
  }

  private send(session: number, prefix: number, kind: number): void {
    const ss = this.sessions[session]!;
    if (!ss.up || ss.sent.has(prefix) === (kind === ANNOUNCE)) return;
    if (kind === ANNOUNCE) ss.sent.add(prefix);
    else ss.sent.delete(prefix);
    this.ctx.sched.after(this.opts.convergenceDelay, this.deliverHandler, session, prefix * 2 + kind);
  }

  private deliver(session: number, update: number): void {
    const ss = this.sessions[session]!;
    const prefix = update >> 1;
    const s = this.speakers[ss.speaker]!;
    if ((update & 1) === ANNOUNCE) {
      ss.delivered.add(prefix);
      ss.router.learn(this.prefixes[prefix]!, s.nextHop, s.entity);
    } else {
      ss.delivered.delete(prefix);
      ss.router.forget(this.prefixes[prefix]!, s.nextHop, s.entity);
    }
  }

  private flushSession(session: number, why: number): void {
    const ss = this.sessions[session]!;
    const s = this.speakers[ss.speaker]!;
    if (why === HOLD_TIMER_EXPIRED) {
      ss.holdTimerFlush = -1;
      ss.sent.clear();
      const what = `hold timer expired for peer ${formatIpv4(s.nextHop)}; ${ss.delivered.size} route(s) withdrawn`;
      this.ctx.note('warn', ss.router.entity, 'bgp.hold_timer.expired', what, { cause: s.entity });
    }
    for (const prefix of ss.delivered) ss.router.forget(this.prefixes[prefix]!, s.nextHop, s.entity);
    ss.delivered.clear();
  }

  private prefixId(prefix: Cidr): number {
    const key = formatCidr(prefix);
    let id = this.prefixIds.get(key);
    if (id === undefined) {
      id = this.prefixes.length;
      this.prefixes.push(prefix);
      this.prefixIds.set(key, id);
    }
    return id;
  }

  private upSessions(s: Speaker): number {
    return s.sessions.filter((id) => this.sessions[id]!.up).length;
  }

  private speaker(id: number): Speaker {
    const s = this.speakers[id];
    if (s === undefined) throw new RangeError(`no BGP speaker ${id}`);
    return s;
  }

  private session(id: number): Session {
    const ss = this.sessions[id];
    if (ss === undefined) throw new RangeError(`no BGP session ${id}`);
    return ss;
  }
}
