import { formatCount } from '../core/format';
import type { Counter, Histogram } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, seconds, toMillis, type Duration, type SimTime } from '../core/time';
import type { SimContext } from '../context';
import type { DnsSystem } from '../dns/dns-system';
import type { LookupError, LookupReceiver } from '../dns/stub-resolver';
import type { InspectSection } from '../api';
import type { PodApp } from '../infra/pod';
import { formatIpv4 } from '../net/ipv4';
import { Payload, type PayloadId } from '../net/packet';
import { TcpState, type CloseCause, type Socket, type SocketOwner, type TcpStack } from '../net/tcp';
import { describeBackoff, fixedBackoff, GRPC_BACKOFF, RECONNECT_INTERVAL_MS, type BackoffConfig } from './grpc/backoff';
import { CallAttempts, CallPolicy, GIVE_UP, INCIDENT_RETRY_POLICY, NO_DEADLINE, type AttemptFailure } from './grpc/call-policy';
import { ClientTransport } from './grpc/client-transport';
import type { CohortHost, DialCohort } from './grpc/dial-cohort';
import type { LbHost, LbPolicy } from './grpc/lb-policy';
import { PICK_FIRST_DEFAULTS, PickFirstPolicy } from './grpc/pick-first';
import { NEVER, ResolutionLimiter, GRPC_GO_RESOLUTION } from './grpc/resolution-limiter';
import { RoundRobinPolicy } from './grpc/round-robin';
import { CONNECTIVITY_NAMES, type Subchannel } from './grpc/subchannel';
import { GrpcStatus, statusOf, streamOf } from './grpc/wire';
import { onMember } from '../core/snapshot';

/** How one gRPC client deployment behaves; every field is a knob under params.<deployment>. */
export interface GrpcClientSettings {
  lbPolicy: 'pick_first' | 'round_robin';
  reconnect: 'backoff' | 'fixed';
  reconnectIntervalMs: number;
  /** The shortest time a connection attempt is given (grpc-go MinConnectTimeout). */
  minConnectTimeoutMs: number;
  resolutionIntervalS: number;
  /** A ResolveNow inside the window: deferred to its end (grpc-go, C-core) or dropped (grpc-java). */
  resolverRefresh: 'defer' | 'drop';
  rpcsPerSecond: number;
  deadlineMs: number;
  maxAttempts: number;
}

/** How a deployment's channels redial, in words: "every 300 ms (a fixed interval)" or "by gRPC's backoff (1 s, …)". */
export function describeReconnect(s: GrpcClientSettings): string {
  return s.reconnect === 'fixed' ? `${describeBackoff(fixedBackoff(millis(s.reconnectIntervalMs)))} (a fixed interval)` : `by gRPC's backoff (${describeBackoff(GRPC_BACKOFF)})`;
}

export const GRPC_CLIENT_DEFAULTS: GrpcClientSettings = {
  // grpc-go's default LB policy is pick_first (docs/sources/grpc.md#load-balancing-policies).
  lbPolicy: 'pick_first',
  // The connection backoff spec (docs/sources/grpc.md#connection-backoff).
  reconnect: 'backoff',
  // Used when reconnect is fixed: the incident's custom 300 ms (apps/grpc/backoff.ts).
  reconnectIntervalMs: RECONNECT_INTERVAL_MS.default,
  // MIN_CONNECT_TIMEOUT 20 s (docs/sources/grpc.md#connection-backoff).
  minConnectTimeoutMs: 20_000,
  // MinResolutionInterval 30 s (docs/sources/grpc.md#dns-re-resolution).
  resolutionIntervalS: 30,
  resolverRefresh: 'defer',
  // Model choice: an alerting engine queries its metric service a couple of times a second.
  rpcsPerSecond: 2,
  // Model choice: a query gives up after 10 s across its attempts.
  deadlineMs: 10_000,
  // Model choice: clients retried, the talk gives no number (docs/sources/grpc.md#deadlines-and-retries;
  // call-policy.ts).
  maxAttempts: INCIDENT_RETRY_POLICY.maxAttempts,
};

/** Who runs a client: a pod (or any namespace with sockets) with a name for its log and random stream. */
export interface GrpcClientHost {
  entity: string;
  name: string;
  /** Network namespace, for DNS lookups. */
  ns: number;
  tcp: TcpStack;
}

interface Connection {
  sub: Subchannel;
  transport: ClientTransport;
  /** RPCs in flight on it, by stream id; made on the first RPC, as most dials of a reconnect storm never carry one. */
  streams: Map<number, Rpc> | null;
}

interface Rpc {
  id: number;
  startedAt: SimTime;
  attempts: CallAttempts;
  deadlineTimer: number;
  socket: number;
  streamId: number;
  done: boolean;
}

// Seconds from a pod's deletion until a client's resolver drops its address: steps of the 30 s resolution interval
const SWITCHOVER_BUCKETS = [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 75, 90, 105, 120, 150, 180];

// Latency buckets in ms, from a fast answer to a deadline.
const LATENCY_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];

/** Shared timers and instruments of every gRPC client. */
export class GrpcClients {
  readonly tick: HandlerId;
  readonly resolve: HandlerId;
  readonly backoff: HandlerId;
  readonly connectDeadline: HandlerId;
  readonly connectionDelay: HandlerId;
  readonly rpcDeadline: HandlerId;
  readonly retry: HandlerId;
  readonly m: {
    rpcs: Counter;
    ok: Counter;
    failed: Counter;
    failedBy: Record<string, Counter>;
    retries: Counter;
    latency: Histogram;
    connects: Counter;
    resolutions: Counter;
    switchover: Histogram;
  };
  private readonly clients: GrpcClient[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly dns: DnsSystem | null,
    /** When the pod that held an address was deleted, if it was. */
    readonly deletionTime: (ip: number) => SimTime | undefined,
    /** Runs attempts that end before a SYN retransmission without sockets of their own; null runs every one on a socket. */
    readonly cohort: DialCohort | null,
  ) {
    const m = ctx.metrics;
    this.m = {
      rpcs: m.counter('grpc.client.rpcs'),
      ok: m.counter('grpc.client.ok'),
      failed: m.counter('grpc.client.failed'),
      failedBy: Object.fromEntries(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'INTERNAL'].map((code) => [code, m.counter('grpc.client.failed', { code })])),
      retries: m.counter('grpc.client.retries'),
      latency: m.histogram('grpc.client.latency_ms', LATENCY_BUCKETS),
      connects: m.counter('grpc.client.connect_attempts'),
      resolutions: m.counter('grpc.client.resolutions'),
      switchover: m.histogram('grpc.client.switchover_s', SWITCHOVER_BUCKETS),
    };
    const s = ctx.sched;
    this.tick = s.register('grpc-client.tick', onMember(this.clients, 'onTick'));
    this.resolve = s.register('grpc-client.resolve', onMember(this.clients, 'onResolveTimer'));
    this.backoff = s.register('grpc-client.backoff', onMember(this.clients, 'onBackoff'));
    this.connectDeadline = s.register('grpc-client.connect-deadline', onMember(this.clients, 'onConnectDeadline'));
    this.connectionDelay = s.register('grpc-client.connection-delay', onMember(this.clients, 'onConnectionDelay'));
    this.rpcDeadline = s.register('grpc-client.deadline', onMember(this.clients, 'onDeadline'));
    this.retry = s.register('grpc-client.retry', onMember(this.clients, 'onRetry'));
  }

  create(host: GrpcClientHost, target: { hostname: string; port: number }, settings: GrpcClientSettings): GrpcClient {
    const client = new GrpcClient(this, this.clients.length, host, target, settings, this.ctx.rng.stream(`grpc-client/${host.name}`));
    this.clients.push(client);
    return client;
  }
}

/**
 * A gRPC channel to `hostname:port`: a DNS resolver behind gRPC's re-resolution limit, a pick_first or round_robin
 * policy over subchannels on real TCP connections (reconnecting by the backoff spec or at a fixed interval), and RPCs
 * at a Poisson rate with a deadline and retries. GOAWAY drains a connection; a reset or a lost connection sends its
 * subchannel IDLE and asks for re-resolution.
 */
export class GrpcClient implements PodApp, SocketOwner, LookupReceiver, LbHost, CohortHost {
  private readonly policy: LbPolicy;
  private readonly limiter: ResolutionLimiter;
  private readonly calls: CallPolicy;
  private readonly connections = new Map<number, Connection>();
  private readonly rpcs = new Map<number, Rpc>();
  private readonly waiting: Rpc[] = [];
  /** Closed connections kept for reuse: a reconnect storm opens thousands a second. */
  private readonly spare: Connection[] = [];
  /** Subchannels waiting for their backoff timer, by id (the timer carries numbers only). */
  private readonly backingOff = new Map<number, Subchannel>();
  private nextRpc = 0;
  private running = false;
  private addresses: readonly number[] = [];

  constructor(
    private readonly shared: GrpcClients,
    private readonly index: number,
    private readonly host: GrpcClientHost,
    private readonly target: { hostname: string; port: number },
    private readonly settings: GrpcClientSettings,
    private readonly rng: RngStream,
  ) {
    const minConnect = millis(settings.minConnectTimeoutMs);
    const backoff: BackoffConfig = settings.reconnect === 'fixed' ? fixedBackoff(millis(settings.reconnectIntervalMs), minConnect) : { ...GRPC_BACKOFF, minConnectTimeout: minConnect };
    this.policy = settings.lbPolicy === 'round_robin' ? new RoundRobinPolicy(this, { backoff }, rng) : new PickFirstPolicy(this, { ...PICK_FIRST_DEFAULTS, backoff }, rng);
    this.limiter = new ResolutionLimiter({ ...GRPC_GO_RESOLUTION, minInterval: seconds(settings.resolutionIntervalS), withinWindow: settings.resolverRefresh }, rng);
    this.calls = new CallPolicy({ deadline: millis(settings.deadlineMs), retry: settings.maxAttempts > 1 ? { ...INCIDENT_RETRY_POLICY, maxAttempts: settings.maxAttempts } : null }, rng);
  }

  private get ctx(): SimContext {
    return this.shared.ctx;
  }

  get stack(): TcpStack {
    return this.host.tcp;
  }

  get targetPort(): number {
    return this.target.port;
  }

  start(): void {
    this.running = true;
    this.resolveNow();
    this.scheduleTick();
  }

  terminate(exit: () => void): void {
    this.stop();
    exit();
  }

  inspect(): InspectSection[] {
    const s = this.settings;
    const subs = this.policy.subchannelStates();
    const shown = 16;
    return [
      {
        title: `gRPC channel to ${this.target.hostname}:${this.target.port}`,
        rows: [
          ['state', CONNECTIVITY_NAMES[this.policy.state]],
          ['LB policy', s.lbPolicy],
          ['reconnect', describeReconnect(s)],
          ['resolved addresses', formatCount(this.addresses.length)],
          ['RPCs in flight', formatCount(this.rpcs.size)],
          ['RPCs waiting for a pick', formatCount(this.waiting.length)],
        ],
      },
      {
        title: 'Subchannels',
        rows: subs.slice(0, shown).map((sub) => [formatIpv4(sub.address), CONNECTIVITY_NAMES[sub.state]]),
        ...(subs.length > shown ? { more: subs.length - shown } : {}),
      },
    ];
  }

  killed(): void {
    this.stop();
  }

  private stop(): void {
    this.running = false;
    this.policy.shutdown();
  }

  // The resolver.

  resolveNow(): void {
    const at = this.limiter.request(this.ctx.sched.now);
    if (at !== NEVER) this.ctx.sched.at(at as SimTime, this.shared.resolve, this.index);
  }

  onResolveTimer(): void {
    if (!this.running || !this.limiter.due(this.ctx.sched.now)) return;
    const dns = this.shared.dns;
    if (!dns) return;
    this.shared.m.resolutions.inc();
    dns.stub.lookup(this.host.ns, dns.conf, this.target.hostname, this, 0);
  }

  onResolved(_token: number, addresses: readonly number[]): void {
    if (!this.running) return;
    if (!sameSet(addresses, this.addresses)) {
      const now = this.ctx.sched.now;
      for (const gone of this.addresses) {
        if (addresses.includes(gone)) continue;
        const deleted = this.shared.deletionTime(gone);
        if (deleted !== undefined) this.shared.m.switchover.observe((now - deleted) / 1e6);
      }
      this.addresses = [...addresses];
      const list = addresses.map(formatIpv4).join(', ');
      this.ctx.note('debug', this.host.entity, 'grpc.client.resolved', `${this.target.hostname} → ${list}`);
      this.policy.updateAddresses(this.addresses);
    }
    this.rearm(this.limiter.resolved(this.ctx.sched.now, true));
  }

  onLookupFailed(_token: number, _error: LookupError): void {
    if (this.running) this.rearm(this.limiter.resolved(this.ctx.sched.now, false));
  }

  private rearm(at: number): void {
    if (at !== NEVER) this.ctx.sched.at(at as SimTime, this.shared.resolve, this.index);
  }

  // The LB policy's host: transports and timers.

  connect(sub: Subchannel, timeout: Duration): number {
    this.shared.m.connects.inc();
    const cohort = this.shared.cohort;
    if (cohort?.takes(timeout)) return cohort.dial(this, sub, timeout);
    const socket = this.host.tcp.connect(sub.address, this.target.port, this);
    this.adopt(sub, socket, this.ctx.sched.now + timeout);
    return socket.id;
  }

  /** Takes `socket` as the transport being dialled for `sub`, with its connect deadline at `deadline`. */
  adopt(sub: Subchannel, socket: Socket, deadline: number): void {
    const conn = this.spare.pop() ?? { sub, transport: new ClientTransport(socket.id), streams: null };
    conn.sub = sub;
    conn.transport.reset(socket.id);
    conn.streams = null;
    this.connections.set(socket.id, conn);
    this.ctx.sched.at(deadline as SimTime, this.shared.connectDeadline, this.index, socket.id);
  }

  startBackoff(sub: Subchannel, wait: Duration): void {
    if (this.shared.cohort?.backoff(sub, wait)) return;
    this.backingOff.set(sub.id, sub);
    this.ctx.sched.after(wait, this.shared.backoff, this.index, sub.id);
  }

  disconnect(sub: Subchannel, connection: number): void {
    const socket = this.socket(this.shared.cohort ? this.shared.cohort.socketFor(sub, connection) : connection);
    if (socket) this.host.tcp.close(socket);
  }

  startConnectionDelay(token: number, delay: Duration): void {
    this.ctx.sched.after(delay, this.shared.connectionDelay, this.index, token);
  }

  pickerChanged(): void {
    if (this.waiting.length === 0) return;
    const waiting = this.waiting.splice(0);
    for (const rpc of waiting) if (!rpc.done) this.attempt(rpc);
  }

  onBackoff(id: number): void {
    const sub = this.backingOff.get(id);
    if (!sub) return;
    this.backingOff.delete(id);
    sub.backoffDone();
  }

  onConnectionDelay(token: number): void {
    this.policy.connectionDelayExpired(token);
  }

  onConnectDeadline(socketId: number): void {
    const socket = this.socket(socketId);
    if (socket && socket.state === TcpState.synSent) this.host.tcp.close(socket);
  }

  // The transport.

  onConnected(socket: Socket): void {
    this.connections.get(socket.id)?.sub.connected(socket.id);
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    const conn = this.connections.get(socket.id);
    if (!conn) return;
    switch (payload) {
      case Payload.ping:
        this.host.tcp.send(socket, Payload.pingAck, 0);
        return;
      case Payload.goaway:
        if (conn.transport.goaway(message)) conn.sub.transportClosed(socket.id);
        for (const [streamId, rpc] of conn.streams ?? []) {
          if (!conn.transport.refused(streamId)) continue;
          conn.streams!.delete(streamId);
          this.failed(rpc, 'refused');
        }
        this.closeIfDrained(socket, conn);
        return;
      case Payload.response: {
        const streamId = streamOf(message);
        const rpc = conn.streams?.get(streamId);
        if (!rpc) return;
        conn.streams!.delete(streamId);
        const status = statusOf(message);
        if (status === GrpcStatus.ok) this.succeeded(rpc);
        else this.failed(rpc, status === GrpcStatus.refused ? 'refused' : status === GrpcStatus.internal ? 'INTERNAL' : 'UNAVAILABLE');
        this.closeIfDrained(socket, conn);
        return;
      }
    }
  }

  onClosed(socket: Socket, _cause: CloseCause): void {
    const conn = this.connections.get(socket.id);
    if (!conn) return;
    this.connections.delete(socket.id);
    conn.sub.transportClosed(socket.id);
    if (conn.streams) for (const rpc of conn.streams.values()) this.failed(rpc, 'UNAVAILABLE');
    this.spare.push(conn);
  }

  private closeIfDrained(socket: Socket, conn: Connection): void {
    if (conn.transport.draining && (conn.streams?.size ?? 0) === 0) {
      this.connections.delete(socket.id);
      this.spare.push(conn);
      this.host.tcp.close(socket);
    }
  }

  // RPCs.

  onTick(): void {
    if (!this.running) return;
    const now = this.ctx.sched.now;
    const rpc: Rpc = { id: this.nextRpc++, startedAt: now, attempts: new CallAttempts(), deadlineTimer: -1, socket: -1, streamId: -1, done: false };
    this.rpcs.set(rpc.id, rpc);
    this.shared.m.rpcs.inc();
    const deadline = this.calls.start(rpc.attempts, now);
    if (deadline !== NO_DEADLINE) rpc.deadlineTimer = this.ctx.sched.at(deadline as SimTime, this.shared.rpcDeadline, this.index, rpc.id);
    this.attempt(rpc);
    this.scheduleTick();
  }

  onRetry(id: number): void {
    const rpc = this.rpcs.get(id);
    if (rpc && !rpc.done) this.attempt(rpc);
  }

  onDeadline(id: number): void {
    const rpc = this.rpcs.get(id);
    if (!rpc || rpc.done) return;
    rpc.deadlineTimer = -1;
    this.finish(rpc, 'DEADLINE_EXCEEDED');
  }

  private attempt(rpc: Rpc): void {
    if (!this.running) return;
    const pick = this.policy.pick();
    if (pick === 'queue') {
      this.waiting.push(rpc);
      return;
    }
    if (pick === 'fail') {
      this.failed(rpc, 'UNAVAILABLE');
      return;
    }
    const conn = this.connections.get(pick.connection);
    const socket = this.socket(pick.connection);
    const streamId = conn && socket ? conn.transport.openStream() : -1;
    if (!conn || !socket || streamId < 0) {
      this.waiting.push(rpc);
      return;
    }
    rpc.socket = socket.id;
    rpc.streamId = streamId;
    (conn.streams ??= new Map()).set(streamId, rpc);
    this.host.tcp.send(socket, Payload.request, streamId);
  }

  private succeeded(rpc: Rpc): void {
    this.shared.m.ok.inc();
    this.shared.m.latency.observe(toMillis((this.ctx.sched.now - rpc.startedAt) as Duration));
    this.finish(rpc, null);
  }

  private failed(rpc: Rpc, failure: AttemptFailure): void {
    if (rpc.done) return;
    const wait = this.calls.afterFailure(rpc.attempts, failure, this.ctx.sched.now);
    if (wait === GIVE_UP) {
      this.finish(rpc, failure === 'refused' || failure === 'not_sent' ? 'UNAVAILABLE' : failure);
      return;
    }
    this.shared.m.retries.inc();
    this.ctx.sched.after(wait as Duration, this.shared.retry, this.index, rpc.id);
  }

  private finish(rpc: Rpc, code: string | null): void {
    rpc.done = true;
    this.rpcs.delete(rpc.id);
    if (rpc.deadlineTimer >= 0) this.ctx.sched.cancel(rpc.deadlineTimer);
    if (rpc.socket >= 0) this.connections.get(rpc.socket)?.streams?.delete(rpc.streamId);
    if (code === null) return;
    this.shared.m.failed.inc();
    this.shared.m.failedBy[code]?.inc();
  }

  private scheduleTick(): void {
    const gapMs = this.rng.exponential(1000 / this.settings.rpcsPerSecond);
    this.ctx.sched.after(millis(gapMs), this.shared.tick, this.index);
  }

  private socket(id: number): Socket | undefined {
    return this.host.tcp.tcp.sockets.get(id);
  }
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
