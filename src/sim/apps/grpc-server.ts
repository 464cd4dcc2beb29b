import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis, type Duration } from '../core/time';
import type { SimContext } from '../context';
import type { DnsSystem } from '../dns/dns-system';
import type { LookupError, LookupPlan, LookupReceiver } from '../dns/stub-resolver';
import type { Pod, PodApp } from '../infra/pod';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Listener, Socket, SocketOwner, Tcp } from '../net/tcp';
import { GracefulStop, ServerConnection, type GracefulStopHost } from './grpc/graceful-stop';
import { GrpcStatus, responseMessage, type GrpcStatusId } from './grpc/wire';
import { bound, onMember } from '../core/snapshot';

export interface GrpcServerSpec {
  port: number;
  /** Names resolved through the pod's DNS path before each query is served (its index and store, say). */
  dependencies: readonly string[];
}

interface Query {
  server: GrpcServer;
  socket: Socket;
  conn: ServerConnection;
  streamId: number;
  /** Dependencies still to resolve. */
  left: number;
}

/** Shared timers and instruments of every gRPC server. */
export class GrpcServers implements LookupReceiver {
  readonly respond: HandlerId;
  readonly pingTimer: HandlerId;
  readonly requests: Counter;
  readonly served: Counter;
  readonly errors: Counter;
  readonly dnsErrors: Counter;
  readonly refused: Counter;
  readonly queries: (Query | undefined)[] = [];
  private readonly freeQueries: number[] = [];
  readonly servers: GrpcServer[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
    readonly dns: DnsSystem | null,
    /** Mean time to serve a query once its dependencies are resolved (`params.server`). */
    private readonly serviceTimeMs: number,
  ) {
    const m = ctx.metrics;
    this.requests = m.counter('grpc.server.requests');
    this.served = m.counter('grpc.server.ok');
    this.errors = m.counter('grpc.server.errors');
    this.dnsErrors = m.counter('grpc.server.errors', { reason: 'dns' });
    this.refused = m.counter('grpc.server.refused');
    this.respond = ctx.sched.register('grpc-server.respond', bound(this, this.respondOk));
    this.pingTimer = ctx.sched.register('grpc-server.ping-timeout', onMember(this.servers, 'pingTimedOut', true));
  }

  create(pod: Pod, spec: GrpcServerSpec): GrpcServer {
    const dependencies = this.dns ? spec.dependencies.map((name) => this.dns!.stub.plan(name, this.dns!.conf)) : [];
    const server = new GrpcServer(this, this.servers.length, pod, spec, dependencies, this.ctx.rng.stream(`grpc-server/${pod.name}`));
    this.servers.push(server);
    return server;
  }

  /** A query arrived: resolve its dependencies (each through the stub resolver), then work for the service time. */
  startQuery(server: GrpcServer, socket: Socket, conn: ServerConnection, streamId: number): void {
    const deps = server.spec.dependencies;
    const index = this.freeQueries.pop() ?? this.queries.length;
    this.queries[index] = { server, socket, conn, streamId, left: deps.length };
    if (deps.length === 0 || !this.dns) {
      this.work(index);
      return;
    }
    const plans = server.dependencies;
    for (let i = 0; i < plans.length; i++) this.dns.stub.lookupPlanned(server.pod.index, plans[i]!, this, index);
  }

  onResolved(token: number): void {
    const q = this.queries[token];
    if (!q || --q.left > 0) return;
    this.work(token);
  }

  onLookupFailed(token: number, error: LookupError): void {
    const q = this.queries[token];
    if (!q || q.left <= 0) return;
    q.left = -1;
    this.dnsErrors.inc();
    this.ctx.causes.record('grpc_dependency_error', q.server.pod.entity, this.ctx.sched.now);
    this.ctx.note('warn', q.server.pod.entity, 'grpc.server.dns-error', `could not resolve its dependencies (${error}); the query fails`, {
      reason: `dns_${error}`,
    });
    // A dependency that cannot be found is a transient condition: UNAVAILABLE, which gRPC's status guide says to retry.
    this.finish(token, GrpcStatus.unavailable);
  }

  private work(index: number): void {
    const q = this.queries[index]!;
    const mean = this.serviceTimeMs;
    this.ctx.sched.after(millis(mean > 0 ? q.server.rng.exponential(mean) : 0) as Duration, this.respond, index);
  }

  private respondOk(index: number): void {
    this.finish(index, GrpcStatus.ok);
  }

  private finish(index: number, status: GrpcStatusId): void {
    const q = this.queries[index];
    if (!q) return;
    this.queries[index] = undefined;
    this.freeQueries.push(index);
    if (status === GrpcStatus.ok) this.served.inc();
    else this.errors.inc();
    q.server.respond(q.socket, q.conn, q.streamId, status);
  }
}

/**
 * A gRPC server: one listener, HTTP/2 connections that carry many streams, and grpc-go's GracefulStop on SIGTERM
 * (GOAWAY, PING, final GOAWAY, drain; the listener closed so new connections are reset). The process outlives
 * GracefulStop until SIGKILL at the end of the grace period, which cuts whatever is left.
 */
export class GrpcServer implements PodApp, Listener, SocketOwner, GracefulStopHost {
  accepting = false;
  private readonly conns = new Map<number, ServerConnection>();
  private readonly stop: GracefulStop;

  constructor(
    private readonly shared: GrpcServers,
    readonly index: number,
    readonly pod: Pod,
    readonly spec: GrpcServerSpec,
    /** The stub resolver's plan for each of `spec.dependencies`, made once. */
    readonly dependencies: readonly LookupPlan[],
    readonly rng: RngStream,
  ) {
    this.stop = new GracefulStop(this);
  }

  start(): void {
    this.accepting = true;
    this.pod.tcp.listen(this.spec.port, this);
  }

  terminate(_exit: () => void): void {
    this.shared.ctx.note('info', this.pod.entity, 'grpc.server.graceful-stop', `GracefulStop: GOAWAY on ${this.conns.size} connection(s), new ones reset`);
    this.stop.begin(this.conns.values());
  }

  accept(socket: Socket): SocketOwner {
    this.conns.set(socket.id, new ServerConnection(socket.id));
    return this;
  }

  onConnected(): void {}

  onData(socket: Socket, payload: PayloadId, message: number): void {
    const conn = this.conns.get(socket.id);
    if (!conn) return;
    if (payload === Payload.pingAck) {
      this.stop.pingAcked(conn);
      return;
    }
    if (payload !== Payload.request) return;
    this.shared.requests.inc();
    if (!conn.streamOpened(message)) {
      this.shared.refused.inc();
      this.pod.tcp.send(socket, Payload.response, responseMessage(message, GrpcStatus.refused));
      return;
    }
    this.shared.startQuery(this, socket, conn, message);
  }

  onClosed(socket: Socket, _cause: CloseCause): void {
    const conn = this.conns.get(socket.id);
    if (!conn) return;
    this.conns.delete(socket.id);
    this.stop.connectionLost(conn);
  }

  respond(socket: Socket, conn: ServerConnection, streamId: number, status: GrpcStatusId): void {
    if (socket.open) this.pod.tcp.send(socket, Payload.response, responseMessage(streamId, status));
    this.stop.streamClosed(conn);
  }

  pingTimedOut(socketId: number): void {
    const conn = this.conns.get(socketId);
    if (conn) this.stop.pingTimedOut(conn);
  }

  closeListener(): void {
    this.accepting = false;
  }

  sendGoaway(conn: ServerConnection, lastStreamId: number): void {
    const socket = this.shared.tcp.sockets.get(conn.id);
    if (socket) this.pod.tcp.send(socket, Payload.goaway, lastStreamId);
  }

  sendPing(conn: ServerConnection): void {
    const socket = this.shared.tcp.sockets.get(conn.id);
    if (socket) this.pod.tcp.send(socket, Payload.ping, 0);
  }

  startPingTimer(conn: ServerConnection, delay: Duration): void {
    this.shared.ctx.sched.after(delay, this.shared.pingTimer, this.index, conn.id);
  }

  closeConnection(conn: ServerConnection): void {
    const socket = this.shared.tcp.sockets.get(conn.id);
    this.conns.delete(conn.id);
    if (socket) this.pod.tcp.close(socket);
  }

  abortConnection(conn: ServerConnection): void {
    const socket = this.shared.tcp.sockets.get(conn.id);
    this.conns.delete(conn.id);
    if (socket) this.pod.tcp.abort(socket);
  }

  stopped(): void {
    // Model choice: the incident's servers stayed for the whole grace period (docs/sources/incidents.md#it-wasnt-dns),
    // so a SYN met a reset from the closed listener for those seconds, and silence only once the pod was gone.
    this.shared.ctx.note('info', this.pod.entity, 'grpc.server.drained', 'GracefulStop returned: every connection drained; the process stays until SIGKILL');
  }
}
