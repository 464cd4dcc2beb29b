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

// Kernel defaults, Documentation/networking/nf_conntrack-sysctl.rst (docs/sources/linux-conntrack.md#timeouts).
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

// kube-proxy sets established to 24 h and close_wait to 1 h (docs/sources/linux-conntrack.md#kube-proxy-settings).
export const KUBE_PROXY_TIMEOUTS: ConntrackTimeouts = { ...KERNEL_TIMEOUTS, established: 86_400, closeWait: 3_600 };

/**
 * nf_conntrack_max as kube-proxy sets it: max(conntrack.min 131072, maxPerCore 32768 × cores)
 * (docs/sources/linux-conntrack.md#kube-proxy-settings).
 */
export function kubeProxyConntrackMax(cores: number, min = 131_072, maxPerCore = 32_768): number {
  return Math.max(min, maxPerCore * cores);
}

const EMPTY = -1;
// Model choice: tables start small and double up to their maximum, so fifty idle nodes do not hold fifty full tables.
const INITIAL_CAPACITY = 1024;
// The kernel's gc worker and early_drop look at a bounded number of entries at a time (nf_conntrack_core.c).
const RECLAIM_SCAN = 64;
// Words per entry in the interleaved array: the tuples, a word of proto | state | flags, the id's incarnation, then the
// expiry as a float64 (words 8-9), so one entry sits in one or two cache lines instead of one per field.
const STRIDE = 10;
const INCARNATION = 7;
/** Index of an entry's expiry in the float64 view of the same buffer. */
const expiryAt = (id: number): number => id * (STRIDE / 2) + 4;
const PROTO_MASK = 0xff;
const STATE_MASK = 0xff00;
const LIVE = 0x10000;
/** An entry counted without being hashed: only its own flow's owner can reach it, by id (insertAnonymous). */
const ANONYMOUS = 0x20000;
/** Both ports of a direction in one word, source port high. */
const packPorts = (srcPort: number, dstPort: number): number => ((srcPort << 16) | dstPort) >>> 0;

/**
 * How a tracked TCP flow moves between states as packets pass, simplified from nf_conntrack_proto_tcp.c: a SYN opens,
 * the SYN-ACK in reply makes it SYN_RECV, the next packet from the opener establishes it, a FIN starts the close and a
 * second FIN ends in TIME_WAIT, a RST closes it.
 */
export function nextTcpState(state: CtStateId, flags: number, reply: boolean): CtStateId {
  // Flag bits as in net/packet.ts: SYN 1, ACK 2, FIN 4, RST 8.
  if (flags & 8) return CtState.close;
  if (flags & 4) {
    if (state === CtState.finWait || state === CtState.closeWait || state === CtState.lastAck) return CtState.timeWait;
    return CtState.finWait;
  }
  if (state === CtState.synSent && reply && (flags & 3) === 3) return CtState.synRecv;
  if (state === CtState.synRecv && !reply && flags & 2) return CtState.established;
  return state;
}

/** A UDP flow becomes a stream once a reply has been seen (nf_conntrack_proto_udp.c; AWS tracks the same way, E.2). */
export function nextUdpState(state: CtStateId, reply: boolean): CtStateId {
  return reply || state === CtState.udpStream ? CtState.udpStream : CtState.udpUnreplied;
}

function checkMax(max: number): void {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`conntrack max must be a positive integer, got ${max}`);
}

/**
 * A bounded connection-tracking table. Each entry holds the flow as first seen (original) and as its replies will look
 * (reply, which differs from the reversed original when NAT rewrote the flow); both are hashed, as the kernel hashes
 * every entry twice. Slots live in typed arrays with open addressing, so lookups and inserts allocate nothing.
 * Expired entries count until a lookup, a sweep or a reclaim finds them, like the kernel's garbage collector.
 *
 * An entry can also be held without being hashed ("anonymous", see insertAnonymous): it takes its id, counts and
 * expires like any other, and is swept or reclaimed by the same scans, but no lookup finds it; whoever made it moves
 * it on by id. Ids are handed out and taken back in the same order either way, so a table whose flows are partly
 * anonymous fills, drains and refuses exactly as one that keeps them all.
 */
export class ConntrackTable {
  /**
   * Entries interleaved, STRIDE words each, so a probe reads one cache line: original source, destination and ports,
   * reply source, destination and ports, then proto | state << 8 | live << 16.
   */
  private tuples = new Uint32Array(0);
  /** The same buffer as float64s, for the expiries (expiryAt). */
  private times = new Float64Array(0);
  private freeIds = new Int32Array(0);
  private freeCount = 0;
  private capacity = 0;
  /** Hash slots: entry id * 2 + direction (0 original, 1 reply), or EMPTY. */
  private slots = new Int32Array(0);
  private mask = 0;
  private readonly timeouts: Duration[];
  private count = 0;
  private reclaimCursor = 0;
  /** No live entry expires before this; lets a full table refuse a new flow without scanning. */
  private expiryFloor = 0;
  /** The earliest expiry among entries the current sweep pass has looked at or that changed during it. */
  private passFloor = Infinity;

  private limit: number;

  constructor(max: number, timeouts: ConntrackTimeouts = KERNEL_TIMEOUTS) {
    checkMax(max);
    this.limit = max;
    const order = Object.keys(CtState) as (keyof typeof CtState)[];
    this.timeouts = order.map((name) => seconds(timeouts[name]));
    this.grow(Math.min(max, INITIAL_CAPACITY));
  }

  get max(): number {
    return this.limit;
  }

  /** A new limit. Entries above a lowered one stay until they expire; no new flow is tracked until the table is below it. */
  setMax(max: number): void {
    checkMax(max);
    this.limit = max;
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
    const ref = this.lookupRef(proto, srcIp, srcPort, dstIp, dstPort, now);
    return ref < 0 ? -1 : ref >> 1;
  }

  /** Like `lookup`, but returns entry id × 2 + direction (1 when the packet travels the reply way). */
  lookupRef(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, now: SimTime): number {
    const slot = this.find(proto, srcIp >>> 0, dstIp >>> 0, packPorts(srcPort, dstPort));
    if (slot < 0) return -1;
    const ref = this.slots[slot]!;
    if (this.times[expiryAt(ref >> 1)]! <= now) {
      this.remove(ref >> 1);
      return -1;
    }
    return ref;
  }

  /** Whether the entry was created by a packet in the other direction from this one. */
  isReply(id: number, srcIp: number, srcPort: number): boolean {
    return this.originalSource(id) !== srcIp >>> 0 || this.originalSourcePort(id) !== srcPort;
  }

  /** Tracks a new flow whose replies are the reversed original; -1 when the table is full. */
  insert(proto: number, srcIp: number, srcPort: number, dstIp: number, dstPort: number, state: CtStateId, now: SimTime): number {
    return this.insertNat(proto, srcIp, srcPort, dstIp, dstPort, dstIp, dstPort, srcIp, srcPort, state, now);
  }

  /**
   * Tracks a new flow whose replies come from `replySrc:replySport` to `replyDst:replyDport` (after DNAT or SNAT).
   * When full, a bounded scan reclaims an expired entry first; -1 when none frees up (the kernel drops the packet:
   * "nf_conntrack: table full, dropping packet").
   */
  insertNat(
    proto: number,
    srcIp: number,
    srcPort: number,
    dstIp: number,
    dstPort: number,
    replySrc: number,
    replySport: number,
    replyDst: number,
    replyDport: number,
    state: CtStateId,
    now: SimTime,
  ): number {
    const id = this.take(proto, srcIp, srcPort, dstIp, dstPort, replySrc, replySport, replyDst, replyDport, state, now, LIVE);
    if (id >= 0) {
      this.place(id * 2);
      this.place(id * 2 + 1);
    }
    return id;
  }

  /**
   * Tracks a new flow without hashing it, for a connection attempt whose tuple no later packet carries but its own
   * replies, which its owner follows by id (net/anonymous-flows.ts). It takes its id, counts, expires and is
   * reclaimed like any entry; -1 when the table is full.
   */
  insertAnonymous(
    proto: number,
    srcIp: number,
    srcPort: number,
    dstIp: number,
    dstPort: number,
    replySrc: number,
    replySport: number,
    replyDst: number,
    replyDport: number,
    state: CtStateId,
    now: SimTime,
  ): number {
    return this.take(proto, srcIp, srcPort, dstIp, dstPort, replySrc, replySport, replyDst, replyDport, state, now, LIVE | ANONYMOUS);
  }

  /** Whether `id` still holds the anonymous entry handed out as `incarnation` (it may have expired and gone to another flow). */
  holds(id: number, incarnation: number): boolean {
    return this.tuples[id * STRIDE + INCARNATION] === incarnation && (this.tuples[id * STRIDE + 6]! & ANONYMOUS) !== 0;
  }

  incarnationOf(id: number): number {
    return this.tuples[id * STRIDE + INCARNATION]!;
  }

  /** An anonymous entry becomes an ordinary one: it is hashed, so lookups find it from now on. */
  promote(id: number): void {
    const b = id * STRIDE + 6;
    if ((this.tuples[b]! & ANONYMOUS) === 0) return;
    this.tuples[b] = this.tuples[b]! & ~ANONYMOUS;
    this.place(id * 2);
    this.place(id * 2 + 1);
  }

  private take(
    proto: number,
    srcIp: number,
    srcPort: number,
    dstIp: number,
    dstPort: number,
    replySrc: number,
    replySport: number,
    replyDst: number,
    replyDport: number,
    state: CtStateId,
    now: SimTime,
    flags: number,
  ): number {
    if (this.count >= this.max && (!this.reclaim(now) || this.count >= this.max)) return -1;
    if (this.freeCount === 0) this.grow(Math.min(this.max, this.capacity * 2));
    const id = this.freeIds[--this.freeCount]!;
    const t = this.tuples;
    const b = id * STRIDE;
    t[b] = srcIp;
    t[b + 1] = dstIp;
    t[b + 2] = packPorts(srcPort, dstPort);
    t[b + 3] = replySrc;
    t[b + 4] = replyDst;
    t[b + 5] = packPorts(replySport, replyDport);
    t[b + 6] = proto | flags;
    t[b + INCARNATION]!++;
    this.count++;
    this.update(id, state, now);
    return id;
  }

  /** Moves an entry to a state and restarts that state's timeout. */
  update(id: number, state: CtStateId, now: SimTime): void {
    const b = id * STRIDE + 6;
    this.tuples[b] = (this.tuples[b]! & ~STATE_MASK) | (state << 8);
    const expires = now + this.timeouts[state]!;
    this.times[expiryAt(id)] = expires;
    if (expires < this.expiryFloor) this.expiryFloor = expires;
    if (expires < this.passFloor) this.passFloor = expires;
  }

  stateOf(id: number): CtStateId {
    return ((this.tuples[id * STRIDE + 6]! & STATE_MASK) >>> 8) as CtStateId;
  }

  expiresAt(id: number): SimTime {
    return this.times[expiryAt(id)] as SimTime;
  }

  /** Where replies of this entry come from and go to: the NAT rewrite a packet of the flow gets. */
  replySource(id: number): number {
    return this.tuples[id * STRIDE + 3]!;
  }
  replySourcePort(id: number): number {
    return this.tuples[id * STRIDE + 5]! >>> 16;
  }
  replyDestination(id: number): number {
    return this.tuples[id * STRIDE + 4]!;
  }
  replyDestinationPort(id: number): number {
    return this.tuples[id * STRIDE + 5]! & 0xffff;
  }
  originalSource(id: number): number {
    return this.tuples[id * STRIDE]!;
  }
  originalSourcePort(id: number): number {
    return this.tuples[id * STRIDE + 2]! >>> 16;
  }
  originalDestination(id: number): number {
    return this.tuples[id * STRIDE + 1]!;
  }
  originalDestinationPort(id: number): number {
    return this.tuples[id * STRIDE + 2]! & 0xffff;
  }

  remove(id: number): void {
    if ((this.tuples[id * STRIDE + 6]! & ANONYMOUS) === 0) {
      this.unplace(this.slotOf(id * 2));
      this.unplace(this.slotOf(id * 2 + 1));
    }
    this.tuples[id * STRIDE + 6] = 0;
    this.freeIds[this.freeCount++] = id;
    this.count--;
  }

  private isLive(id: number): boolean {
    return (this.tuples[id * STRIDE + 6]! & LIVE) !== 0;
  }

  /** Removes every entry whose timeout has passed; returns how many went. */
  expire(now: SimTime): number {
    let removed = 0;
    for (let id = 0; id < this.capacity; id++) {
      if (this.isLive(id) && this.times[expiryAt(id)]! <= now) {
        this.remove(id);
        removed++;
      }
    }
    return removed;
  }

  /** Removes expired entries among the next `budget` slots of a rolling cursor, like the kernel's incremental gc. */
  sweep(now: SimTime, budget: number): number {
    // An empty table's slots hold nothing to look at: only the cursor moves, and each pass it completes sees no expiry.
    if (this.count === 0 && this.capacity > 0) {
      const end = this.reclaimCursor + budget;
      const passes = Math.floor(end / this.capacity);
      if (passes > 0) {
        this.expiryFloor = passes === 1 ? this.passFloor : Infinity;
        this.passFloor = Infinity;
      }
      this.reclaimCursor = end % this.capacity;
      return 0;
    }
    let removed = 0;
    for (let i = 0; i < budget && this.capacity > 0; i++) {
      const id = this.reclaimCursor;
      if (this.isLive(id)) {
        const expires = this.times[expiryAt(id)]!;
        if (expires <= now) {
          this.remove(id);
          removed++;
        } else if (expires < this.passFloor) this.passFloor = expires;
      }
      if (id + 1 < this.capacity) this.reclaimCursor = id + 1;
      else {
        // A full pass has seen every live entry: its floor is now exact (a lower bound, with later updates folded in).
        this.reclaimCursor = 0;
        this.expiryFloor = this.passFloor;
        this.passFloor = Infinity;
      }
    }
    return removed;
  }

  /**
   * The original destination most entries share among the first `sample` live ones, and how many of those do; for
   * explanations only, so a bounded scan is enough.
   */
  busiestDestination(sample = 1024): { ip: number; entries: number; sampled: number } | null {
    const counts = new Map<number, number>();
    let best: { ip: number; entries: number; sampled: number } | null = null;
    let sampled = 0;
    for (let id = 0; id < this.capacity && sampled < sample; id++) {
      if (!this.isLive(id)) continue;
      sampled++;
      const ip = this.originalDestination(id);
      const n = (counts.get(ip) ?? 0) + 1;
      counts.set(ip, n);
      if (!best || n > best.entries) best = { ip, entries: n, sampled: 0 };
    }
    if (best) best.sampled = sampled;
    return best;
  }

  private reclaim(now: SimTime): boolean {
    // Nothing can have expired yet: refuse at once, as a SYN flood into a full table would otherwise scan per packet.
    if (now < this.expiryFloor) return false;
    return this.sweep(now, RECLAIM_SCAN) > 0;
  }

  private grow(capacity: number): void {
    const old = this.capacity;
    if (capacity <= old) return;
    const tuples = new Uint32Array(capacity * STRIDE);
    tuples.set(this.tuples);
    this.tuples = tuples;
    this.times = new Float64Array(tuples.buffer);
    const freeIds = new Int32Array(capacity);
    freeIds.set(this.freeIds.subarray(0, this.freeCount));
    let free = this.freeCount;
    for (let id = capacity - 1; id >= old; id--) freeIds[free++] = id;
    this.freeIds = freeIds;
    this.freeCount = free;
    this.capacity = capacity;
    let size = 8;
    while (size < capacity * 4) size *= 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    for (let id = 0; id < old; id++) {
      if (!this.isLive(id) || (this.tuples[id * STRIDE + 6]! & ANONYMOUS) !== 0) continue;
      this.place(id * 2);
      this.place(id * 2 + 1);
    }
  }

  private hash(proto: number, src: number, dst: number, ports: number): number {
    let h = Math.imul(src ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13) ^ dst, 0xc2b2ae35);
    h = Math.imul(h ^ (h >>> 16) ^ ports, 0x27d4eb2f);
    h ^= proto;
    return (h ^ (h >>> 15)) & this.mask;
  }

  /** The hash of the tuple a reference stands for: the original, or the reply as it travels. */
  private homeOf(ref: number): number {
    const t = this.tuples;
    const b = (ref >> 1) * STRIDE;
    const proto = t[b + 6]! & PROTO_MASK;
    return (ref & 1) === 0 ? this.hash(proto, t[b]!, t[b + 1]!, t[b + 2]!) : this.hash(proto, t[b + 3]!, t[b + 4]!, t[b + 5]!);
  }

  private matches(ref: number, proto: number, src: number, dst: number, ports: number): boolean {
    const t = this.tuples;
    const b = (ref >> 1) * STRIDE;
    if ((t[b + 6]! & PROTO_MASK) !== proto) return false;
    const o = (ref & 1) === 0 ? b : b + 3;
    return t[o] === src && t[o + 1] === dst && t[o + 2] === ports;
  }

  private find(proto: number, src: number, dst: number, ports: number): number {
    for (let slot = this.hash(proto, src, dst, ports); ; slot = (slot + 1) & this.mask) {
      const ref = this.slots[slot]!;
      if (ref === EMPTY) return -1;
      if (this.matches(ref, proto, src, dst, ports)) return slot;
    }
  }

  private slotOf(ref: number): number {
    for (let slot = this.homeOf(ref); ; slot = (slot + 1) & this.mask) {
      const at = this.slots[slot]!;
      if (at === EMPTY) return -1;
      if (at === ref) return slot;
    }
  }

  private place(ref: number): void {
    let slot = this.homeOf(ref);
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
}
