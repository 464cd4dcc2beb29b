import type { SimContext } from '../context';
import type { Counter } from '../core/metrics';
import type { Pod, PodApp } from '../infra/pod';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Listener, Socket, SocketOwner } from '../net/tcp';

/**
 * What every HTTP-serving process in a pod shares: it listens on its port, counts requests in flight per connection,
 * and on SIGTERM stops accepting (new SYNs are reset), answers what it has, closes each connection once it is idle
 * and exits, like Go's http.Server.Shutdown.
 */
export abstract class HttpListener implements PodApp, Listener, SocketOwner {
  accepting = false;
  private draining = false;
  private exit: (() => void) | null = null;
  private readonly open = new Set<Socket>();
  private readonly inFlight = new Map<number, number>();
  /** Requests served on this pod's node, by every HTTP server there: how evenly traffic reaches the nodes. */
  private readonly servedOnNode: Counter;

  constructor(
    protected readonly ctx: SimContext,
    protected readonly pod: Pod,
    protected readonly port: number,
  ) {
    this.servedOnNode = ctx.metrics.counter('server.requests', { node: pod.host.name });
  }

  abstract onData(socket: Socket, payload: PayloadId, message: number): void;

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

  onClosed(socket: Socket, _cause: CloseCause): void {
    this.open.delete(socket);
    this.inFlight.delete(socket.id);
    this.maybeExit();
  }

  protected get connections(): number {
    return this.open.size;
  }

  protected get requestsInFlight(): number {
    let n = 0;
    for (const count of this.inFlight.values()) n += count;
    return n;
  }

  /** A request arrived on the connection; `answer` must follow. */
  protected began(socket: Socket): void {
    this.ctx.requests.countServed(this.pod.deployment);
    this.servedOnNode.inc();
    this.inFlight.set(socket.id, (this.inFlight.get(socket.id) ?? 0) + 1);
  }

  /** Sends the response to a request that `began`; while draining, a connection with nothing left is closed. */
  protected answer(socket: Socket, message: number): void {
    this.pod.tcp.send(socket, Payload.response, message);
    const left = (this.inFlight.get(socket.id) ?? 1) - 1;
    if (left > 0) this.inFlight.set(socket.id, left);
    else this.inFlight.delete(socket.id);
    if (this.draining && left <= 0) this.pod.tcp.close(socket);
    this.maybeExit();
  }

  /** Every request is answered after SIGTERM: the process may go. */
  protected drained(exit: () => void): void {
    exit();
  }

  private maybeExit(): void {
    if (!this.draining || this.inFlight.size > 0 || !this.exit) return;
    const exit = this.exit;
    this.exit = null;
    this.drained(exit);
  }
}
