import type { SimContext } from '../context';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Listener, Socket, SocketOwner, TcpStack } from '../net/tcp';
import type { DatagramOwner, UdpStack } from '../net/udp';
import { seconds, type SimTime } from '../core/time';
import { MessageIds, type DnsAnswer, type DnsQuery } from './message';
import { DNS_PORT, type DnsProto, type DnsServer, type DnsSocketReceiver, type DnsTransport } from './transport';

/** The sockets of a network namespace (a pod, a node's host namespace, an external machine). */
export interface NamespaceStacks {
  tcp: TcpStack;
  udp: UdpStack;
}

// Model choice: no DNS message is in flight longer than this; messages of dropped packets are forgotten after it.
const MESSAGE_LIFETIME = seconds(60);

interface ClientSocket {
  stacks: NamespaceStacks;
  proto: DnsProto;
  serverIp: number;
  receiver: DnsSocketReceiver;
  token: number;
  open: boolean;
  /** UDP: the bound ephemeral port. */
  port: number;
  /** TCP: the connection. */
  tcp: Socket | null;
}

/** Where a query came from, so its answer goes back the same way. */
interface Exchange {
  stacks: NamespaceStacks;
  serverIp: number;
  clientIp: number;
  clientPort: number;
  tcp: Socket | null;
}

/** One namespace's port 53: the servers bound to each of its addresses. */
interface Port53 {
  stacks: NamespaceStacks;
  servers: Map<number, DnsServer>;
}

/**
 * DNS over the simulated network: queries and answers are UDP datagrams or messages on TCP connections between real
 * sockets, so every drop on the way (allowances, conntrack, rp_filter) shows up as silence, a reset or a timeout.
 * Packets carry only a message id; this transport keeps the id → message map.
 */
export class PacketDnsTransport implements DnsTransport {
  readonly ids = new MessageIds();
  private readonly messages = new Map<number, { at: SimTime; message: DnsQuery | DnsAnswer }>();
  private readonly sockets: ClientSocket[] = [];
  private readonly exchanges = new Map<number, Exchange>();
  private nextExchange = 0;
  private readonly ports = new Map<number, Port53>();

  constructor(
    private readonly ctx: SimContext,
    private readonly stacksOf: (ns: number) => NamespaceStacks,
  ) {}

  open(from: number, serverIp: number, proto: DnsProto, receiver: DnsSocketReceiver, token: number): number {
    const stacks = this.stacksOf(from);
    const id = this.sockets.length;
    const socket: ClientSocket = { stacks, proto, serverIp, receiver, token, open: true, port: 0, tcp: null };
    this.sockets.push(socket);
    if (proto === 'udp') {
      const owner: DatagramOwner = {
        onDatagram: (srcIp, srcPort, _dstIp, _dstPort, message) => {
          const answer = this.take(message);
          if (!socket.open || srcIp !== serverIp || srcPort !== DNS_PORT || !answer || !('queryId' in answer)) return;
          receiver.onAnswer(token, answer);
        },
      };
      socket.port = stacks.udp.bindEphemeral(owner);
      return id;
    }
    const owner: SocketOwner = {
      onConnected: () => {
        if (socket.open) receiver.onOpen(token);
      },
      onData: (_s, _payload, message) => {
        const answer = this.take(message);
        if (socket.open && answer && 'queryId' in answer) receiver.onAnswer(token, answer);
      },
      onClosed: (_s, cause: CloseCause) => {
        socket.tcp = null;
        if (!socket.open) return;
        // A handshake that times out is the dialler's business (its own timer); a reset is an error it hears of.
        if (cause === 'reset' || cause === 'peer_closed') receiver.onError(token);
      },
    };
    socket.tcp = stacks.tcp.connect(serverIp, DNS_PORT, owner);
    return id;
  }

  send(socket: number, query: DnsQuery): void {
    const s = this.sockets[socket];
    if (!s || !s.open) return;
    this.keep(query);
    if (s.proto === 'udp') s.stacks.udp.send(s.port, s.serverIp, DNS_PORT, query.id);
    else if (s.tcp) s.stacks.tcp.send(s.tcp, Payload.request, query.id);
  }

  close(socket: number): void {
    const s = this.sockets[socket];
    if (!s || !s.open) return;
    s.open = false;
    if (s.proto === 'udp') s.stacks.udp.unbind(s.port);
    else if (s.tcp) s.stacks.tcp.close(s.tcp);
  }

  listen(host: number, ip: number, server: DnsServer): void {
    let port = this.ports.get(host);
    if (!port) {
      const stacks = this.stacksOf(host);
      const bound: Port53 = { stacks, servers: new Map() };
      port = bound;
      this.ports.set(host, bound);
      stacks.udp.bind(DNS_PORT, {
        onDatagram: (srcIp, srcPort, dstIp, _dstPort, message) => this.onUdpQuery(bound, srcIp, srcPort, dstIp, message),
      });
      stacks.tcp.listen(DNS_PORT, this.tcpListener(bound));
    }
    port.servers.set(ip, server);
  }

  unlisten(host: number, ip: number): void {
    const port = this.ports.get(host);
    if (!port) return;
    port.servers.delete(ip);
    if (port.servers.size > 0) return;
    port.stacks.udp.unbind(DNS_PORT);
    port.stacks.tcp.listen(DNS_PORT, { accepting: false, accept: () => this.ignore });
    this.ports.delete(host);
  }

  respond(exchange: number, answer: DnsAnswer): void {
    const e = this.exchanges.get(exchange);
    if (!e) return;
    this.exchanges.delete(exchange);
    this.keep(answer);
    if (e.tcp) {
      if (e.tcp.open) e.stacks.tcp.send(e.tcp, Payload.response, answer.id);
    } else e.stacks.udp.send(DNS_PORT, e.clientIp, e.clientPort, answer.id, e.serverIp);
  }

  private onUdpQuery(port: Port53, srcIp: number, srcPort: number, dstIp: number, message: number): void {
    const query = this.take(message);
    const server = port.servers.get(dstIp);
    if (!query || 'queryId' in query || !server) return;
    const exchange = this.nextExchange++;
    this.exchanges.set(exchange, { stacks: port.stacks, serverIp: dstIp, clientIp: srcIp, clientPort: srcPort, tcp: null });
    server.onQuery(exchange, query, 'udp');
  }

  /**
   * A TCP socket does not know which local address it was dialled on, so a namespace serving several addresses over
   * TCP hands connections to the first server bound there (node-local DNS binds one server to both its addresses).
   */
  private tcpListener(port: Port53): Listener {
    const owner: SocketOwner = {
      onConnected: () => {},
      onData: (socket, payload: PayloadId, message) => {
        if (payload !== Payload.request) return;
        const query = this.take(message);
        const first = port.servers.entries().next();
        if (!query || 'queryId' in query || first.done) return;
        const [serverIp, server] = first.value;
        const exchange = this.nextExchange++;
        this.exchanges.set(exchange, { stacks: port.stacks, serverIp, clientIp: socket.remoteIp, clientPort: socket.remotePort, tcp: socket });
        server.onQuery(exchange, query, 'tcp');
      },
      onClosed: () => {},
    };
    return { accepting: true, accept: () => owner };
  }

  private readonly ignore: SocketOwner = { onConnected: () => {}, onData: () => {}, onClosed: () => {} };

  private keep(message: DnsQuery | DnsAnswer): void {
    const now = this.ctx.sched.now;
    this.messages.set(message.id, { at: now, message });
    // Map order is insertion order, so the oldest entries are first: drop those whose packets must have been lost.
    for (const [id, entry] of this.messages) {
      if (now - entry.at < MESSAGE_LIFETIME) break;
      this.messages.delete(id);
    }
  }

  private take(id: number): DnsQuery | DnsAnswer | undefined {
    const entry = this.messages.get(id);
    this.messages.delete(id);
    return entry?.message;
  }
}
