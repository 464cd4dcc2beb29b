import { CLIENT_ADDRESS_CAUSES, CLIENT_ADDRESS_TEXT, type ClientAddressVerdict } from '../api';
import type { Counter } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import type { RngStream } from '../core/rng';
import { millis } from '../core/time';
import type { SimContext } from '../context';
import type { Pod } from '../infra/pod';
import { clientAddress } from '../net/forwarded';
import { formatIpv4 } from '../net/ipv4';
import { Payload, type PayloadId } from '../net/packet';
import type { Socket, Tcp } from '../net/tcp';
import { HttpListener } from './http-listener';

const VERDICTS: ClientAddressVerdict[] = ['client', 'internal', 'forged'];

/** Timers shared by every server instance: one handler answers any server's request. */
export class HttpServers {
  readonly respond: HandlerId;
  /** Requests by what the client address a server logged really was. */
  readonly logged: Record<ClientAddressVerdict, Counter>;
  private readonly servers: (HttpServer | undefined)[] = [];

  constructor(
    readonly ctx: SimContext,
    readonly tcp: Tcp,
    /** Whether an address belongs to the simulated data centre (a node, pod, load balancer or router). */
    private readonly internal: (ip: number) => boolean,
  ) {
    this.respond = ctx.sched.register('http-server.respond', (socketId, message) => this.onRespond(socketId, message));
    this.logged = Object.fromEntries(VERDICTS.map((v) => [v, ctx.metrics.counter('server.client_ip', { seen: v })])) as Record<ClientAddressVerdict, Counter>;
  }

  /**
   * The client address a server logs for a request that came from `peer`: the leftmost X-Forwarded-For entry, else
   * the peer. Model choice: what frameworks do when told to trust the proxies in front (Express's `trust proxy`
   * true takes the leftmost), and so what makes a client-written header matter.
   */
  logClient(entity: string, message: number, peer: number, peerPort: number, localIp: number, localPort: number): void {
    const requests = this.ctx.requests;
    const xff = requests.xff(message);
    if (!xff) return;
    const address = clientAddress(xff, peer, Infinity);
    const verdict: ClientAddressVerdict = address === requests.origin(message) ? 'client' : this.internal(address) ? 'internal' : 'forged';
    this.logged[verdict].inc();
    if (verdict !== 'client') this.ctx.causes.record(CLIENT_ADDRESS_CAUSES[verdict], entity, this.ctx.sched.now);
    if (!requests.sampled(message)) return;
    const what = `received from ${formatIpv4(peer)}; logged the client as ${formatIpv4(address)}, ${CLIENT_ADDRESS_TEXT[verdict]}`;
    requests.hop(message, this.ctx.sched.now, entity, what, `${formatIpv4(peer)}:${peerPort}`, `${formatIpv4(localIp)}:${localPort}`);
    requests.logged(message, address, verdict);
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

/** A request/response server: each request takes an exponential service time, then gets its answer. */
export class HttpServer extends HttpListener {
  constructor(
    private readonly shared: HttpServers,
    pod: Pod,
    port: number,
    private readonly rng: RngStream,
  ) {
    super(pod, port);
  }

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload !== Payload.request) return;
    this.shared.logClient(this.pod.entity, message, socket.remoteIp, socket.remotePort, this.pod.ip, this.port);
    this.began(socket);
    const mean = this.shared.ctx.params.server.serviceTimeMs;
    this.shared.ctx.sched.after(millis(mean > 0 ? this.rng.exponential(mean) : 0), this.shared.respond, socket.id, message);
  }

  finish(socket: Socket, message: number): void {
    this.answer(socket, message);
  }
}
