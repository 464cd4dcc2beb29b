import type { SimContext } from '../context';
import type { EventHandle, HandlerId } from '../core/scheduler';
import { millis, seconds, toSeconds, type Duration, type SimTime } from '../core/time';
import { formatCidr, formatIpv4, type Cidr } from '../net/ipv4';
import type { BgpParams } from './bgp-params';
import type { Router } from './router';
import { bound } from '../core/snapshot';

export interface BgpOptions {
  /** From an UPDATE leaving the speaker to the router forwarding by it: UPDATE processing, best path, FIB programming. */
  convergenceDelay: Duration;
  /** The router drops a silent peer's routes this long after its last KEEPALIVE. */
  holdTime: Duration;
  /** Interval between the speaker's KEEPALIVEs, which fixes when the hold timer fires after a silent failure. */
  keepaliveTime: Duration;
  /** BFD on every session, or null: the router declares a peer whose forwarding path died down `detectTime` after its last BFD packet. */
  bfd: { interval: Duration; detectTime: Duration } | null;
  /** Graceful restart negotiated on every session, or null: how long the router keeps a lost peer's routes as stale. */
  restartTime: Duration | null;
}

export const BGP_DEFAULTS: BgpOptions = {
  // Model choice: 500 ms, a few hundred ms of UPDATE processing and FIB programming on a ToR for a handful of /32s.
  convergenceDelay: millis(500),
  // RFC 4271 §10 suggests HoldTime 90 s; MetalLB's BGPPeer holdTime defaults to 90 s as well
  // (docs/sources/load-balancers.md#bgp-timers).
  holdTime: seconds(90),
  // RFC 4271 §10: KeepaliveTime one third of HoldTime, 30 s.
  keepaliveTime: seconds(30),
  bfd: null,
  restartTime: null,
};

/** The options a scenario's `params.bgp` sets. */
export function bgpOptions(p: BgpParams): BgpOptions {
  const holdTime = seconds(p.holdTimeS);
  // RFC 5880 §6.8.4: packets come every max(our RequiredMinRx, their DesiredMinTx), and the session goes down after
  // DetectMult of them are missed; both ends use the same profile here (docs/sources/load-balancers.md#bfd).
  const interval = millis(Math.max(p.bfd.receiveIntervalMs, p.bfd.transmitIntervalMs));
  return {
    convergenceDelay: millis(p.convergenceMs),
    holdTime,
    // RFC 4271 §10 suggests a KeepaliveTime of one third of the HoldTime (docs/sources/load-balancers.md#bgp-timers).
    keepaliveTime: Math.floor(holdTime / 3) as Duration,
    bfd: p.bfd.enabled ? { interval, detectTime: (interval * p.bfd.detectMultiplier) as Duration } : null,
    restartTime: p.gracefulRestart.enabled ? seconds(p.gracefulRestart.restartTimeS) : null,
  };
}

/**
 * How a session ends, as the router sees it. `cease`: the speaker closes it cleanly (NOTIFICATION Cease). `restart`: a
 * planned restart of the speaker. `silent`: the speaker's BGP stops talking while its node still forwards (a hung
 * daemon). `dark`: the node and its link are gone (power loss): no KEEPALIVE, no BFD packet, nothing forwarded.
 */
export type SessionEnd = 'cease' | 'restart' | 'silent' | 'dark';

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
  /** The pending flush of every route of this session (hold timer, BFD, restart timer), or -1. */
  pendingFlush: EventHandle;
}

const WITHDRAW = 0;
const ANNOUNCE = 1;
const CLOSED = 0;
const HOLD_TIMER_EXPIRED = 1;
const BFD_DOWN = 2;
const RESTART_TIMER_EXPIRED = 3;

/**
 * MetalLB-style BGP between speakers (one per node, identified by its next-hop address) and routers. A speaker
 * announces or withdraws prefixes (LoadBalancer /32s); each router learns of it after the convergence delay, and
 * routes that differ only in next hop join one ECMP group in the order they arrived. A session that closes
 * gracefully takes its routes with it after the convergence delay; one that goes silent keeps them until the
 * router's hold timer fires (or BFD notices a dead node first); with graceful restart the router keeps them longer, as
 * stale routes.
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
    if (this.opts.bfd && !(this.opts.bfd.interval > 0 && this.opts.bfd.detectTime >= this.opts.bfd.interval)) {
      throw new RangeError('BFD interval must be positive and detectTime at least one interval');
    }
    this.deliverHandler = ctx.sched.register('bgp/update', bound(this, this.deliver));
    this.flushHandler = ctx.sched.register('bgp/flush', bound(this, this.flushSession));
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
    this.sessions.push({ speaker, router, up: false, upSince: now, sent: new Set(), delivered: new Set(), pendingFlush: -1 });
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
   * Ends a session (see SessionEnd). A clean close withdraws the session's routes after the convergence delay. A planned
   * restart under graceful restart leaves them in place, stale, for the Restart Time (RFC 4724 §4.2); without it, it is
   * a clean close. A silent or dark peer keeps them until the router notices: the hold timer, holdTime after the last
   * KEEPALIVE it received, or for a dark node BFD, detectTime after the last BFD packet, whichever comes first.
   */
  sessionDown(session: number, end: SessionEnd): void {
    const ss = this.session(session);
    if (!ss.up) return;
    ss.up = false;
    const s = this.speakers[ss.speaker]!;
    const now = this.ctx.sched.now;
    const { holdTime, keepaliveTime, convergenceDelay, bfd, restartTime } = this.opts;
    if (end === 'cease' || (end === 'restart' && restartTime === null)) {
      ss.sent.clear();
      this.ctx.sched.after(convergenceDelay, this.flushHandler, session, CLOSED);
      this.ctx.note('info', s.entity, 'bgp.session.down', `closed its BGP session with ${ss.router.entity}; routes withdrawn`);
      return;
    }
    if (end === 'restart') {
      // RFC 4724 §4.2 (docs/sources/load-balancers.md#graceful-restart).
      ss.pendingFlush = this.ctx.sched.after(restartTime!, this.flushHandler, session, RESTART_TIMER_EXPIRED);
      const kept = `the router keeps its ${ss.delivered.size} route(s) as stale for up to ${toSeconds(restartTime!)} s (graceful restart)`;
      this.ctx.note('info', s.entity, 'bgp.session.down', `restarts its BGP session with ${ss.router.entity}; ${kept}`);
      return;
    }
    const lastKeepalive = ss.upSince + Math.floor((now - ss.upSince) / keepaliveTime) * keepaliveTime;
    const holdExpiry = lastKeepalive + holdTime;
    const lastBfd = bfd === null ? 0 : ss.upSince + Math.floor((now - ss.upSince) / bfd.interval) * bfd.interval;
    const byBfd = end === 'dark' && bfd !== null && lastBfd + bfd.detectTime < holdExpiry;
    const detectedAt = (byBfd ? lastBfd + bfd.detectTime : holdExpiry) as SimTime;
    ss.pendingFlush = this.ctx.sched.at((detectedAt + convergenceDelay) as SimTime, this.flushHandler, session, byBfd ? BFD_DOWN : HOLD_TIMER_EXPIRED);
    const by = byBfd ? 'BFD declares it down' : 'the hold timer fires';
    const detail = {
      router: ss.router.entity,
      nextHop: s.nextHop,
      end,
      detection: byBfd ? 'BFD' : 'hold timer',
      lastKeepaliveAt: lastKeepalive,
      holdTimeS: toSeconds(holdTime),
      detectedAt,
      staleS: restartTime !== null && !byBfd ? toSeconds(restartTime) : 0,
    };
    this.ctx.causes.record('bgp_peer_lost', s.entity, now, detail);
    this.ctx.note('warn', s.entity, 'bgp.session.down', `lost its BGP session with ${ss.router.entity}; the router keeps its routes until ${by} at ${toSeconds(detectedAt)} s`);
  }

  /**
   * Re-establishes a session. The speaker sends what changed since the router last heard from it; routes it kept
   * (stale under graceful restart, or held for a silent peer) stay where they are in the ECMP group. Model choice: a
   * peer back before the hold timer fired keeps its routes even without graceful restart, as a hung speaker that
   * resumes in time does; a rebooted node's new session would reset the old one instead (RFC 4271 §6.8), which the
   * model does not do.
   */
  sessionUp(session: number): void {
    const ss = this.session(session);
    if (ss.up) return;
    ss.up = true;
    ss.upSince = this.ctx.sched.now;
    if (ss.pendingFlush !== -1) {
      this.ctx.sched.cancel(ss.pendingFlush);
      ss.pendingFlush = -1;
    }
    const s = this.speakers[ss.speaker]!;
    this.ctx.note('info', s.entity, 'bgp.session.up', `established a BGP session with ${ss.router.entity}`);
    for (const id of [...ss.sent]) if (!s.announced.has(id)) this.send(session, id, WITHDRAW);
    for (const id of s.announced) this.send(session, id, ANNOUNCE);
  }

  /** Every session of a speaker down (the node or its speaker pod goes away). */
  speakerDown(speaker: number, end: SessionEnd): void {
    for (const session of this.speaker(speaker).sessions) this.sessionDown(session, end);
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
    if (why !== CLOSED) ss.pendingFlush = -1;
    const peer = formatIpv4(s.nextHop);
    const restartTime = this.opts.restartTime;
    if (why === HOLD_TIMER_EXPIRED && restartTime !== null) {
      // RFC 8538: under graceful restart an expired hold timer starts RFC 4724's stale-route keeping, not a reset
      // (docs/sources/load-balancers.md#graceful-restart).
      ss.pendingFlush = this.ctx.sched.after(restartTime, this.flushHandler, session, RESTART_TIMER_EXPIRED);
      const what = `hold timer expired for peer ${peer}; its ${ss.delivered.size} route(s) kept as stale for ${toSeconds(restartTime)} s (graceful restart)`;
      this.ctx.note('warn', ss.router.entity, 'bgp.hold_timer.expired', what, { cause: s.entity });
      return;
    }
    if (why !== CLOSED) {
      ss.sent.clear();
      const kind = why === HOLD_TIMER_EXPIRED ? 'bgp.hold_timer.expired' : why === BFD_DOWN ? 'bgp.bfd.down' : 'bgp.restart_timer.expired';
      const event = why === HOLD_TIMER_EXPIRED ? 'hold timer expired' : why === BFD_DOWN ? 'BFD session down' : 'restart timer expired';
      this.ctx.note('warn', ss.router.entity, kind, `${event} for peer ${peer}; ${ss.delivered.size} route(s) withdrawn`, { cause: s.entity });
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
