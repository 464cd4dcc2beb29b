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
class UdpClient implements DatagramOwner {
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
interface TcpClient {
  stacks: NamespaceStacks;
  open: boolean;
  tcp: Socket | null;
}

/** Where a query came from, so its answer goes back the same way; pooled, as every query has one. */
class Exchange {
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
class Port53 {
  readonly ips: number[] = [];
  readonly servers: DnsServer[] = [];

  constructor(readonly stacks: NamespaceStacks) {}

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
    const socket: TcpClient = { stacks, open: true, tcp: null };
    this.tcpClients[slot] = socket;
    const owner: SocketOwner = {
      onConnected: () => {
        if (socket.open) receiver.onOpen(token);
      },
      onData: (_s, _payload, message) => {
        const answer = this.messages.takeAnswer(message);
        if (socket.open && answer !== undefined) receiver.onAnswer(token, answer);
      },
      onClosed: (_s, cause: CloseCause) => {
        socket.tcp = null;
        if (!socket.open) return;
        // A handshake that times out is the dialler's business (its own timer); a reset is an error it hears of.
        if (cause === 'reset' || cause === 'peer_closed') receiver.onError(token);
      },
    };
    socket.tcp = stacks.tcp.connect(serverIp, DNS_PORT, owner);
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
      const bound = new Port53(stacks);
      port = bound;
      this.ports.set(host, bound);
      stacks.udp.bind(DNS_PORT, {
        onDatagram: (srcIp, srcPort, dstIp, _dstPort, message) => this.onUdpQuery(bound, srcIp, srcPort, dstIp, message),
      });
      stacks.tcp.listen(DNS_PORT, this.tcpListener(bound));
    }
    port.set(ip, server);
  }

  unlisten(host: number, ip: number): void {
    const port = this.ports.get(host);
    if (!port) return;
    port.delete(ip);
    if (port.ips.length > 0) return;
    port.stacks.udp.unbind(DNS_PORT);
    port.stacks.tcp.listen(DNS_PORT, { accepting: false, accept: () => this.ignore });
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

  private onUdpQuery(port: Port53, srcIp: number, srcPort: number, dstIp: number, message: number): void {
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

  /**
   * A TCP socket does not know which local address it was dialled on, so a namespace serving several addresses over
   * TCP hands connections to the first server bound there (node-local DNS binds one server to both its addresses).
   */
  private tcpListener(port: Port53): Listener {
    const owner: SocketOwner = {
      onConnected: () => {},
      onData: (socket, payload: PayloadId, message) => {
        if (payload !== Payload.request) return;
        const query = this.messages.takeQuery(message);
        if (query === undefined || port.ips.length === 0) return;
        port.servers[0]!.onQuery(this.newExchange(port.stacks, port.ips[0]!, socket.remoteIp, socket.remotePort, socket), query, 'tcp');
      },
      onClosed: () => {},
    };
    return { accepting: true, accept: () => owner };
  }

  private readonly ignore: SocketOwner = { onConnected: () => {}, onData: () => {}, onClosed: () => {} };
}
