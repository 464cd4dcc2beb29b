import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Scheduler } from '../../src/sim/core/scheduler';
import type { SimTime } from '../../src/sim/core/time';

const action = fc.record({
  /** Delays of the events this one schedules when it runs (0 = at the same instant). */
  children: fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 3 }),
  /** When set, picks an earlier event (modulo the ids so far) to cancel. */
  cancel: fc.option(fc.nat(), { nil: undefined }),
});

const drive = fc.oneof(
  fc.record({ kind: fc.constant('step' as const), n: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('until' as const), n: fc.integer({ min: 0, max: 40 }) }),
);

const schedule = fc.record({
  initialCapacity: fc.integer({ min: 1, max: 64 }),
  initial: fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 60 }),
  actions: fc.array(action, { minLength: 1, maxLength: 40 }),
  driving: fc.array(drive, { maxLength: 15 }),
});

describe('Scheduler properties', () => {
  it('time never decreases and every event runs exactly once unless cancelled, at its own time', () => {
    fc.assert(
      fc.property(schedule, ({ initialCapacity, initial, actions, driving }) => {
        const s = new Scheduler(initialCapacity);
        const handles: number[] = [];
        const dueAt: number[] = [];
        const runs: number[] = [];
        const cancelled = new Set<number>();
        const times: number[] = [];
        const h = s.register('event', (id) => {
          runs[id] = (runs[id] ?? 0) + 1;
          times.push(s.now);
          expect(s.now).toBe(dueAt[id]);
          const act = actions[id % actions.length]!;
          if (handles.length < 400) for (const d of act.children) add(s.now + d);
          if (act.cancel !== undefined) {
            const victim = act.cancel % handles.length;
            if (s.cancel(handles[victim]!)) {
              expect(cancelled.has(victim)).toBe(false);
              expect(runs[victim] ?? 0).toBe(0);
              cancelled.add(victim);
            }
          }
        });
        const add = (time: number) => {
          dueAt.push(time);
          handles.push(s.at(time as SimTime, h, handles.length));
        };
        for (const t of initial) add(t);

        for (const d of driving) {
          if (d.kind === 'step') for (let i = 0; i < d.n; i++) s.step();
          else s.runUntil((s.now + d.n) as SimTime);
        }
        s.runUntil(1_000_000 as SimTime);

        for (let i = 1; i < times.length; i++) expect(times[i]!).toBeGreaterThanOrEqual(times[i - 1]!);
        for (let id = 0; id < handles.length; id++) {
          expect(runs[id] ?? 0).toBe(cancelled.has(id) ? 0 : 1);
        }
        expect(s.pending).toBe(0);
        expect(s.executed).toBe(handles.length - cancelled.size);
        expect(s.nextTime()).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });
});
