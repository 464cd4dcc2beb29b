import type { Counter } from '../core/metrics';
import type { SimContext } from '../context';
import { EphemeralPorts } from './ephemeral-ports';

/** Receives the datagrams sent to a bound port; `message` is the id the sender attached. */
export interface DatagramOwner {
  onDatagram(srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number): void;
}

/** Sends a datagram out of a network namespace; the network decides where it goes. */
export type UdpWire = (stack: UdpStack, srcIp: number, srcPort: number, dstIp: number, dstPort: number, message: number) => void;

/** The UDP machinery shared by every namespace: the wire and counters. UDP keeps no connection state. */
export class Udp {
  readonly sent: Counter;
  readonly received: Counter;
  wire: UdpWire = () => {
    throw new Error('udp wire used before the network was attached');
  };

  constructor(readonly ctx: SimContext) {
    this.sent = ctx.metrics.counter('udp.datagrams.sent');
    this.received = ctx.metrics.counter('udp.datagrams.received');
  }
}

const NO_PORT = -1;

/**
 * Bound ports and their owners, open-addressed (linear probing, deletion by backward shift): a pod binds and unbinds
 * an ephemeral port for every DNS lookup, which in a Map allocated and rehashed backing stores.
 */
class PortTable {
  private ports = new Int32Array(8).fill(NO_PORT);
  private owners: (DatagramOwner | undefined)[] = new Array<DatagramOwner | undefined>(8).fill(undefined);
  private count = 0;

  has(port: number): boolean {
    return this.slotOf(port) >= 0;
  }

  get(port: number): DatagramOwner | undefined {
    const slot = this.slotOf(port);
    return slot < 0 ? undefined : this.owners[slot];
  }

  set(port: number, owner: DatagramOwner): void {
    const slot = this.slotOf(port);
    if (slot >= 0) {
      this.owners[slot] = owner;
      return;
    }
    if (2 * (this.count + 1) > this.ports.length) this.grow();
    this.place(port, owner);
  }

  delete(port: number): void {
    const slot = this.slotOf(port);
    if (slot < 0) return;
    const mask = this.ports.length - 1;
    const ports = this.ports;
    let hole = slot;
    for (let j = (slot + 1) & mask; ports[j] !== NO_PORT; j = (j + 1) & mask) {
      const home = ports[j]! & mask;
      // The port at j may fill the hole unless its home lies cyclically in (hole, j].
      if (hole <= j ? hole < home && home <= j : hole < home || home <= j) continue;
      ports[hole] = ports[j]!;
      this.owners[hole] = this.owners[j];
      hole = j;
    }
    ports[hole] = NO_PORT;
    this.owners[hole] = undefined;
    this.count--;
  }

  clear(): void {
    this.ports.fill(NO_PORT);
    this.owners.fill(undefined);
    this.count = 0;
  }

  private slotOf(port: number): number {
    const mask = this.ports.length - 1;
    for (let i = port & mask; ; i = (i + 1) & mask) {
      const p = this.ports[i]!;
      if (p === port) return i;
      if (p === NO_PORT) return -1;
    }
  }

  private place(port: number, owner: DatagramOwner): void {
    const mask = this.ports.length - 1;
    let i = port & mask;
    while (this.ports[i] !== NO_PORT) i = (i + 1) & mask;
    this.ports[i] = port;
    this.owners[i] = owner;
    this.count++;
  }

  private grow(): void {
    const ports = this.ports;
    const owners = this.owners;
    this.ports = new Int32Array(ports.length * 2).fill(NO_PORT);
    this.owners = new Array<DatagramOwner | undefined>(ports.length * 2).fill(undefined);
    this.count = 0;
    for (let i = 0; i < ports.length; i++) if (ports[i] !== NO_PORT) this.place(ports[i]!, owners[i]!);
  }
}

/** One namespace's bound UDP ports. */
export class UdpStack {
  private readonly bound = new PortTable();
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
