import type { HandlerId } from '../../core/scheduler';
import type { Counter } from '../../core/metrics';
import type { Duration, SimTime } from '../../core/time';
import type { SimContext } from '../../context';
import type { AnonymousFlowOwner, AnonymousFlows } from '../../net/anonymous-flows';
import { TcpFlag } from '../../net/packet';
import type { AnonymousAttempt, Socket, SocketOwner, Tcp, TcpStack } from '../../net/tcp';
import { Connectivity, type Subchannel } from './subchannel';
import { bound } from '../../core/snapshot';

/** What the cohort needs of the channel that owns a subchannel: its transport side. */
export interface CohortHost extends SocketOwner {
  readonly stack: TcpStack;
  readonly targetPort: number;
  /** Takes over an attempt made real: its socket and the connect deadline at `deadline`. */
  adopt(sub: Subchannel, socket: Socket, deadline: number): void;
  /** The subchannel's failed attempt asks the resolver to look again (SubchannelHost.resolveNow). */
  resolveNow(): void;
}

const DEADLINE = 0;
const BACKOFF = 1;

/** A subchannel that has dialled anonymously at least once, and its attempt in flight if any. */
export class Member implements AnonymousAttempt {
  /** The attempt's connection id while it runs anonymously (below -1, apart from socket ids), else -1. */
  connection = -1;
  /** The socket id an attempt made real during its own dial got, for the dial to return. */
  realized = -1;
  port = 0;
  sentAt = 0;
  timeout = 0;
  generation = 0;
  /** A backoff timer is pending: the first of its entries to come runs it (as one timer would). */
  backingOff = false;
  /**
   * Its backoff is fixed (no growth, no jitter): every attempt gets the same time and every failure the same wait, so
   * its redial loop is the same each turn; the wait, when it is.
   */
  readonly fixed: boolean;
  readonly wait: number;

  constructor(
    readonly index: number,
    readonly flow: number,
    readonly host: CohortHost,
    readonly sub: Subchannel,
    private readonly cohort: DialCohort,
  ) {
    const config = sub.backoff.config;
    this.fixed = config.multiplier === 1 && config.jitter === 0;
    this.wait = config.baseDelay;
  }

  materialize(): void {
    this.cohort.realize(this.index);
  }
}

/**
 * The attempts of subchannels that redial faster than a SYN is retransmitted, run as a cohort. In the incident
 * thousands of round_robin channels redial every old address every 300 ms, each attempt given 300 ms: every attempt
 * is a fresh port, its one SYN is dropped or reset, and its socket is gone before the kernel would send the SYN again
 * (initial RTO 1 s). Nothing can tell two such attempts apart but their tuple, which no later packet carries.
 *
 * So an attempt whose connect timeout is shorter than the initial RTO runs without a socket or timers of its own:
 * its port is reserved, its SYN is an anonymous packet (net/anonymous-flows.ts) that crosses every stage like any
 * other, and the connect deadlines and backoff timers of attempts due at the same instant share one event ("wave"),
 * which runs them in the order their own timers would have run. Everything else is the subchannel's own state machine
 * and its channel's, called exactly as with sockets: gRPC's counters, resolver requests and picker changes come out
 * the same.
 *
 * The moment identity matters the attempt becomes an ordinary connection, at the same point of its life: its packet
 * reaches a listener that takes it, a router, a load balancer or a host process (AnonymousFlows.promote); its
 * subchannel is shut down; its pod's sockets are enumerated (a killed or deleted pod). It then gets the socket, the SYN
 * retransmission timer and the connect deadline it would have had since its SYN left, and its conntrack entries are
 * hashed. Connection ids count down from -2 (socket ids count up from 0), far inside the Int32 the waves store.
 */
export class DialCohort implements AnonymousFlowOwner {
  private readonly members: Member[] = [];
  private readonly byFlow: number[] = [];
  /**
   * Open waves by time, and each wave's entries (kind, member, and the connection a deadline is for) in an array that
   * keeps its room between uses, with how many of its slots are in use.
   */
  private readonly waveAt = new Map<number, number>();
  private readonly waves: Int32Array[] = [];
  private readonly waveLength: number[] = [];
  private readonly freeWaves: number[] = [];
  private readonly waveHandler: HandlerId;
  private readonly connects: Counter;
  private nextConnection = -2;
  /** The wave entries were last added to: a wave's members mostly go on to the same next one. */
  private lastTime = -1;
  private lastWave = -1;

  constructor(
    private readonly ctx: SimContext,
    private readonly tcp: Tcp,
    private readonly flows: AnonymousFlows,
  ) {
    this.waveHandler = ctx.sched.register('grpc-client.wave', bound(this, this.onWave));
    this.connects = ctx.metrics.counter('grpc.client.connect_attempts');
  }

  /** Whether an attempt given `timeout` can run in the cohort: it ends before its SYN could be sent a second time. */
  takes(timeout: Duration): boolean {
    return timeout < this.tcp.initialRto;
  }

  /** Dials `sub` anonymously; returns the attempt's connection id (a socket id if it had to be made real at once). */
  dial(host: CohortHost, sub: Subchannel, timeout: Duration): number {
    const m = this.memberOf(host, sub);
    const stack = host.stack;
    m.port = stack.reservePort(m);
    m.sentAt = this.ctx.sched.now;
    m.timeout = timeout;
    m.realized = -1;
    const connection = (m.connection = this.nextConnection--);
    m.generation = this.flows.begin(m.flow, stack.ns, stack.ip, m.port);
    stack.sendAnonymousSyn(m.port, sub.address, host.targetPort, m.flow, m.generation);
    if (m.realized >= 0) return m.realized;
    this.add(m.sentAt + timeout, DEADLINE, m.index, connection);
    return connection;
  }

  /** The backoff timer of a member's subchannel, as an entry of the wave at its time. */
  backoff(sub: Subchannel, wait: Duration): boolean {
    if (sub.cohort < 0) return false;
    this.members[sub.cohort]!.backingOff = true;
    this.add(this.ctx.sched.now + wait, BACKOFF, sub.cohort, 0);
    return true;
  }

  /** The socket id of a subchannel's connection: an anonymous attempt is made real first (its subchannel is being shut down). */
  socketFor(sub: Subchannel, connection: number): number {
    if (connection >= -1 || sub.cohort < 0) return connection;
    const m = this.members[sub.cohort]!;
    if (m.connection !== connection) return -1;
    this.realize(m.index);
    return m.realized;
  }

  materialize(flow: number): void {
    this.realize(this.byFlow[flow]!);
  }

  replied(flow: number, generation: number, flags: number): void {
    const m = this.members[this.byFlow[flow]!]!;
    // A reply to an attempt that has ended finds no socket: the kernel discards it.
    if (m.connection === -1 || generation !== m.generation || !(flags & TcpFlag.RST)) return;
    this.tcp.rstReceived.inc();
    this.fail(m);
  }

  /** Gives the member's attempt in flight the socket and deadline it would have had since its SYN left. */
  realize(index: number): void {
    const m = this.members[index]!;
    const connection = m.connection;
    if (connection === -1) return;
    m.connection = -1;
    const socket = m.host.stack.adopt(m.port, m.sub.address, m.host.targetPort, m.host, m.sentAt);
    m.realized = socket.id;
    m.host.adopt(m.sub, socket, m.sentAt + m.timeout);
    if (m.sub.connection === connection) m.sub.connection = socket.id;
  }

  private memberOf(host: CohortHost, sub: Subchannel): Member {
    if (sub.cohort >= 0) return this.members[sub.cohort]!;
    const index = this.members.length;
    const m = new Member(index, this.flows.open(this), host, sub, this);
    this.members.push(m);
    this.byFlow[m.flow] = index;
    sub.cohort = index;
    return m;
  }

  /** The attempt failed (unanswered by its deadline, or reset): its socket would close now. */
  private fail(m: Member): void {
    this.tcp.connectFailed.inc();
    m.host.stack.releasePort(m.port);
    const connection = m.connection;
    m.connection = -1;
    const sub = m.sub;
    if (!this.inLoop(m) || sub.state !== Connectivity.connecting || sub.connection !== connection) {
      sub.transportClosed(connection);
      return;
    }
    // Subchannel.transportClosed, with the policy's part left out: it would note a failure it has noted already.
    sub.connection = -1;
    m.host.resolveNow();
    this.backoff(sub, m.wait as Duration);
    sub.state = Connectivity.transientFailure;
  }

  /** The backoff timer of a member fired. */
  private backoffDone(m: Member): void {
    const sub = m.sub;
    if (!this.inLoop(m) || sub.state !== Connectivity.transientFailure) {
      sub.backoffDone();
      return;
    }
    // Subchannel.backoffDone, then connect() as its policy would call it: IDLE, an attempt, CONNECTING. A fixed
    // backoff gives every attempt the time the member's last one had, and its failure count changes nothing it does.
    sub.state = Connectivity.idle;
    this.connects.inc();
    sub.connection = this.dial(m.host, sub, m.timeout as Duration);
    sub.state = Connectivity.connecting;
  }

  /** The member's subchannel redials on its own, with nothing but the cohort to tell (its policy is inert). */
  private inLoop(m: Member): boolean {
    return m.sub.inert && m.fixed && m.timeout > 0;
  }

  private add(time: number, kind: number, member: number, connection: number): void {
    let wave = time === this.lastTime ? this.lastWave : this.waveAt.get(time);
    if (wave === undefined) {
      wave = this.freeWaves.pop() ?? this.waves.push(new Int32Array(48)) - 1;
      this.waveLength[wave] = 0;
      this.waveAt.set(time, wave);
      this.ctx.sched.at(time as SimTime, this.waveHandler, wave);
    }
    this.lastTime = time;
    this.lastWave = wave;
    let entries = this.waves[wave]!;
    const at = this.waveLength[wave]!;
    if (at + 3 > entries.length) {
      const grown = new Int32Array(entries.length * 2);
      grown.set(entries);
      this.waves[wave] = entries = grown;
    }
    entries[at] = kind;
    entries[at + 1] = member;
    entries[at + 2] = connection;
    this.waveLength[wave] = at + 3;
  }

  private onWave(wave: number): void {
    this.waveAt.delete(this.ctx.sched.now);
    if (this.lastWave === wave) this.lastTime = -1;
    const entries = this.waves[wave]!;
    const length = this.waveLength[wave]!;
    for (let i = 0; i < length; i += 3) {
      const m = this.members[entries[i + 1]!]!;
      if (entries[i] === BACKOFF) {
        if (m.backingOff) {
          m.backingOff = false;
          this.backoffDone(m);
        }
      } else if (m.connection === entries[i + 2]) this.fail(m);
    }
    this.freeWaves.push(wave);
  }
}
