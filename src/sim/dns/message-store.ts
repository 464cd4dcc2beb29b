import type { Duration, SimTime } from '../core/time';
import type { DnsAnswer, DnsQuery } from './message';

const EMPTY = -1;

/**
 * The messages whose packets are in flight, by id, with the expiry of an insertion-ordered map: keeping an id already
 * held updates it where it stands, and each keep forgets entries from the oldest insertion on while they are older than
 * the lifetime, stopping at the first younger one. Ids sit in an open-addressed table (linear probing, deletion by
 * backward shift); the insertion order is a ring of (id, time kept, taken), so neither keeping nor taking allocates and
 * passing over a taken message needs no table lookup. It is not core/int-map.ts: its slots carry the message, its
 * kind and its ring place beside the id, which a one-value map would hold only through a second lookup or a message
 * array as long as the ring (tried: 70 MB more heap at the talk's scale).
 */
export class MessageStore {
  private bits: number;
  private mask: number;
  private ids: Float64Array;
  /** Ring sequence number of the entry's insertion. */
  private place: Float64Array;
  private isAnswer: Uint8Array;
  private messages: (DnsQuery | DnsAnswer | undefined)[];
  private count = 0;

  private ringIds: Float64Array;
  private ringKeptAt: Float64Array;
  private ringTaken: Uint8Array;
  private ringMask: number;
  /** Sequence numbers of the ring's oldest slot and of the next one pushed. */
  private head = 0;
  private tail = 0;

  /** The table and the ring start with 2^minBits slots; both double when full, and the table halves when sparse. */
  constructor(
    private readonly lifetime: Duration,
    private readonly minBits = 12,
  ) {
    const size = 2 ** minBits;
    this.bits = minBits;
    this.mask = size - 1;
    this.ids = new Float64Array(size).fill(EMPTY);
    this.place = new Float64Array(size);
    this.isAnswer = new Uint8Array(size);
    this.messages = new Array<DnsQuery | DnsAnswer | undefined>(size).fill(undefined);
    this.ringIds = new Float64Array(size);
    this.ringKeptAt = new Float64Array(size);
    this.ringTaken = new Uint8Array(size);
    this.ringMask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  keepQuery(query: DnsQuery, now: SimTime): void {
    this.keep(query.id, query, 0, now);
  }

  keepAnswer(answer: DnsAnswer, now: SimTime): void {
    this.keep(answer.id, answer, 1, now);
  }

  /** Forgets the message; returns it if it is a query. */
  takeQuery(id: number): DnsQuery | undefined {
    const slot = this.find(id);
    if (slot < 0) return undefined;
    const message = this.messages[slot];
    const answer = this.isAnswer[slot] === 1;
    this.take(slot);
    return answer ? undefined : (message as DnsQuery);
  }

  /** Forgets the message; returns it if it is an answer. */
  takeAnswer(id: number): DnsAnswer | undefined {
    const slot = this.find(id);
    if (slot < 0) return undefined;
    const message = this.messages[slot];
    const answer = this.isAnswer[slot] === 1;
    this.take(slot);
    return answer ? (message as DnsAnswer) : undefined;
  }

  private take(slot: number): void {
    this.ringTaken[this.place[slot]! & this.ringMask] = 1;
    this.remove(slot);
  }

  private keep(id: number, message: DnsQuery | DnsAnswer, isAnswer: number, now: SimTime): void {
    let slot = this.find(id);
    if (slot < 0) {
      slot = this.insert(id, -1 - slot);
      this.place[slot] = this.push(id, now);
    } else {
      this.ringKeptAt[this.place[slot]! & this.ringMask] = now;
    }
    this.isAnswer[slot] = isAnswer;
    this.messages[slot] = message;
    while (this.head < this.tail) {
      const i = this.head & this.ringMask;
      if (this.ringTaken[i] === 0) {
        if (now - this.ringKeptAt[i]! < this.lifetime) break;
        this.remove(this.find(this.ringIds[i]!));
      }
      this.head++;
    }
  }

  /** The id's slot, or -1 - the empty slot that ends its probe run (where it would go) when absent. */
  private find(id: number): number {
    const mask = this.mask;
    const ids = this.ids;
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      const k = ids[i]!;
      if (k === id) return i;
      if (k === EMPTY) return -1 - i;
    }
  }

  /** Puts an absent id in `empty`, the slot find gave for it, unless the table must grow first. */
  private insert(id: number, empty: number): number {
    let i = empty;
    if (2 * (this.count + 1) > this.ids.length) {
      this.resize(this.bits + 1);
      i = -1 - this.find(id);
    }
    this.ids[i] = id;
    this.count++;
    return i;
  }

  /** Fibonacci hashing: ids in flight are consecutive, and as their own hash they would fill one long probe run. */
  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> (32 - this.bits);
  }

  /** Empties a table slot, moving later entries of its probe run back so that lookups need no tombstones. */
  private remove(slot: number): void {
    const mask = this.mask;
    const ids = this.ids;
    let hole = slot;
    for (let j = (slot + 1) & mask; ids[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.home(ids[j]!);
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      ids[hole] = ids[j]!;
      this.place[hole] = this.place[j]!;
      this.isAnswer[hole] = this.isAnswer[j]!;
      this.messages[hole] = this.messages[j];
      hole = j;
    }
    ids[hole] = EMPTY;
    this.messages[hole] = undefined;
    this.count--;
    // Shrinks after a burst, so that the few messages usually in flight sit in a table that stays in cache.
    if (this.bits > this.minBits && 8 * this.count < ids.length) this.resize(this.bits - 1);
  }

  private resize(bits: number): void {
    const ids = this.ids;
    const place = this.place;
    const isAnswer = this.isAnswer;
    const messages = this.messages;
    const size = 2 ** bits;
    this.bits = bits;
    this.mask = size - 1;
    this.ids = new Float64Array(size).fill(EMPTY);
    this.place = new Float64Array(size);
    this.isAnswer = new Uint8Array(size);
    this.messages = new Array<DnsQuery | DnsAnswer | undefined>(size).fill(undefined);
    this.count = 0;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] === EMPTY) continue;
      const slot = this.insert(ids[i]!, -1 - this.find(ids[i]!));
      this.place[slot] = place[i]!;
      this.isAnswer[slot] = isAnswer[i]!;
      this.messages[slot] = messages[i];
    }
  }

  /** Appends an id to the ring of insertions and returns its sequence number. */
  private push(id: number, now: SimTime): number {
    if (this.tail - this.head === this.ringIds.length) this.growRing();
    const seq = this.tail++;
    const i = seq & this.ringMask;
    this.ringIds[i] = id;
    this.ringKeptAt[i] = now;
    this.ringTaken[i] = 0;
    return seq;
  }

  private growRing(): void {
    const ids = this.ringIds;
    const keptAt = this.ringKeptAt;
    const taken = this.ringTaken;
    const oldMask = this.ringMask;
    const size = ids.length * 2;
    this.ringIds = new Float64Array(size);
    this.ringKeptAt = new Float64Array(size);
    this.ringTaken = new Uint8Array(size);
    this.ringMask = size - 1;
    for (let seq = this.head; seq < this.tail; seq++) {
      this.ringIds[seq & this.ringMask] = ids[seq & oldMask]!;
      this.ringKeptAt[seq & this.ringMask] = keptAt[seq & oldMask]!;
      this.ringTaken[seq & this.ringMask] = taken[seq & oldMask]!;
    }
  }
}
