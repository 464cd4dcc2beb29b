import { seconds, type Duration, type SimTime } from '../core/time';

/** Connection-tracking states with their own timeouts (kernel nf_conntrack_proto_tcp.c / _udp.c). */
export const CtState = {
  synSent: 0,
  synRecv: 1,
  established: 2,
  finWait: 3,
  closeWait: 4,
  lastAck: 5,
  timeWait: 6,
  close: 7,
  udpUnreplied: 8,
  udpStream: 9,
} as const;
export type CtStateId = (typeof CtState)[keyof typeof CtState];

/** Timeouts in seconds, indexed like CtState. */
export type ConntrackTimeouts = Record<keyof typeof CtState, number>;

// Kernel defaults, Documentation/networking/nf_conntrack-sysctl.rst (REFERENCE D.3).
export const KERNEL_TIMEOUTS: ConntrackTimeouts = {
  synSent: 120,
  synRecv: 60,
  established: 432_000,
  finWait: 120,
  closeWait: 60,
  lastAck: 30,
  timeWait: 120,
  close: 10,
  udpUnreplied: 30,
  udpStream: 120,
};

// kube-proxy sets established to 24 h and close_wait to 1 h (pkg/proxy/apis/config/v1alpha1/defaults.go, REFERENCE D.3).
export const KUBE_PROXY_TIMEOUTS: ConntrackTimeouts = { ...KERNEL_TIMEOUTS, established: 86_400, closeWait: 3_600 };

/** nf_conntrack_max as kube-proxy sets it: max(conntrack.min 131072, maxPerCore 32768 × cores) (REFERENCE D.3). */
export function kubeProxyConntrackMax(cores: number, min = 131_072, maxPerCore = 32_768): number {
  return Math.max(min, maxPerCore * cores);
}

const EMPTY = -1;

/**
 * A bounded connection-tracking table. Each entry is reachable from both directions of its flow, as the kernel
 * hashes each entry twice; slots live in typed arrays with open addressing, so lookups and inserts allocate nothing.
 * Expired entries count until a sweep (`expire`) or a lookup finds them, like the kernel's garbage collector.
 */
export class ConntrackTable {
  private readonly proto: Uint8Array;
  private readonly srcIp: Uint32Array;
  private readonly dstIp: Uint32Array;
  private readonly srcPort: Uint16Array;
  private readonly dstPort: Uint16Array;
  private readonly state: Uint8Array;
  private readonly expires: Float64Array;
  private readonly live: Uint8Array;
  private readonly freeIds: Int32Array;
  private freeCount: number;
  /** Hash slots: entry id * 2 + direction (0 original, 1 reply), or EMPTY. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly timeouts: Duration[];
  private count = 0;

  constructor(
    readonly max: number,
    timeouts: ConntrackTimeouts = KERNEL_TIMEOUTS,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`conntrack max must be a positive integer, got ${max}`);
    this.proto = new Uint8Array(max);
    this.srcIp = new Uint32Array(max);
    this.dstIp = new Uint32Array(max);
    this.srcPort = new Uint16Array(max);
    this.dstPort = new Uint16Array(max);
    this.state = new Uint8Array(max);
    this.expires = new Float64Array(max);
    this.live = new Uint8Array(max);
    this.freeIds = new Int32Array(max);
    for (let i = 0; i < max; i++) this.freeIds[i] = max - 1 - i;
    this.freeCount = max;
    let size = 8;
    while (size < max * 4) size *= 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    const order = Object.keys(CtState) as (keyof typeof CtState)[];
    this.timeouts = order.map((name) => seconds(timeouts[name]));
  }

  /** Entries held, expired or not. */
  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.max;
  }

  /** The entry of a flow in either direction, or -1. An expired entry is removed and not found. */
  lookup(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, now: SimTime): number {
    const slot = this.find(proto, srcIp, srcPort, dstIp, dstPort);
    if (slot < 0) return -1;
    const id = this.slots[slot]! >> 1;
    if (this.expires[id]! <= now) {
      this.remove(id);
      return -1;
    }
    return id;
  }

  /** Whether the entry was created by a packet in the other direction from this one. */
  isReply(id: number, srcIp: number, srcPort: number): boolean {
    return this.srcIp[id] !== srcIp || this.srcPort[id] !== srcPort;
  }

  /** Tracks a new flow; -1 when the table is full (the kernel drops the packet: "table full, dropping packet"). */
  insert(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, state: CtStateId, now: SimTime): number {
    if (this.freeCount === 0) return -1;
    const id = this.freeIds[--this.freeCount]!;
    this.proto[id] = proto;
    this.srcIp[id] = srcIp;
    this.srcPort[id] = srcPort;
    this.dstIp[id] = dstIp;
    this.dstPort[id] = dstPort;
    this.live[id] = 1;
    this.place(id * 2, proto, srcIp, srcPort, dstIp, dstPort);
    this.place(id * 2 + 1, proto, dstIp, dstPort, srcIp, srcPort);
    this.count++;
    this.update(id, state, now);
    return id;
  }

  /** Moves an entry to a state and restarts that state's timeout. */
  update(id: number, state: CtStateId, now: SimTime): void {
    this.state[id] = state;
    this.expires[id] = now + this.timeouts[state]!;
  }

  stateOf(id: number): CtStateId {
    return this.state[id] as CtStateId;
  }

  expiresAt(id: number): SimTime {
    return this.expires[id] as SimTime;
  }

  remove(id: number): void {
    this.unplace(this.find(this.proto[id]!, this.srcIp[id]!, this.srcPort[id]!, this.dstIp[id]!, this.dstPort[id]!));
    this.unplace(this.find(this.proto[id]!, this.dstIp[id]!, this.dstPort[id]!, this.srcIp[id]!, this.srcPort[id]!));
    this.live[id] = 0;
    this.freeIds[this.freeCount++] = id;
    this.count--;
  }

  /** Removes every entry whose timeout has passed; returns how many went. */
  expire(now: SimTime): number {
    let removed = 0;
    for (let id = 0; id < this.max; id++) {
      if (this.live[id] === 1 && this.expires[id]! <= now) {
        this.remove(id);
        removed++;
      }
    }
    return removed;
  }

  private hash(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): number {
    let h = Math.imul(srcIp ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13) ^ dstIp, 0xc2b2ae35);
    h = Math.imul(h ^ (h >>> 16) ^ ((srcPort << 16) | dstPort), 0x27d4eb2f);
    h ^= proto;
    return (h ^ (h >>> 15)) & this.mask;
  }

  private matches(ref: number, proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): boolean {
    const id = ref >> 1;
    if (this.proto[id] !== proto) return false;
    if ((ref & 1) === 0) {
      return this.srcIp[id] === srcIp && this.srcPort[id] === srcPort && this.dstIp[id] === dstIp && this.dstPort[id] === dstPort;
    }
    return this.dstIp[id] === srcIp && this.dstPort[id] === srcPort && this.srcIp[id] === dstIp && this.srcPort[id] === dstPort;
  }

  private find(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): number {
    for (let slot = this.hash(proto, srcIp, srcPort, dstIp, dstPort); ; slot = (slot + 1) & this.mask) {
      const ref = this.slots[slot]!;
      if (ref === EMPTY) return -1;
      if (this.matches(ref, proto, srcIp, srcPort, dstIp, dstPort)) return slot;
    }
  }

  private place(ref: number, proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number): void {
    let slot = this.hash(proto, srcIp, srcPort, dstIp, dstPort);
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.slots[slot] = ref;
  }

  /** Backward-shift deletion keeps every probe chain unbroken without tombstones. */
  private unplace(slot: number): void {
    if (slot < 0) return;
    let hole = slot;
    for (let next = (hole + 1) & this.mask; this.slots[next] !== EMPTY; next = (next + 1) & this.mask) {
      const ref = this.slots[next]!;
      const home = this.homeOf(ref);
      // Move the entry back if its home slot is not cyclically between the hole and its current slot.
      const distanceToEntry = (next - home) & this.mask;
      const distanceToHole = (next - hole) & this.mask;
      if (distanceToEntry >= distanceToHole) {
        this.slots[hole] = ref;
        hole = next;
      }
    }
    this.slots[hole] = EMPTY;
  }

  private homeOf(ref: number): number {
    const id = ref >> 1;
    return (ref & 1) === 0
      ? this.hash(this.proto[id]!, this.srcIp[id]!, this.srcPort[id]!, this.dstIp[id]!, this.dstPort[id]!)
      : this.hash(this.proto[id]!, this.dstIp[id]!, this.dstPort[id]!, this.srcIp[id]!, this.srcPort[id]!);
  }
}
