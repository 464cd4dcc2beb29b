import type { SimContext } from '../context';
import { Payload, type PayloadId } from '../net/packet';
import type { CloseCause, Listener, Socket, SocketOwner, TcpStack } from '../net/tcp';
import type { DatagramOwner, UdpStack } from '../net/udp';
import { seconds } from '../core/time';
import { MessageIds, type DnsAnswer, type DnsQuery } from './message';
import { MessageStore } from './message-store';
import { DNS_PORT, type DnsProto, type DnsServer, type DnsSocketReceiver, type DnsTransport } from './transport';

/** The sockets of a network namespace (a pod, a node's host namespace, an external machine). */
export interface NamespaceStacks {
  tcp: TcpStack;
  udp: UdpStack;
}

// Model choice: no DNS message is in flight longer than this; messages of dropped packets are forgotten after it.
const MESSAGE_LIFETIME = seconds(60);

/** A resolver's or forwarder's UDP socket to (serverIp, 53); pooled, as a lookup opens one and closes it within its life. */
export class UdpClient implements DatagramOwner {
  open = false;
  stacks: NamespaceStacks | null = null;
  serverIp = 0;
  port = 0;
  receiver: DnsSocketReceiver | null = null;
  token = 0;

  constructor(private readonly messages: MessageStore) {}

  onDatagram(srcIp: number, srcPort: number, _dstIp: number, _dstPort: number, message: number): void {
    const answer = this.messages.takeAnswer(message);
    if (!this.open || srcIp !== this.serverIp || srcPort !== DNS_PORT || answer === undefined) return;
    this.receiver!.onAnswer(this.token, answer);
  }
}

/** A TCP socket to (serverIp, 53); not pooled, since its connection may still call its owner after close. */
/** A query connection over TCP: it hands what its socket hears to its receiver, while the receiver keeps it open. */
export class TcpClient implements SocketOwner {
  open = true;
  tcp: Socket | null = null;

  constructor(
    private readonly messages: MessageStore,
    readonly stacks: NamespaceStacks,
    private readonly receiver: DnsSocketReceiver,
    private readonly token: number,
  ) {}

  onConnected(): void {
    if (this.open) this.receiver.onOpen(this.token);
  }

  onData(_socket: Socket, _payload: PayloadId, message: number): void {
    const answer = this.messages.takeAnswer(message);
    if (this.open && answer !== undefined) this.receiver.onAnswer(this.token, answer);
  }

  onClosed(_socket: Socket, cause: CloseCause): void {
    this.tcp = null;
    if (!this.open) return;
    // A handshake that times out is the dialler's business (its own timer); a reset is an error it hears of.
    if (cause === 'reset' || cause === 'peer_closed') this.receiver.onError(this.token);
  }
}

/** Where a query came from, so its answer goes back the same way; pooled, as every query has one. */
export class Exchange {
  live = false;
  stacks: NamespaceStacks | null = null;
  serverIp = 0;
  clientIp = 0;
  clientPort = 0;
  tcp: Socket | null = null;
}

/**
 * One namespace's port 53: the servers bound to each of its addresses, in the order they were bound. Arrays, not a
 * Map: a namespace binds one or two addresses, and addresses above 2^31 would be boxed Map keys.
 */
export class Port53 implements Listener, SocketOwner {
  readonly ips: number[] = [];
  readonly servers: DnsServer[] = [];
  readonly accepting = true;

  constructor(
    private readonly transport: PacketDnsTransport,
    readonly stacks: NamespaceStacks,
  ) {}

  onDatagram(srcIp: number, srcPort: number, dstIp: number, _dstPort: number, message: number): void {
    this.transport.onUdpQuery(this, srcIp, srcPort, dstIp, message);
  }

  /**
   * A TCP socket does not know which local address it was dialled on, so a namespace serving several addresses over
   * TCP hands connections to the first server bound there (node-local DNS binds one server to both its addresses).
   */
  accept(): SocketOwner {
    return this;
  }

  onConnected(): void {}

  onData(socket: Socket, payload: PayloadId, message: number): void {
    if (payload === Payload.request) this.transport.onTcpQuery(this, socket, message);
  }

  onClosed(): void {}

  get(ip: number): DnsServer | undefined {
    for (let i = 0; i < this.ips.length; i++) if (this.ips[i] === ip) return this.servers[i];
    return undefined;
  }

  set(ip: number, server: DnsServer): void {
    const i = this.ips.indexOf(ip);
    if (i >= 0) this.servers[i] = server;
    else {
      this.ips.push(ip);
      this.servers.push(server);
    }
  }

  delete(ip: number): void {
    const i = this.ips.indexOf(ip);
    if (i < 0) return;
    this.ips.splice(i, 1);
    this.servers.splice(i, 1);
  }
}

/**
 * DNS over the simulated network: queries and answers are UDP datagrams or messages on TCP connections between real
 * sockets, so every drop on the way (allowances, conntrack, rp_filter) shows up as silence, a reset or a timeout.
 * Packets carry only a message id; this transport keeps the id → message map.
 */
export class PacketDnsTransport implements DnsTransport {
  readonly ids = new MessageIds();
  private readonly messages = new MessageStore(MESSAGE_LIFETIME);
  /** Socket ids are slot * 2 in `udpClients` or slot * 2 + 1 in `tcpClients`. */
  private readonly udpClients: UdpClient[] = [];
  private readonly freeUdp: number[] = [];
  private readonly tcpClients: (TcpClient | undefined)[] = [];
  private readonly freeTcp: number[] = [];
  private readonly exchanges: Exchange[] = [];
  private readonly freeExchanges: number[] = [];
  private readonly ports = new Map<number, Port53>();

  constructor(
    private readonly ctx: SimContext,
    private readonly stacksOf: (ns: number) => NamespaceStacks,
  ) {}

  open(from: number, serverIp: number, proto: DnsProto, receiver: DnsSocketReceiver, token: number): number {
    const stacks = this.stacksOf(from);
    if (proto === 'udp') {
      const slot = this.freeUdp.pop() ?? this.udpClients.push(new UdpClient(this.messages)) - 1;
      const c = this.udpClients[slot]!;
      c.open = true;
      c.stacks = stacks;
      c.serverIp = serverIp;
      c.receiver = receiver;
      c.token = token;
      c.port = stacks.udp.bindEphemeral(c);
      return slot * 2;
    }
    const slot = this.freeTcp.pop() ?? this.tcpClients.push(undefined) - 1;
    const socket = new TcpClient(this.messages, stacks, receiver, token);
    this.tcpClients[slot] = socket;
    socket.tcp = stacks.tcp.connect(serverIp, DNS_PORT, socket);
    return slot * 2 + 1;
  }

  send(socket: number, query: DnsQuery): void {
    if (socket & 1) {
      const s = this.tcpClients[socket >> 1];
      if (!s || !s.open) return;
      this.messages.keepQuery(query, this.ctx.sched.now);
      if (s.tcp) s.stacks.tcp.send(s.tcp, Payload.request, query.id);
      return;
    }
    const c = this.udpClients[socket >> 1];
    if (!c || !c.open) return;
    this.messages.keepQuery(query, this.ctx.sched.now);
    c.stacks!.udp.send(c.port, c.serverIp, DNS_PORT, query.id);
  }

  close(socket: number): void {
    const slot = socket >> 1;
    if (socket & 1) {
      const s = this.tcpClients[slot];
      if (!s || !s.open) return;
      s.open = false;
      this.tcpClients[slot] = undefined;
      this.freeTcp.push(slot);
      if (s.tcp) s.stacks.tcp.close(s.tcp);
      return;
    }
    const c = this.udpClients[slot];
    if (!c || !c.open) return;
    c.open = false;
    this.freeUdp.push(slot);
    c.stacks!.udp.unbind(c.port);
  }

  listen(host: number, ip: number, server: DnsServer): void {
    let port = this.ports.get(host);
    if (!port) {
      const stacks = this.stacksOf(host);
      port = new Port53(this, stacks);
      this.ports.set(host, port);
      stacks.udp.bind(DNS_PORT, port);
      stacks.tcp.listen(DNS_PORT, port);
    }
    port.set(ip, server);
  }

  unlisten(host: number, ip: number): void {
    const port = this.ports.get(host);
    if (!port) return;
    port.delete(ip);
    if (port.ips.length > 0) return;
    port.stacks.udp.unbind(DNS_PORT);
    port.stacks.tcp.listen(DNS_PORT, CLOSED);
    this.ports.delete(host);
  }

  respond(exchange: number, answer: DnsAnswer): void {
    const e = this.exchanges[exchange];
    if (!e || !e.live) return;
    const { stacks, tcp, serverIp, clientIp, clientPort } = e;
    e.live = false;
    e.stacks = null;
    e.tcp = null;
    this.freeExchanges.push(exchange);
    this.messages.keepAnswer(answer, this.ctx.sched.now);
    if (tcp) {
      if (tcp.open) stacks!.tcp.send(tcp, Payload.response, answer.id);
    } else stacks!.udp.send(DNS_PORT, clientIp, clientPort, answer.id, serverIp);
  }

  /** A query reached a namespace's port 53 over UDP (from Port53). */
  onUdpQuery(port: Port53, srcIp: number, srcPort: number, dstIp: number, message: number): void {
    const query = this.messages.takeQuery(message);
    const server = port.get(dstIp);
    if (query === undefined || !server) return;
    server.onQuery(this.newExchange(port.stacks, dstIp, srcIp, srcPort, null), query, 'udp');
  }

  private newExchange(stacks: NamespaceStacks, serverIp: number, clientIp: number, clientPort: number, tcp: Socket | null): number {
    const slot = this.freeExchanges.pop() ?? this.exchanges.push(new Exchange()) - 1;
    const e = this.exchanges[slot]!;
    e.live = true;
    e.stacks = stacks;
    e.serverIp = serverIp;
    e.clientIp = clientIp;
    e.clientPort = clientPort;
    e.tcp = tcp;
    return slot;
  }

  /** A query reached a namespace's port 53 over TCP (from Port53): the first server bound there answers it. */
  onTcpQuery(port: Port53, socket: Socket, message: number): void {
    const query = this.messages.takeQuery(message);
    if (query === undefined || port.ips.length === 0) return;
    port.servers[0]!.onQuery(this.newExchange(port.stacks, port.ips[0]!, socket.remoteIp, socket.remotePort, socket), query, 'tcp');
  }
}

/** Port 53 where no server listens any more: connections are not accepted, and the ones it has go unanswered. */
export class ClosedPort implements Listener, SocketOwner {
  readonly accepting = false;

  accept(): SocketOwner {
    return this;
  }

  onConnected(): void {}

  onData(): void {}

  onClosed(): void {}
}

const CLOSED = new ClosedPort();
