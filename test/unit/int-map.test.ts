import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntMap } from '../../src/sim/core/int-map';

describe('IntMap', () => {
  it('answers as a Map does through any mix of sets, deletes and clears, growing on the way', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 300 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 300 }) }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), fc.integer({ min: 1, max: 4 }), (ops, minBits) => {
        const map = new IntMap<number>(minBits);
        const model = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.key, o.value);
            model.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(map.delete(o.key)).toBe(model.delete(o.key));
          else {
            map.clear();
            model.clear();
          }
          expect(map.size).toBe(model.size);
        }
        for (let key = 0; key <= 300; key++) {
          expect(map.has(key)).toBe(model.has(key));
          expect(map.get(key)).toBe(model.get(key));
        }
      }),
      { numRuns: 200 },
    );
  });
});
