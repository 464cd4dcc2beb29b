import type { SimTime } from '../core/time';
import type { ConntrackTable, CtStateId } from './conntrack';
import type { PacketPool } from './packet';

/** Tables one attempt can pass: the sender's node and instance, the receiver's instance and node, and spares. */
const TRAIL = 8;
/** Trails kept per flow: the current attempt's and the one before, for a reply still on its way. */
const GENERATIONS = 2;
/** What `insert` answers when the flow cannot hold another anonymous entry: keep the flow (promote it) instead. */
export const KEEP = -2;

/** Who runs an anonymous flow's attempt (the dial cohort). */
export interface AnonymousFlowOwner {
  /** The attempt must go on as an ordinary connection from here: give it its socket and timers now. */
  materialize(flow: number): void;
  /** A reply (a reset: nothing else answers an anonymous SYN) reached the flow's own namespace. */
  replied(flow: number, generation: number, flags: number): void;
}

/**
 * Connection attempts whose packets are real but whose conntrack entries are not hashed. The packets cross every
 * stage, are counted, dropped with their reasons, traced and captured like any other; the tables along the way give
 * them entries that count, expire and are reclaimed like any other (ConntrackTable.insertAnonymous), but that no
 * lookup finds: the flow keeps a trail of them, by id, and its own packets reach them through it.
 *
 * That is exact while nothing but the flow's own packets looks for its entries. The attempt's tuple is new (a fresh
 * ephemeral port) and is never sent again: the owner uses anonymous flows only for attempts given up before the first
 * SYN retransmission. Whatever would need more (a listener that accepts, a load balancer or router with state of its
 * own, a host process) promotes the flow first: its entries are hashed, the owner gives the attempt its socket and
 * timers, and it goes on as an ordinary connection.
 */
export class AnonymousFlows {
  private readonly owners: AnonymousFlowOwner[] = [];
  private ns = new Int32Array(0);
  private srcIp = new Uint32Array(0);
  private srcPort = new Uint16Array(0);
  private generation = new Int32Array(0);
  /** Per flow and generation: TRAIL tables with the id and incarnation of the flow's entry in each, and how many. */
  private readonly tables: (ConntrackTable | null)[] = [];
  private ids = new Int32Array(0);
  private incarnations = new Int32Array(0);
  private lengths = new Int32Array(0);
  private count = 0;

  /** A new flow for `owner`; its id is reused for every attempt the owner makes with it. */
  open(owner: AnonymousFlowOwner): number {
    if (this.count === this.ns.length) this.grow(Math.max(64, this.count * 2));
    const flow = this.count++;
    this.owners.push(owner);
    return flow;
  }

  /** A new attempt on `flow` from `ns`; returns its generation, which its packets carry. */
  begin(flow: number, ns: number, srcIp: number, srcPort: number): number {
    const generation = ++this.generation[flow]!;
    this.ns[flow] = ns;
    this.srcIp[flow] = srcIp;
    this.srcPort[flow] = srcPort;
    this.lengths[this.trailOf(flow, generation)] = 0;
    return generation;
  }

  /** Whether the packet is a reply arriving at the namespace that opened its flow. */
  isHome(p: PacketPool, id: number, ns: number): boolean {
    const flow = p.anon[id]!;
    return this.ns[flow] === ns && p.dstIp[id] === this.srcIp[flow] && p.dstPort[id] === this.srcPort[flow];
  }

  /** ConntrackTable.lookupRef for a packet of an anonymous flow: its own entry in `table`, or -1. */
  lookup(p: PacketPool, id: number, table: ConntrackTable, now: SimTime): number {
    const t = this.trail(p, id);
    if (t < 0) return -1;
    const base = t * TRAIL;
    for (let i = base; i < base + this.lengths[t]!; i++) {
      if (this.tables[i] !== table) continue;
      const entry = this.ids[i]!;
      if (!table.holds(entry, this.incarnations[i]!)) return -1;
      // As a lookup would: an expired entry is removed and not found.
      if (table.expiresAt(entry) <= now) {
        table.remove(entry);
        return -1;
      }
      return entry * 2 + (table.isReply(entry, p.srcIp[id]!, p.srcPort[id]!) ? 1 : 0);
    }
    return -1;
  }

  /** ConntrackTable.insertNat for a packet of an anonymous flow: -1 when the table is full, KEEP when the flow must be kept. */
  insert(
    p: PacketPool,
    id: number,
    table: ConntrackTable,
    dstIp: number,
    dstPort: number,
    replySrc: number,
    replySport: number,
    replyDst: number,
    replyDport: number,
    state: CtStateId,
    now: SimTime,
  ): number {
    const t = this.trail(p, id);
    if (t < 0 || this.lengths[t] === TRAIL) return KEEP;
    const entry = table.insertAnonymous(p.proto[id]!, p.srcIp[id]!, p.srcPort[id]!, dstIp, dstPort, replySrc, replySport, replyDst, replyDport, state, now);
    if (entry < 0) return -1;
    const i = t * TRAIL + this.lengths[t]!++;
    this.tables[i] = table;
    this.ids[i] = entry;
    this.incarnations[i] = table.incarnationOf(entry);
    return entry;
  }

  /**
   * Ends the anonymity of the packet's flow: every entry it still holds is hashed, the owner gives the attempt its
   * socket and timers, and the packet goes on as an ordinary one.
   */
  promote(p: PacketPool, id: number): void {
    const flow = p.anon[id]!;
    const t = this.trail(p, id);
    p.anon[id] = -1;
    if (t < 0) return;
    const base = t * TRAIL;
    for (let i = base; i < base + this.lengths[t]!; i++) {
      const table = this.tables[i]!;
      if (table.holds(this.ids[i]!, this.incarnations[i]!)) table.promote(this.ids[i]!);
      this.tables[i] = null;
    }
    this.lengths[t] = 0;
    if (p.anonGeneration[id] === this.generation[flow]) this.owners[flow]!.materialize(flow);
  }

  /** A reply reached the flow's opener: its owner decides what it means. */
  deliver(flow: number, generation: number, flags: number): void {
    this.owners[flow]!.replied(flow, generation, flags);
  }

  /** The trail of the packet's attempt, or -1 when that attempt is older than the flow remembers. */
  private trail(p: PacketPool, id: number): number {
    const flow = p.anon[id]!;
    const generation = p.anonGeneration[id]!;
    return this.generation[flow]! - generation < GENERATIONS ? this.trailOf(flow, generation) : -1;
  }

  private trailOf(flow: number, generation: number): number {
    return flow * GENERATIONS + (generation % GENERATIONS);
  }

  private grow(n: number): void {
    const widen = <T extends Int32Array | Uint32Array | Uint16Array>(a: T, make: (k: number) => T, per = 1): T => {
      const b = make(n * per);
      b.set(a);
      return b;
    };
    this.ns = widen(this.ns, (k) => new Int32Array(k));
    this.srcIp = widen(this.srcIp, (k) => new Uint32Array(k));
    this.srcPort = widen(this.srcPort, (k) => new Uint16Array(k));
    this.generation = widen(this.generation, (k) => new Int32Array(k));
    this.ids = widen(this.ids, (k) => new Int32Array(k), GENERATIONS * TRAIL);
    this.incarnations = widen(this.incarnations, (k) => new Int32Array(k), GENERATIONS * TRAIL);
    this.lengths = widen(this.lengths, (k) => new Int32Array(k), GENERATIONS);
    for (let i = this.tables.length; i < n * GENERATIONS * TRAIL; i++) this.tables.push(null);
  }
}
