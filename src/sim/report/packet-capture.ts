/**
 * Headers of packets as the simulation sent them, for a pcap file: one packet in every `every` that leave a socket,
 * counted rather than drawn at random so a capture leaves the run's random streams and digest as they are. A ring
 * keeps the latest `capacity`.
 */
export class PacketCapture {
  readonly time: Float64Array;
  readonly srcIp: Uint32Array;
  readonly dstIp: Uint32Array;
  readonly srcPort: Uint16Array;
  readonly dstPort: Uint16Array;
  readonly proto: Uint8Array;
  readonly flags: Uint8Array;
  readonly payload: Uint8Array;
  private seen = 0;
  private stored = 0;
  /** Packets to go until the next one kept (1: this one), and the ring slot it goes to. */
  private untilNext = 1;
  private next = 0;

  constructor(
    readonly every: number,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(every) || every < 1) throw new RangeError(`capture: every must be a whole number from 1, got ${every}`);
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capture: capacity must be a whole number from 1, got ${capacity}`);
    this.time = new Float64Array(capacity);
    this.srcIp = new Uint32Array(capacity);
    this.dstIp = new Uint32Array(capacity);
    this.srcPort = new Uint16Array(capacity);
    this.dstPort = new Uint16Array(capacity);
    this.proto = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.payload = new Uint8Array(capacity);
  }

  /** Packets that left a socket so far, captured or not. */
  get packetsSeen(): number {
    return this.seen;
  }

  /** Packets the ring holds. */
  get size(): number {
    return Math.min(this.stored, this.capacity);
  }

  record(time: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, proto: number, flags: number, payload: number): void {
    this.seen++;
    // Counters instead of two divisions per packet: the worker captures every packet of every run.
    if (--this.untilNext > 0) return;
    this.untilNext = this.every;
    const i = this.next;
    this.next = i + 1 === this.capacity ? 0 : i + 1;
    this.stored++;
    this.time[i] = time;
    this.srcIp[i] = srcIp;
    this.dstIp[i] = dstIp;
    this.srcPort[i] = srcPort;
    this.dstPort[i] = dstPort;
    this.proto[i] = proto;
    this.flags[i] = flags;
    this.payload[i] = payload;
  }

  /** Ring slots from the oldest kept packet to the newest. */
  *slots(): Generator<number> {
    const size = this.size;
    const first = this.stored - size;
    for (let k = 0; k < size; k++) yield (first + k) % this.capacity;
  }
}
