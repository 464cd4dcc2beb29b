import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis } from '../core/time';
import type { SimContext } from '../context';
import type { Pod, PodApp } from '../infra/pod';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Listener, Socket, SocketOwner, Tcp } from '../net/tcp';

/** Timers shared by every server instance: one handler answers any server's request. */
export class HttpServers {
  readonly respond: HandlerId;
  private readonly servers: (HttpServer | undefined)[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
  ) {
    this.respond = ctx.sched.register('http-server.respond', (socketId, message) => this.onRespond(socketId, message));
  }

  create(pod: Pod, port: number): HttpServer {
    const server = new HttpServer(this, pod, port, this.ctx.rng.stream(`http-server/${pod.name}`));
    this.servers[pod.index] = server;
    return server;
  }

  private onRespond(socketId: number, message: number): void {
    const socket = this.tcp.sockets.get(socketId);
    if (!socket) return;
    this.servers[socket.stack.ns]?.finish(socket, message);
  }
}

/**
 * A request/response server. On SIGTERM it stops accepting (new SYNs are reset), finishes in-flight requests, closes
 * its connections with FIN and exits, like Go's http.Server.Shutdown.
 */
export class HttpServer implements PodApp, Listener, SocketOwner {
  accepting = false;
  private draining = false;
  private exit: (() => void) | null = null;
  private readonly inFlight = new Map<number, number>();
  private readonly open = new Set<Socket>();

  constructor(
    private readonly shared: HttpServers,
    private readonly pod: Pod,
    private readonly port: number,
    private readonly rng: RngStream,
  ) {}

  start(): void {
    this.accepting = true;
    this.pod.tcp.listen(this.port, this);
  }

  terminate(exit: () => void): void {
    this.accepting = false;
    this.draining = true;
    this.exit = exit;
    for (const socket of [...this.open]) if (!this.inFlight.get(socket.id)) this.pod.tcp.close(socket);
    this.open.clear();
    this.maybeExit();
  }

  accept(): SocketOwner {
    return this;
  }

  onConnected(socket: Socket): void {
    if (this.draining) this.pod.tcp.close(socket);
    else this.open.add(socket);
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.request) return;
    this.inFlight.set(socket.id, (this.inFlight.get(socket.id) ?? 0) + 1);
    const mean = this.shared.ctx.params.server.serviceTimeMs;
    this.shared.ctx.sched.after(millis(mean > 0 ? this.rng.exponential(mean) : 0), this.shared.respond, socket.id, message);
  }

  onClosed(socket: Socket, _cause: CloseCause): void {
    this.open.delete(socket);
    this.inFlight.delete(socket.id);
    this.maybeExit();
  }

  finish(socket: Socket, message: number): void {
    this.pod.tcp.send(socket, Payload.response, message);
    const left = (this.inFlight.get(socket.id) ?? 1) - 1;
    if (left > 0) this.inFlight.set(socket.id, left);
    else this.inFlight.delete(socket.id);
    if (this.draining && left <= 0) this.pod.tcp.close(socket);
    this.maybeExit();
  }

  private maybeExit(): void {
    if (this.draining && this.inFlight.size === 0 && this.exit) {
      const exit = this.exit;
      this.exit = null;
      exit();
    }
  }
}
