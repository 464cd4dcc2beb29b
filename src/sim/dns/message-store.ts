import type { Duration, SimTime } from '../core/time';
import type { DnsAnswer, DnsQuery } from './message';

import { IntMap } from '../core/int-map';

/**
 * The messages whose packets are in flight, by id, with the expiry of an insertion-ordered map: keeping an id already
 * held updates it where it stands, and each keep forgets entries from the oldest insertion on while they are older than
 * the lifetime, stopping at the first younger one. The insertion order is a ring of entries (id, message, time kept,
 * taken) and the ids held map to their place in it, so neither keeping nor taking allocates and passing over a taken
 * message needs no lookup.
 */
export class MessageStore {
  /** Each id held, to the sequence number of its entry in the ring. */
  private readonly held: IntMap<number>;
  private ringIds: Float64Array;
  private ringKeptAt: Float64Array;
  private ringTaken: Uint8Array;
  private ringMessages: (DnsQuery | DnsAnswer | undefined)[];
  private ringMask: number;
  /** Sequence numbers of the ring's oldest slot and of the next one pushed. */
  private head = 0;
  private tail = 0;

  /** The id table and the ring start with 2^minBits slots; both double when full, and the table halves when sparse. */
  constructor(
    private readonly lifetime: Duration,
    minBits = 12,
  ) {
    const size = 2 ** minBits;
    this.held = new IntMap<number>(minBits);
    this.ringIds = new Float64Array(size);
    this.ringKeptAt = new Float64Array(size);
    this.ringTaken = new Uint8Array(size);
    this.ringMessages = new Array<DnsQuery | DnsAnswer | undefined>(size).fill(undefined);
    this.ringMask = size - 1;
  }

  get size(): number {
    return this.held.size;
  }

  keepQuery(query: DnsQuery, now: SimTime): void {
    this.keep(query, now);
  }

  keepAnswer(answer: DnsAnswer, now: SimTime): void {
    this.keep(answer, now);
  }

  /** Forgets the message; returns it if it is a query. */
  takeQuery(id: number): DnsQuery | undefined {
    const message = this.take(id);
    return message === undefined || 'queryId' in message ? undefined : message;
  }

  /** Forgets the message; returns it if it is an answer. */
  takeAnswer(id: number): DnsAnswer | undefined {
    const message = this.take(id);
    return message !== undefined && 'queryId' in message ? message : undefined;
  }

  private take(id: number): DnsQuery | DnsAnswer | undefined {
    const seq = this.held.get(id);
    if (seq === undefined) return undefined;
    const i = seq & this.ringMask;
    const message = this.ringMessages[i];
    this.ringMessages[i] = undefined;
    this.ringTaken[i] = 1;
    this.held.delete(id);
    return message;
  }

  private keep(message: DnsQuery | DnsAnswer, now: SimTime): void {
    const id = message.id;
    const seq = this.held.get(id);
    let i: number;
    if (seq === undefined) {
      const pushed = this.push(id, now);
      this.held.set(id, pushed);
      i = pushed & this.ringMask;
    } else {
      i = seq & this.ringMask;
      this.ringKeptAt[i] = now;
    }
    this.ringMessages[i] = message;
    while (this.head < this.tail) {
      const j = this.head & this.ringMask;
      if (this.ringTaken[j] === 0) {
        if (now - this.ringKeptAt[j]! < this.lifetime) break;
        this.held.delete(this.ringIds[j]!);
        this.ringMessages[j] = undefined;
      }
      this.head++;
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
    const messages = this.ringMessages;
    const oldMask = this.ringMask;
    const size = ids.length * 2;
    this.ringIds = new Float64Array(size);
    this.ringKeptAt = new Float64Array(size);
    this.ringTaken = new Uint8Array(size);
    this.ringMessages = new Array<DnsQuery | DnsAnswer | undefined>(size).fill(undefined);
    this.ringMask = size - 1;
    for (let seq = this.head; seq < this.tail; seq++) {
      const from = seq & oldMask;
      const to = seq & this.ringMask;
      this.ringIds[to] = ids[from]!;
      this.ringKeptAt[to] = keptAt[from]!;
      this.ringTaken[to] = taken[from]!;
      this.ringMessages[to] = messages[from];
    }
  }
}
