import type { Counter, Gauge } from '../core/metrics';
import type { HandlerId } from '../core/scheduler';
import { millis, type Duration, type SimTime } from '../core/time';
import type { SimContext } from '../context';
import { EPHEMERAL_FIRST, EPHEMERAL_LAST, EphemeralPorts } from './ephemeral-ports';
import { Payload, TcpFlag, type PayloadId } from './packet';
import type { TcpParams } from './tcp-params';
import { bound, shared } from '../core/snapshot';

export const TcpState = { synSent: 0, synReceived: 1, established: 2, finWait: 3, closed: 4 } as const;
export type TcpStateId = (typeof TcpState)[keyof typeof TcpState];

/** Why a connection ended, as the application learns it. */
export type CloseCause = 'reset' | 'peer_closed' | 'syn_timeout' | 'aborted' | 'closed';

export interface SocketOwner {
  onConnected(socket: Socket): void;
  onData(socket: Socket, payload: PayloadId, message: number): void;
  onClosed(socket: Socket, cause: CloseCause): void;
}

export interface Listener {
  accepting: boolean;
  /** Called when a handshake completes; returns the owner of the new connection. */
  accept(socket: Socket): SocketOwner;
}

/**
 * Sends a packet out of a pod; the network layer decides where it goes. `anon` names the anonymous flow the packet
 * belongs to (net/anonymous-flows.ts) and `generation` its attempt; -1 for an ordinary packet. `srcIp` is the stack's
 * own address unless given: a reset answers from the address the segment it answers was sent to.
 */
export type TcpWire = (
  stack: TcpStack,
  srcPort: number,
  dstIp: number,
  dstPort: number,
  flags: number,
  payload: PayloadId,
  message: number,
  anon?: number,
  generation?: number,
  srcIp?: number,
) => void;

const unattached = shared('tcp.unattached', (): never => {
  throw new Error('tcp wire used before the network was attached');
});

/** A connection attempt that holds a local port without a socket (an anonymous flow's); made real on demand. */
export interface AnonymousAttempt {
  /** Gives the attempt its socket now: anything that enumerates the namespace's sockets sees it from here on. */
  materialize(): void;
}

const remoteKey = (ip: number, port: number): number => ip * 65536 + port;

export class Socket {
  state: TcpStateId;
  owner: SocketOwner | null;
  rtoTimer = -1;
  rto: Duration;
  synSends = 0;
  /** Pod index of the backend a Service translated this connection to, for views; -1 when unknown. */
  backendPod = -1;

  constructor(
    readonly id: number,
    readonly stack: TcpStack,
    readonly localPort: number,
    readonly remoteIp: number,
    readonly remotePort: number,
    state: TcpStateId,
    owner: SocketOwner | null,
    rto: Duration,
  ) {
    this.state = state;
    this.owner = owner;
    this.rto = rto;
  }

  get open(): boolean {
    return this.state !== TcpState.closed;
  }
}

/** The TCP machinery shared by every pod: socket ids, retransmission timers and counters. */
export class Tcp {
  /** Open sockets by id; ids are never reused, so a timer that outlives its socket finds nothing. */
  readonly sockets = new Map<number, Socket>();
  private nextId = 0;
  private readonly rtoHandler: HandlerId;
  readonly synSent: Counter;
  readonly synRetransmits: Counter;
  readonly rstSent: Counter;
  readonly rstReceived: Counter;
  readonly connectOk: Counter;
  readonly connectFailed: Counter;
  readonly established: Gauge;
  wire: TcpWire = unattached;

  constructor(
    readonly ctx: SimContext,
    private readonly params: TcpParams,
  ) {
    const m = ctx.metrics;
    this.synSent = m.counter('tcp.syn.sent');
    this.synRetransmits = m.counter('tcp.syn.retransmits');
    this.rstSent = m.counter('tcp.rst.sent');
    this.rstReceived = m.counter('tcp.rst.received');
    this.connectOk = m.counter('tcp.connect.ok');
    this.connectFailed = m.counter('tcp.connect.failed');
    this.established = m.gauge('tcp.connections.established');
    this.rtoHandler = ctx.sched.register('tcp.syn-rto', bound(this, this.onSynTimeout));
  }

  get initialRto(): Duration {
    return millis(this.params.initialRtoMs);
  }

  /** A new socket, registered under the next id (no closure per connection: this runs for every SYN of a flood). */
  open(stack: TcpStack, localPort: number, remoteIp: number, remotePort: number, state: TcpStateId, owner: SocketOwner | null): Socket {
    const socket = new Socket(this.nextId++, stack, localPort, remoteIp, remotePort, state, owner, this.initialRto);
    this.sockets.set(socket.id, socket);
    return socket;
  }

  unregister(socket: Socket): void {
    if (socket.rtoTimer >= 0) this.ctx.sched.cancel(socket.rtoTimer);
    socket.rtoTimer = -1;
    if (socket.state === TcpState.established || socket.state === TcpState.finWait) this.established.add(-1);
    socket.state = TcpState.closed;
    this.sockets.delete(socket.id);
  }

  sendSyn(socket: Socket): void {
    socket.synSends++;
    this.synSent.inc();
    if (socket.synSends > 1) this.synRetransmits.inc();
    // A SYN carries its transmission count, so observers can tell a new connection attempt from a retransmission.
    this.wire(socket.stack, socket.localPort, socket.remoteIp, socket.remotePort, TcpFlag.SYN, Payload.none, socket.synSends);
    socket.rtoTimer = this.ctx.sched.after(socket.rto, this.rtoHandler, socket.id);
  }

  /**
   * The SYN_SENT socket of an attempt whose first SYN left at `sentAt` without one (an anonymous flow's): the same
   * socket, port and retransmission timer the attempt would have had from the start.
   */
  adopt(stack: TcpStack, localPort: number, remoteIp: number, remotePort: number, owner: SocketOwner, sentAt: number): Socket {
    const socket = this.open(stack, localPort, remoteIp, remotePort, TcpState.synSent, owner);
    socket.synSends = 1;
    socket.rtoTimer = this.ctx.sched.at((sentAt + socket.rto) as SimTime, this.rtoHandler, socket.id);
    return socket;
  }

  private onSynTimeout(id: number): void {
    const socket = this.sockets.get(id);
    if (!socket || socket.state !== TcpState.synSent) return;
    socket.rtoTimer = -1;
    // tcp_syn_retries counts retransmissions after the first SYN.
    if (socket.synSends > this.params.synRetries) {
      socket.stack.drop(socket, 'syn_timeout');
      return;
    }
    // Exponential backoff of the retransmission timer (RFC 6298 section 5.5).
    socket.rto = (socket.rto * 2) as Duration;
    this.sendSyn(socket);
  }
}

/** One network namespace's sockets and listeners: a pod's, a node's host network, or an external machine's. */
export class TcpStack {
  /** Sockets by local port: one socket alone (a client's ephemeral port), or a map by peer (a server port). */
  private readonly byPort = new Map<number, Socket | Map<number, Socket>>();
  private readonly listeners = new Map<number, Listener>();
  private readonly ports = new EphemeralPorts();
  /**
   * Ports held by anonymous attempts, which have no socket until something needs one: a few per pod, in arrays that
   * keep their room (`anonCount` are in use) so attempts coming and going allocate nothing.
   */
  private readonly anonPorts: number[] = [];
  private readonly anonAttempts: (AnonymousAttempt | null)[] = [];
  private anonCount = 0;
  /** A listener took a port of the ephemeral range, so its connections may sit on ports the allocator hands out. */
  private rangeShared = false;

  constructor(
    readonly tcp: Tcp,
    readonly ip: number,
    /** Network namespace: a pod index, or -1 - n for the n-th host and then the external elements (Network.elementNamespace). */
    readonly ns: number,
  ) {}

  listen(port: number, listener: Listener): void {
    if (port >= EPHEMERAL_FIRST && port <= EPHEMERAL_LAST) this.rangeShared = true;
    this.listeners.set(port, listener);
  }

  connect(remoteIp: number, remotePort: number, owner: SocketOwner): Socket {
    const port = this.allocatePort();
    const socket = this.tcp.open(this, port, remoteIp, remotePort, TcpState.synSent, owner);
    this.insert(socket);
    this.tcp.sendSyn(socket);
    return socket;
  }

  /** A local port for an attempt without a socket; it stays in use until released or the attempt is made real. */
  reservePort(attempt: AnonymousAttempt): number {
    const port = this.allocatePort();
    this.anonPorts[this.anonCount] = port;
    this.anonAttempts[this.anonCount++] = attempt;
    return port;
  }

  releasePort(port: number): void {
    const n = this.anonCount;
    const ports = this.anonPorts;
    let i = 0;
    while (i < n && ports[i] !== port) i++;
    if (i === n) return;
    ports[i] = ports[n - 1]!;
    this.anonAttempts[i] = this.anonAttempts[n - 1]!;
    this.anonAttempts[n - 1] = null;
    this.anonCount = n - 1;
  }

  /** Whether a socket or an anonymous attempt holds the port: what the ephemeral port allocator must skip. */
  has(port: number): boolean {
    return this.byPort.has(port) || this.anonymousHolds(port);
  }

  private anonymousHolds(port: number): boolean {
    const ports = this.anonPorts;
    for (let i = 0; i < this.anonCount; i++) if (ports[i] === port) return true;
    return false;
  }

  /** The first SYN of an anonymous attempt on a reserved port: counted and sent like any first SYN, without a socket. */
  sendAnonymousSyn(port: number, remoteIp: number, remotePort: number, flow: number, generation: number): void {
    this.tcp.synSent.inc();
    this.tcp.wire(this, port, remoteIp, remotePort, TcpFlag.SYN, Payload.none, 1, flow, generation);
  }

  /** The socket of an anonymous attempt on its reserved port, from the moment its SYN left (see Tcp.adopt). */
  adopt(port: number, remoteIp: number, remotePort: number, owner: SocketOwner, sentAt: number): Socket {
    this.releasePort(port);
    const socket = this.tcp.adopt(this, port, remoteIp, remotePort, owner, sentAt);
    this.insert(socket);
    return socket;
  }

  send(socket: Socket, payload: PayloadId, message: number): void {
    this.tcp.wire(this, socket.localPort, socket.remoteIp, socket.remotePort, TcpFlag.ACK | TcpFlag.PSH, payload, message);
  }

  /** Orderly close: FIN now, the socket goes once the peer's FIN arrives (TIME_WAIT is not modelled). */
  close(socket: Socket): void {
    if (socket.state === TcpState.synSent) {
      this.drop(socket, 'closed');
      return;
    }
    if (socket.state !== TcpState.established) return;
    socket.state = TcpState.finWait;
    socket.owner = null;
    this.tcp.wire(this, socket.localPort, socket.remoteIp, socket.remotePort, TcpFlag.FIN | TcpFlag.ACK, Payload.none, 0);
  }

  /** Abortive close: RST to the peer for a synchronized connection; an unanswered SYN is simply forgotten. */
  abort(socket: Socket, cause: CloseCause = 'aborted'): void {
    if (!socket.open) return;
    if (socket.state !== TcpState.synSent) this.sendRst(socket.localPort, socket.remoteIp, socket.remotePort);
    this.drop(socket, cause);
  }

  /** Removes the socket without sending anything and tells its owner why. */
  drop(socket: Socket, cause: CloseCause): void {
    if (!socket.open) return;
    if (socket.state === TcpState.synSent) this.tcp.connectFailed.inc();
    const owner = socket.owner;
    this.remove(socket);
    owner?.onClosed(socket, cause);
  }

  /**
   * The process died: the kernel resets its open connections. Sockets that already sent their FIN are orphans owned
   * by the kernel; they stay until their peer's FIN or until the network namespace goes (`destroy`).
   */
  killAll(): void {
    this.listeners.clear();
    for (const socket of this.sockets()) if (socket.state !== TcpState.finWait) this.abort(socket, 'aborted');
  }

  /** The network namespace is gone: whatever sockets remain vanish without a packet. */
  destroy(): void {
    this.listeners.clear();
    for (const socket of this.sockets()) this.remove(socket);
  }

  /** The connection this pod opened from a local ephemeral port, if any. */
  clientSocket(localPort: number): Socket | undefined {
    const peers = this.byPort.get(localPort);
    if (!peers || this.listeners.has(localPort)) return undefined;
    if (peers instanceof Socket) return peers;
    for (const socket of peers.values()) return socket;
    return undefined;
  }

  /**
   * How many sockets are in each TcpState, anonymous attempts counted as connecting: a look that does not need the
   * sockets themselves leaves the attempts as they are.
   */
  stateCounts(): number[] {
    const counts = [0, 0, 0, 0, 0];
    for (const peers of this.byPort.values()) {
      if (peers instanceof Socket) counts[peers.state]!++;
      else for (const s of peers.values()) counts[s.state]!++;
    }
    counts[TcpState.synSent]! += this.anonCount;
    return counts;
  }

  sockets(): Socket[] {
    // Whoever asks for the sockets gets the anonymous attempts' too, as sockets of their own.
    if (this.anonCount > 0) for (const attempt of this.anonAttempts.slice(0, this.anonCount)) attempt!.materialize();
    const out: Socket[] = [];
    for (const peers of this.byPort.values()) {
      if (peers instanceof Socket) out.push(peers);
      else for (const s of peers.values()) out.push(s);
    }
    return out;
  }

  /**
   * Whether a segment finds a socket here: an existing connection, or a SYN for a listener taking connections. Anything
   * else is answered with a reset by `receive`; a stray RST is silently discarded.
   */
  owns(srcIp: number, srcPort: number, dstPort: number, flags: number): boolean {
    if (this.find(dstPort, srcIp, srcPort)) return true;
    if (flags & TcpFlag.RST) return true;
    return (flags & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN && this.listeners.get(dstPort)?.accepting === true;
  }

  /** Handles a packet addressed to this namespace, at `dstIp` (one of its addresses; a host has several). */
  receive(srcIp: number, srcPort: number, dstPort: number, flags: number, payload: PayloadId, message: number, dstIp = this.ip): void {
    const socket = this.find(dstPort, srcIp, srcPort);
    if (socket === undefined) {
      this.receiveWithoutSocket(srcIp, srcPort, dstPort, flags, dstIp);
      return;
    }
    if (flags & TcpFlag.RST) {
      this.tcp.rstReceived.inc();
      this.drop(socket, socket.state === TcpState.finWait ? 'closed' : 'reset');
      return;
    }
    switch (socket.state) {
      case TcpState.synSent:
        if ((flags & (TcpFlag.SYN | TcpFlag.ACK)) === (TcpFlag.SYN | TcpFlag.ACK)) {
          this.establish(socket);
          this.tcp.wire(this, socket.localPort, socket.remoteIp, socket.remotePort, TcpFlag.ACK, Payload.none, 0);
          this.tcp.connectOk.inc();
          socket.owner?.onConnected(socket);
        }
        return;
      case TcpState.synReceived:
        if (flags & TcpFlag.SYN) {
          this.tcp.wire(this, dstPort, srcIp, srcPort, TcpFlag.SYN | TcpFlag.ACK, Payload.none, 0);
          return;
        }
        if (flags & TcpFlag.ACK) {
          const listener = this.listeners.get(dstPort);
          if (!listener) {
            this.abort(socket);
            return;
          }
          this.establish(socket);
          socket.owner = listener.accept(socket);
          socket.owner.onConnected(socket);
          if (payload !== Payload.none) socket.owner.onData(socket, payload, message);
        }
        return;
      case TcpState.established:
        if (payload !== Payload.none) socket.owner?.onData(socket, payload, message);
        if (flags & TcpFlag.FIN) {
          const owner = socket.owner;
          this.tcp.wire(this, socket.localPort, socket.remoteIp, socket.remotePort, TcpFlag.FIN | TcpFlag.ACK, Payload.none, 0);
          this.remove(socket);
          owner?.onClosed(socket, 'peer_closed');
        }
        return;
      case TcpState.finWait:
        if (flags & TcpFlag.FIN) this.remove(socket);
        return;
    }
  }

  private receiveWithoutSocket(srcIp: number, srcPort: number, dstPort: number, flags: number, localIp: number): void {
    if (flags & TcpFlag.RST) return;
    const listener = this.listeners.get(dstPort);
    if ((flags & (TcpFlag.SYN | TcpFlag.ACK)) === TcpFlag.SYN && listener?.accepting) {
      const socket = this.tcp.open(this, dstPort, srcIp, srcPort, TcpState.synReceived, null);
      this.insert(socket);
      this.tcp.wire(this, dstPort, srcIp, srcPort, TcpFlag.SYN | TcpFlag.ACK, Payload.none, 0);
      return;
    }
    // No socket and no listener taking connections: the kernel answers with a reset from the address the segment was
    // sent to (docs/sources/tcp.md#resets).
    this.sendRst(dstPort, srcIp, srcPort, localIp);
  }

  private sendRst(srcPort: number, dstIp: number, dstPort: number, localIp = this.ip): void {
    this.tcp.rstSent.inc();
    this.tcp.wire(this, srcPort, dstIp, dstPort, TcpFlag.RST | TcpFlag.ACK, Payload.none, 0, -1, 0, localIp);
  }

  private establish(socket: Socket): void {
    if (socket.rtoTimer >= 0) this.tcp.ctx.sched.cancel(socket.rtoTimer);
    socket.rtoTimer = -1;
    socket.state = TcpState.established;
    this.tcp.established.add(1);
  }

  private find(localPort: number, remoteIp: number, remotePort: number): Socket | undefined {
    const peers = this.byPort.get(localPort);
    if (peers === undefined) return undefined;
    if (peers instanceof Socket) return peers.remoteIp === remoteIp && peers.remotePort === remotePort ? peers : undefined;
    return peers.get(remoteKey(remoteIp, remotePort));
  }

  private insert(socket: Socket): void {
    const peers = this.byPort.get(socket.localPort);
    if (peers === undefined) this.byPort.set(socket.localPort, socket);
    else if (peers instanceof Socket) {
      const map = new Map<number, Socket>();
      map.set(remoteKey(peers.remoteIp, peers.remotePort), peers);
      map.set(remoteKey(socket.remoteIp, socket.remotePort), socket);
      this.byPort.set(socket.localPort, map);
    } else peers.set(remoteKey(socket.remoteIp, socket.remotePort), socket);
  }

  private remove(socket: Socket): void {
    const peers = this.byPort.get(socket.localPort);
    if (peers === socket) this.byPort.delete(socket.localPort);
    else if (peers instanceof Map) {
      peers.delete(remoteKey(socket.remoteIp, socket.remotePort));
      if (peers.size === 0) this.byPort.delete(socket.localPort);
    }
    this.tcp.unregister(socket);
  }

  /** The next ephemeral port with no socket on it, as Linux hands out connect() ports from its range. */
  private allocatePort(): number {
    // Until the cursor has gone round, every port ahead of it is free: only the allocator hands them out.
    if (!this.ports.wrapped && !this.rangeShared) return this.ports.take();
    const port = this.ports.next(this);
    if (port < 0) throw new Error(`namespace ${this.ns} has run out of ephemeral ports`);
    return port;
  }
}
