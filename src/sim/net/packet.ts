/** Packets live in a pool of typed arrays and are named by integer ids, so the packet path allocates nothing. */

export const TcpFlag = { SYN: 1, ACK: 2, FIN: 4, RST: 8, PSH: 16 } as const;

/** What a packet's payload carries, beyond its TCP flags. */
export const Payload = { none: 0, request: 1, response: 2, datagram: 3, goaway: 4, ping: 5, pingAck: 6 } as const;
export type PayloadId = (typeof Payload)[keyof typeof Payload];

/** Where a packet is about to arrive; `at` says which host, pod or element. */
export const Stage = {
  /** Leaving a pod, arriving at its host's side of the veth. */
  hostFromPod: 0,
  /** Arriving at a host on the interface in `iface`, from the wire or the hypervisor. */
  hostFromWire: 1,
  /** Arriving at a pod from its host. */
  pod: 2,
  /** Leaving a cloud instance: the hypervisor's checks before the fabric. */
  hypervisorOut: 3,
  /** Arriving at a cloud instance from the fabric, on the interface in `iface`. */
  hypervisorIn: 4,
  /** On the fabric (VPC or data-centre network), which finds who holds the destination. */
  fabric: 5,
  /** Arriving at an element outside the nodes: a router, a load balancer, an external server. */
  element: 6,
  /** Addressed to the host itself: handed to a host process's socket. */
  hostLocal: 7,
} as const;
export type StageId = (typeof Stage)[keyof typeof Stage];

// Linux net.ipv4.ip_default_ttl is 64 (Documentation/networking/ip-sysctl.rst).
export const DEFAULT_TTL = 64;

export const Proto = { ipip: 4, tcp: 6, udp: 17 } as const;

export class PacketPool {
  srcIp: Uint32Array;
  dstIp: Uint32Array;
  srcPort: Uint16Array;
  dstPort: Uint16Array;
  proto: Uint8Array;
  flags: Uint8Array;
  payload: Uint8Array;
  stage: Uint8Array;
  /** Host or pod index the packet is arriving at. */
  at: Int32Array;
  /** Request/response id carried by data packets. */
  message: Float64Array;
  /** Sampled trace slot, or -1 when the packet is not traced. */
  trace: Int32Array;
  ttl: Uint8Array;
  /** Interface index on the host it arrives at (hostFromWire, hypervisorIn). */
  iface: Int16Array;
  /** Outer header of an IP-in-IP packet (node to node), 0 when not encapsulated. */
  outerSrc: Uint32Array;
  outerDst: Uint32Array;
  /** When the packet reaches its current stage: its send time plus the latency of the hops behind it. */
  time: Float64Array;
  /** The anonymous flow the packet belongs to (net/anonymous-flows.ts), or -1; and that flow's attempt. */
  anon: Int32Array;
  anonGeneration: Int32Array;
  private free: Int32Array;
  private freeCount = 0;
  private capacity: number;
  private used = 0;

  constructor(initialCapacity = 1024) {
    this.capacity = initialCapacity;
    this.srcIp = new Uint32Array(initialCapacity);
    this.dstIp = new Uint32Array(initialCapacity);
    this.srcPort = new Uint16Array(initialCapacity);
    this.dstPort = new Uint16Array(initialCapacity);
    this.proto = new Uint8Array(initialCapacity);
    this.flags = new Uint8Array(initialCapacity);
    this.payload = new Uint8Array(initialCapacity);
    this.stage = new Uint8Array(initialCapacity);
    this.at = new Int32Array(initialCapacity);
    this.message = new Float64Array(initialCapacity);
    this.trace = new Int32Array(initialCapacity);
    this.ttl = new Uint8Array(initialCapacity);
    this.iface = new Int16Array(initialCapacity);
    this.outerSrc = new Uint32Array(initialCapacity);
    this.outerDst = new Uint32Array(initialCapacity);
    this.time = new Float64Array(initialCapacity);
    this.anon = new Int32Array(initialCapacity);
    this.anonGeneration = new Int32Array(initialCapacity);
    this.free = new Int32Array(initialCapacity);
  }

  /** Packets currently allocated (in flight). */
  get inFlight(): number {
    return this.used - this.freeCount;
  }

  alloc(): number {
    let id: number;
    if (this.freeCount > 0) id = this.free[--this.freeCount]!;
    else {
      if (this.used === this.capacity) this.grow();
      id = this.used++;
    }
    this.trace[id] = -1;
    this.message[id] = 0;
    this.payload[id] = Payload.none;
    this.ttl[id] = DEFAULT_TTL;
    this.iface[id] = -1;
    this.outerSrc[id] = 0;
    this.outerDst[id] = 0;
    this.anon[id] = -1;
    return id;
  }

  release(id: number): void {
    this.free[this.freeCount++] = id;
  }

  private grow(): void {
    const n = this.capacity * 2;
    const widen = <T extends Uint32Array | Uint16Array | Uint8Array | Int16Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.srcIp = widen(this.srcIp, (k) => new Uint32Array(k));
    this.dstIp = widen(this.dstIp, (k) => new Uint32Array(k));
    this.srcPort = widen(this.srcPort, (k) => new Uint16Array(k));
    this.dstPort = widen(this.dstPort, (k) => new Uint16Array(k));
    this.proto = widen(this.proto, (k) => new Uint8Array(k));
    this.flags = widen(this.flags, (k) => new Uint8Array(k));
    this.payload = widen(this.payload, (k) => new Uint8Array(k));
    this.stage = widen(this.stage, (k) => new Uint8Array(k));
    this.at = widen(this.at, (k) => new Int32Array(k));
    this.message = widen(this.message, (k) => new Float64Array(k));
    this.trace = widen(this.trace, (k) => new Int32Array(k));
    this.ttl = widen(this.ttl, (k) => new Uint8Array(k));
    this.iface = widen(this.iface, (k) => new Int16Array(k));
    this.outerSrc = widen(this.outerSrc, (k) => new Uint32Array(k));
    this.outerDst = widen(this.outerDst, (k) => new Uint32Array(k));
    this.time = widen(this.time, (k) => new Float64Array(k));
    this.anon = widen(this.anon, (k) => new Int32Array(k));
    this.anonGeneration = widen(this.anonGeneration, (k) => new Int32Array(k));
    this.free = widen(this.free, (k) => new Int32Array(k));
    this.capacity = n;
  }
}

export function describeFlags(flags: number): string {
  const names: string[] = [];
  if (flags & TcpFlag.SYN) names.push('SYN');
  if (flags & TcpFlag.ACK) names.push('ACK');
  if (flags & TcpFlag.FIN) names.push('FIN');
  if (flags & TcpFlag.RST) names.push('RST');
  if (flags & TcpFlag.PSH) names.push('PSH');
  return names.join('|') || 'none';
}
