import { shared } from '../core/snapshot';
import type { Counter } from '../core/metrics';
import type { SimContext } from '../context';
import { IntMap } from '../core/int-map';
import { EphemeralPorts } from './ephemeral-ports';

/** Receives the datagrams sent to a bound port; `message` is the id the sender attached. */
export interface DatagramOwner {
  onDatagram(srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number): void;
}

/** Sends a datagram out of a network namespace; the network decides where it goes. */
export type UdpWire = (stack: UdpStack, srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number) => void;

const unattached = shared('udp.unattached', (): never => {
  throw new Error('udp wire used before the network was attached');
});

/** The UDP machinery shared by every namespace: the wire and counters. UDP keeps no connection state. */
export class Udp {
  readonly sent: Counter;
  readonly received: Counter;
  wire: UdpWire = unattached;

  constructor(readonly ctx: SimContext) {
    this.sent = ctx.metrics.counter('udp.datagrams.sent');
    this.received = ctx.metrics.counter('udp.datagrams.received');
  }
}

/** One namespace's bound UDP ports. */
export class UdpStack {
  // A pod binds and unbinds an ephemeral port for every DNS lookup: a Map would allocate and rehash backing stores.
  private readonly bound = new IntMap<DatagramOwner>();
  private readonly ports = new EphemeralPorts();

  constructor(
    readonly udp: Udp,
    readonly ip: number,
    /** Network namespace: a pod index, or -1 - n for the n-th host and then the external elements (Network.elementNamespace). */
    readonly ns: number,
  ) {}

  bind(port: number, owner: DatagramOwner): void {
    if (this.bound.has(port)) throw new Error(`UDP port ${port} is already bound`);
    this.bound.set(port, owner);
  }

  unbind(port: number): void {
    this.bound.delete(port);
  }

  /** Binds the next free ephemeral port, as an unconnected socket's first sendto does. */
  bindEphemeral(owner: DatagramOwner): number {
    const port = this.ports.next(this.bound);
    if (port < 0) throw new Error(`namespace ${this.ns} has run out of ephemeral UDP ports`);
    this.bound.set(port, owner);
    return port;
  }

  /** Sends from `srcIp` (a server answers from the address it was asked on) or the namespace's own address. */
  send(srcPort: number, dstIp: number, dstPort: number, message: number, srcIp: number = this.ip): void {
    this.udp.sent.inc();
    this.udp.wire(this, srcIp, srcPort, dstIp, dstPort, message);
  }

  /** Whether a datagram to this port has a reader; without one the kernel discards it. */
  isBound(port: number): boolean {
    return this.bound.has(port);
  }

  receive(srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number): void {
    const owner = this.bound.get(dstPort);
    if (!owner) return;
    this.udp.received.inc();
    owner.onDatagram(srcIp, srcPort, dstIp, dstPort, message);
  }

  unbindAll(): void {
    this.bound.clear();
  }
}
