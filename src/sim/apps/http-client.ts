import type { ClientParams } from './http-client-params';
import type { Counter, Histogram } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, toMillis, type Duration, type SimTime } from '../core/time';
import type { SimContext } from '../context';
import type { PodApp } from '../infra/pod';
import { formatIpv4 } from '../net/ipv4';
import type { ForwardedFor } from '../net/forwarded';
import { Payload, type PayloadId } from '../net/packet';
import { TcpState, type CloseCause, type Socket, type SocketOwner, type Tcp, type TcpStack } from '../net/tcp';
import { HTTP_BAD_GATEWAY } from './http-request';
import { bound, onMember } from '../core/snapshot';

/** Where a client sends its requests: a Service's ClusterIP, a load balancer's virtual server, a node port. */
export interface HttpTarget {
  name: string;
  ip: number;
  port: number;
}

/** Who runs a client: a pod, or a machine outside the cluster. */
export interface HttpClientHost {
  entity: string;
  name: string;
  tcp: TcpStack;
}

/** `bad_gateway`: a proxy on the way answered with a 5xx because its own upstream request failed. */
export type FailureReason = 'timeout' | 'no_connection' | 'connection_closed' | 'bad_gateway';
const FAILURE_REASONS: FailureReason[] = ['timeout', 'no_connection', 'connection_closed', 'bad_gateway'];

/** Told the HTTP status a request ended with; a request that failed without an answer ends as a 502. */
export type RequestDone = (status: number) => void;

interface Pending {
  sentAt: SimTime;
  socket: Socket;
  timer: number;
  done: RequestDone | null;
}

export interface HttpClientOptions {
  /** An X-Forwarded-For header the client writes into every request itself (a spoofing client's lie). */
  forwardedFor?: ForwardedFor | null;
  /** Sends nothing on its own: a proxy drives it with `forward`. */
  driven?: boolean;
}

// Model choice: one request in 47 of each client keeps its journey, enough for the inspector without slowing runs; a
// prime, so the sampled requests take turns on all of a client's connections instead of the same few.
const JOURNEY_EVERY = 47;

// Latency buckets in ms: sub-millisecond fabric hops up to multi-second timeouts.
const LATENCY_BUCKETS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/** Shared timers and instruments of every HTTP client instance. */
export class HttpClients {
  readonly tick: HandlerId;
  readonly reconnect: HandlerId;
  readonly connectTimeout: HandlerId;
  readonly requestTimeout: HandlerId;
  readonly rateEnd: HandlerId;
  readonly sent: Counter;
  readonly ok: Counter;
  readonly failed: Counter;
  readonly failedBy: Record<FailureReason, Counter>;
  readonly reconnects: Counter;
  /** Connection attempts that got established, and those that never did (timed out, reset or refused). */
  readonly connected: Counter;
  readonly connectFailed: Counter;
  /** Established connections a reset ended: the peer (or whoever now gets the flow) knew nothing of them. */
  readonly resetEstablished: Counter;
  readonly latency: Histogram;
  private readonly clients: HttpClient[] = [];

  /** `prefix` names another family of instruments, so a proxy's upstream requests are not counted as clients'. */
  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
    /** Every client's connections, rate, timeouts and reconnect delay (`params.client`). */
    readonly settings: ClientParams,
    prefix = '',
  ) {
    const m = ctx.metrics;
    this.sent = m.counter(`${prefix}requests.sent`);
    this.ok = m.counter(`${prefix}requests.ok`);
    this.failed = m.counter(`${prefix}requests.failed`);
    this.failedBy = Object.fromEntries(FAILURE_REASONS.map((reason) => [reason, m.counter(`${prefix}requests.failed`, { reason })])) as Record<FailureReason, Counter>;
    this.reconnects = m.counter(`${prefix}client.reconnects`);
    this.connected = m.counter(`${prefix}client.connections.ok`);
    this.connectFailed = m.counter(`${prefix}client.connections.failed`);
    this.resetEstablished = m.counter(`${prefix}client.connections.reset`);
    this.latency = m.histogram(`${prefix}requests.latency_ms`, LATENCY_BUCKETS);
    const s = ctx.sched;
    const name = prefix === '' ? 'http-client' : `${prefix}http-client`;
    this.tick = s.register(`${name}.tick`, onMember(this.clients, 'onTick', true));
    this.reconnect = s.register(`${name}.reconnect`, onMember(this.clients, 'onReconnect', true));
    this.connectTimeout = s.register(`${name}.connect-timeout`, bound(this, this.onConnectTimeout));
    this.requestTimeout = s.register(`${name}.request-timeout`, onMember(this.clients, 'onRequestTimeout', true));
    this.rateEnd = s.register(`${name}.rate-end`, onMember(this.clients, 'onRateEnd', true));
  }

  create(host: HttpClientHost, target: HttpTarget, options: HttpClientOptions = {}): HttpClient {
    const index = this.clients.length;
    const client = new HttpClient(this, index, host, target, this.ctx.rng.stream(`http-client/${host.name}`), options);
    this.clients.push(client);
    return client;
  }

  private onConnectTimeout(socketId: number): void {
    const socket = this.tcp.sockets.get(socketId);
    if (socket && socket.state === TcpState.synSent) socket.stack.close(socket);
  }
}

/**
 * Sends requests at a Poisson rate to a target. `pool`: over a fixed number of keep-alive connections, each redialled
 * `reconnectMs` after it fails or closes. `per-request`: each request dials a connection of its own, however many are
 * dialling already, and closes it once answered.
 */
export class HttpClient implements PodApp, SocketOwner {
  private readonly slots: (Socket | null)[];
  /** Requests answered on each slot's current connection, for requestsPerConnection. */
  private readonly served: number[];
  private readonly pending = new Map<number, Pending>();
  /** Per-request connections still in their handshake, with the request each will carry. */
  private readonly dialing = new Map<Socket, { message: number; createdAt: SimTime; done: RequestDone | null }>();
  private readonly perRequest: boolean;
  /** Whether each slot's current connection completed its handshake. */
  private readonly handshaken: boolean[];
  private requestCount = 0;
  private roundRobin = 0;
  private running = false;
  private tickTimer = -1;
  /** The request rate is params.client.requestsPerSecond times this; a load spike raises it for a while. */
  private rateFactor = 1;
  /** Counts rate changes, so only the latest spike's end restores the rate. */
  private rateGeneration = 0;

  constructor(
    private readonly shared: HttpClients,
    private readonly index: number,
    private readonly host: HttpClientHost,
    readonly target: HttpTarget,
    private readonly rng: RngStream,
    private readonly options: HttpClientOptions,
  ) {
    this.perRequest = shared.settings.connectionMode === 'per-request';
    this.slots = new Array<Socket | null>(this.perRequest ? 0 : shared.settings.connectionsPerPod).fill(null);
    this.served = new Array<number>(this.slots.length).fill(0);
    this.handshaken = new Array<boolean>(this.slots.length).fill(false);
  }

  private get params() {
    return this.shared.settings;
  }

  start(): void {
    this.running = true;
    for (let slot = 0; slot < this.slots.length; slot++) this.connect(slot);
    if (!this.options.driven) this.scheduleTick();
  }

  terminate(exit: () => void): void {
    this.running = false;
    if (this.tickTimer >= 0) this.shared.ctx.sched.cancel(this.tickTimer);
    for (const socket of this.slots) if (socket) this.host.tcp.close(socket);
    this.slots.fill(null);
    for (const socket of [...this.dialing.keys()]) this.host.tcp.close(socket);
    exit();
  }

  /** The process died: its sockets are already reset; nothing reconnects or sends any more. */
  killed(): void {
    this.running = false;
    if (this.tickTimer >= 0) this.shared.ctx.sched.cancel(this.tickTimer);
    this.tickTimer = -1;
  }

  onConnected(socket: Socket): void {
    this.shared.connected.inc();
    const request = this.dialing.get(socket);
    if (request) {
      this.dialing.delete(socket);
      this.transmit(socket, request.message, request.createdAt, request.done);
      return;
    }
    const slot = this.slots.indexOf(socket);
    if (slot >= 0) this.handshaken[slot] = true;
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.response) return;
    const request = this.pending.get(message);
    if (!request || request.socket !== socket) return;
    this.pending.delete(message);
    this.shared.ctx.sched.cancel(request.timer);
    const status = this.shared.ctx.requests.status(message);
    this.shared.ctx.requests.close(message);
    request.done?.(status);
    if (status >= 500) this.fail('bad_gateway');
    else {
      this.shared.ok.inc();
      this.shared.latency.observe(toMillis((this.shared.ctx.sched.now - request.sentAt) as Duration));
    }
    if (this.perRequest) {
      this.host.tcp.close(socket);
      return;
    }
    const limit = this.params.requestsPerConnection;
    const slot = this.slots.indexOf(socket);
    if (limit === 0 || slot < 0 || ++this.served[slot]! < limit) return;
    for (const other of this.pending.values()) if (other.socket === socket) return;
    // Used up: hand the slot a new connection first, so closing the old one does not schedule a reconnect as well.
    this.connect(slot);
    this.host.tcp.close(socket);
  }

  onClosed(socket: Socket, cause: CloseCause): void {
    for (const [message, request] of this.pending) {
      if (request.socket !== socket) continue;
      this.shared.ctx.sched.cancel(request.timer);
      this.pending.delete(message);
      this.giveUp(message, request.done, 'connection_closed');
    }
    const dialled = this.dialing.get(socket);
    if (dialled) {
      this.dialing.delete(socket);
      this.shared.connectFailed.inc();
      this.giveUp(dialled.message, dialled.done, 'no_connection');
      return;
    }
    const slot = this.slots.indexOf(socket);
    if (slot < 0) return;
    if (!this.handshaken[slot]) this.shared.connectFailed.inc();
    else if (cause === 'reset') this.shared.resetEstablished.inc();
    this.slots[slot] = null;
    if (cause === 'reset' || cause === 'syn_timeout') {
      this.shared.ctx.note('info', this.host.entity, 'client.connection-lost', `connection to ${this.target.name} ${cause === 'reset' ? 'was reset' : 'timed out'}`);
    }
    if (this.running) {
      this.shared.ctx.sched.after(millis(this.params.reconnectMs), this.shared.reconnect, this.index, slot);
    }
  }

  onReconnect(slot: number): void {
    if (!this.running || this.slots[slot]) return;
    this.shared.reconnects.inc();
    this.connect(slot);
  }

  onTick(): void {
    this.tickTimer = -1;
    if (!this.running) return;
    const sample = ++this.requestCount % JOURNEY_EVERY === 1;
    const summary = sample ? `${this.host.name} → ${this.target.name}` : '';
    this.sendRequest(this.shared.ctx.requests.create(this.host.tcp.ip, this.options.forwardedFor ?? null, sample, summary), null);
    this.scheduleTick();
  }

  /** Multiplies the request rate by `factor` for `duration`, then the normal rate comes back; a later call replaces it. */
  setRate(factor: number, duration: Duration): void {
    this.rateFactor = factor;
    const generation = ++this.rateGeneration;
    this.shared.ctx.sched.after(duration, this.shared.rateEnd, this.index, generation);
    this.redrawTick();
  }

  onRateEnd(generation: number): void {
    if (generation !== this.rateGeneration) return;
    this.rateFactor = 1;
    this.redrawTick();
  }

  /** Requests per second now. */
  get rate(): number {
    return this.params.requestsPerSecond * this.rateFactor;
  }

  /** The gap to the next request is memoryless, so drawing it again at the new rate keeps the arrivals Poisson. */
  private redrawTick(): void {
    if (this.tickTimer < 0 || this.options.driven) return;
    this.shared.ctx.sched.cancel(this.tickTimer);
    this.scheduleTick();
  }

  /** Sends a proxied request on behalf of request `from`, with a copy of its headers; `done` hears its status. */
  forward(from: number, done: RequestDone): number {
    const id = this.shared.ctx.requests.forward(from);
    this.sendRequest(id, done);
    return id;
  }

  onRequestTimeout(message: number): void {
    const request = this.pending.get(message);
    if (!request) return;
    this.pending.delete(message);
    this.giveUp(message, request.done, 'timeout');
    // A request that timed out leaves the connection in an unknown state; clients drop it and dial again.
    this.host.tcp.abort(request.socket);
  }

  private connect(slot: number): void {
    const socket = this.dial();
    this.slots[slot] = socket;
    this.served[slot] = 0;
    this.handshaken[slot] = false;
  }

  /** Opens a connection to the target, given up if its handshake has not completed within the connect timeout. */
  private dial(): Socket {
    const socket = this.host.tcp.connect(this.target.ip, this.target.port, this);
    this.shared.ctx.sched.after(millis(this.params.connectTimeoutMs), this.shared.connectTimeout, socket.id);
    return socket;
  }

  private scheduleTick(): void {
    const gapMs = this.rng.exponential(1000 / this.rate);
    this.tickTimer = this.shared.ctx.sched.after(millis(gapMs), this.shared.tick, this.index);
  }

  private sendRequest(message: number, done: RequestDone | null): void {
    this.shared.sent.inc();
    const now = this.shared.ctx.sched.now;
    if (this.perRequest) {
      this.dialing.set(this.dial(), { message, createdAt: now, done });
      return;
    }
    const socket = this.pickConnection();
    if (!socket) {
      this.giveUp(message, done, 'no_connection');
      return;
    }
    this.transmit(socket, message, now, done);
  }

  /** Writes the request on a connection; its latency counts from `createdAt`, the dial included. */
  private transmit(socket: Socket, message: number, createdAt: SimTime, done: RequestDone | null): void {
    const timer = this.shared.ctx.sched.after(millis(this.params.requestTimeoutMs), this.shared.requestTimeout, this.index, message);
    const now = this.shared.ctx.sched.now;
    this.pending.set(message, { sentAt: createdAt, socket, timer, done });
    const requests = this.shared.ctx.requests;
    if (requests.sampled(message)) {
      const src = `${formatIpv4(this.host.tcp.ip)}:${socket.localPort}`;
      requests.hop(message, now, this.host.entity, done ? `sent on to ${this.target.name} over its own connection` : 'sent', src, `${formatIpv4(socket.remoteIp)}:${socket.remotePort}`);
    }
    this.host.tcp.send(socket, Payload.request, message);
  }

  /** A request that got no answer: counted as failed, its id released, and a proxy waiting on it told it failed. */
  private giveUp(message: number, done: RequestDone | null, reason: FailureReason): void {
    this.shared.ctx.requests.close(message);
    done?.(HTTP_BAD_GATEWAY);
    this.fail(reason);
  }

  private pickConnection(): Socket | null {
    for (let i = 0; i < this.slots.length; i++) {
      const slot = (this.roundRobin + i) % this.slots.length;
      const socket = this.slots[slot];
      if (socket && socket.state === TcpState.established) {
        this.roundRobin = slot + 1;
        return socket;
      }
    }
    return null;
  }

  private fail(reason: FailureReason): void {
    this.shared.failed.inc();
    this.shared.failedBy[reason].inc();
  }
}
