import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seconds, type SimTime } from '../../src/sim/core/time';
import type { DnsAnswer, DnsQuery } from '../../src/sim/dns/message';
import { MessageStore } from '../../src/sim/dns/message-store';

const LIFETIME = seconds(60);

/** What the store must behave as: an insertion-ordered Map, expired from its oldest entry on each keep. */
class MapStore {
  readonly messages = new Map<number, { at: number; message: DnsQuery | DnsAnswer; answer: boolean }>();

  keep(message: DnsQuery | DnsAnswer, answer: boolean, now: number): void {
    this.messages.set(message.id, { at: now, message, answer });
    for (const [id, entry] of this.messages) {
      if (now - entry.at < LIFETIME) break;
      this.messages.delete(id);
    }
  }

  take(id: number, answer: boolean): DnsQuery | DnsAnswer | undefined {
    const entry = this.messages.get(id);
    this.messages.delete(id);
    return entry && entry.answer === answer ? entry.message : undefined;
  }
}

const query = (id: number): DnsQuery => ({ id, name: `q${id}`, type: 'A' });
const answer = (id: number): DnsAnswer => ({ id, queryId: id, name: `a${id}`, type: 'A', rcode: 'NOERROR', addresses: [], ttl: 0 });

describe('in-flight DNS message store', () => {
  it('keeps, takes and expires exactly as an insertion-ordered map, re-kept ids included', () => {
    // Few ids make re-keeping common; many make the table and the ring grow.
    const ops = (maxId: number) => {
      const id = fc.integer({ min: 1, max: maxId });
      const op = fc.oneof(
        fc.record({ kind: fc.constant('keep' as const), id, answer: fc.boolean(), dt: fc.integer({ min: 0, max: 20 }) }),
        fc.record({ kind: fc.constant('take' as const), id, answer: fc.boolean(), dt: fc.constant(0) }),
      );
      return fc.array(op, { minLength: 1, maxLength: 4000 });
    };
    fc.assert(
      // A small initial table makes probe runs collide and wrap around its end, and makes it grow.
      fc.property(fc.oneof(ops(30), ops(3000)), fc.integer({ min: 1, max: 10 }), (ops, minBits) => {
        const store = new MessageStore(LIFETIME, minBits);
        const reference = new MapStore();
        let now = 0;
        for (const o of ops) {
          now += seconds(o.dt);
          if (o.kind === 'keep') {
            const m = o.answer ? answer(o.id) : query(o.id);
            reference.keep(m, o.answer, now);
            if (o.answer) store.keepAnswer(m as DnsAnswer, now as SimTime);
            else store.keepQuery(m as DnsQuery, now as SimTime);
          } else {
            const expected = reference.take(o.id, o.answer);
            expect(o.answer ? store.takeAnswer(o.id) : store.takeQuery(o.id)).toBe(expected);
          }
          expect(store.size).toBe(reference.messages.size);
        }
        for (const id of [...reference.messages.keys()]) {
          const entry = reference.messages.get(id)!;
          expect(entry.answer ? store.takeAnswer(id) : store.takeQuery(id)).toBe(entry.message);
        }
        expect(store.size).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('holds many thousands of messages in flight and finds each one', () => {
    const store = new MessageStore(LIFETIME);
    const kept = Array.from({ length: 50_000 }, (_, i) => query(i + 1));
    for (const q of kept) store.keepQuery(q, 0 as SimTime);
    expect(store.size).toBe(50_000);
    for (const q of kept.filter((_, i) => i % 2 === 0)) expect(store.takeQuery(q.id)).toBe(q);
    for (const q of kept.filter((_, i) => i % 2 === 1)) expect(store.takeAnswer(q.id)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('forgets messages kept a lifetime ago when the next one is kept', () => {
    const store = new MessageStore(LIFETIME);
    store.keepQuery(query(1), 0 as SimTime);
    store.keepQuery(query(2), seconds(30) as number as SimTime);
    store.keepQuery(query(3), seconds(60) as number as SimTime);
    expect(store.takeQuery(1)).toBeUndefined();
    expect(store.takeQuery(2)?.id).toBe(2);
  });
});
