import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCENARIO_DIR, shippedScenarios } from '../../src/cli/shipped';
import type { RunReport, Sim } from '../../src/sim/api';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { loadScenario } from '../../src/sim/scenario/load';
import { createSim, FAULT_IDS, restoreSim } from '../../src/sim/sim';
import { portable, unportable } from '../../src/worker/classes';
import { dropsByKind } from '../fixtures/scenario-run';

function load(file: string, seed?: number): Sim {
  const text = readFileSync(join(SCENARIO_DIR, file), 'utf8');
  const result = loadScenario(text, file, { faultIds: FAULT_IDS, seed });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return createSim(result.scenario);
}

const runToEnd = (sim: Sim) => {
  sim.runUntil(sim.durationUs);
  return sim.report(0);
};

/**
 * Events each randomized check of one scenario may spend, counted as the scenario's own run counts them (deterministic,
 * unlike wall time): the demo affords every run in full, a talk-scale replay of tens of millions of events one run over
 * part of its duration.
 */
const EVENT_BUDGET = 8_000_000;
// A replay at the talk's scale runs for a minute or more per pass.
const SLOW = 900_000;

interface BaseRun {
  report: RunReport;
  /** The report a quarter of the way through, to compare another seed against without a second full run. */
  early: RunReport;
  earlyUs: SimTime;
  events: number;
}

/** The digest of each shipped scenario at its own seed; a change that moves one must say why in its commit. */
const GOLDEN = JSON.parse(readFileSync(new URL('../fixtures/golden-digests.json', import.meta.url), 'utf8')) as Record<string, string>;

describe.each(shippedScenarios())('shipped scenario $id', ({ file, id }) => {
  let base: BaseRun | undefined;
  /** The run at the scenario's own seed, shared by the checks below. */
  const baseRun = (): BaseRun => {
    if (base) return base;
    const sim = load(file);
    const earlyUs = Math.round(sim.durationUs / 4) as SimTime;
    sim.runUntil(earlyUs);
    const early = sim.report(0);
    const report = runToEnd(sim);
    base = { report, early, earlyUs, events: sim.eventsExecuted() };
    return base;
  };
  const runsWithin = (wanted: number): number => Math.max(1, Math.min(wanted, Math.floor(EVENT_BUDGET / baseRun().events)));
  /** The share of the duration one randomized run may cover within the budget. */
  const reach = (): number => Math.min(1, EVENT_BUDGET / baseRun().events);

  it(
    'meets every expectation it ships with, at its own seed',
    () => {
      expect(baseRun().report.expect.filter((e) => !e.held)).toEqual([]);
    },
    SLOW,
  );

  it(
    'gives the golden digest at its own seed',
    () => {
      expect(baseRun().report.digest, `update test/fixtures/golden-digests.json if the change is meant (npm run sim -- ${id} prints it)`).toBe(GOLDEN[id]);
    },
    SLOW,
  );

  // The golden digest above already pins the full run across processes; a second pass over the first quarter checks
  // determinism within one process without doubling a talk-scale replay's cost.
  it(
    'gives the same digest for the same seed, and a different one for another seed',
    () => {
      const a = baseRun();
      expect(a.report.digest).toMatch(/^[0-9a-f]{16}$/);
      const again = load(file);
      again.runUntil(a.earlyUs);
      expect(again.report(0).digest).toBe(a.early.digest);
      const other = load(file, (a.report.seed + 1) >>> 0);
      other.runUntil(a.earlyUs);
      expect(other.report(0).digest).not.toBe(a.early.digest);
    },
    SLOW,
  );

  it(
    'accounts for every packet: delivered, dropped with a reason, or in flight',
    () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.double({ min: 0.05 * reach(), max: reach(), noNaN: true }), (seed, fraction) => {
          const sim = load(file, seed);
          sim.runUntil(Math.round(sim.durationUs * fraction) as SimTime);
          const report = sim.report(0);
          const { sent, delivered, dropped, inFlight } = report.packets;
          expect(sent).toBeGreaterThan(0);
          expect(delivered + dropped + inFlight).toBe(sent);
          // The report lists request drops (a REFUSED answer) beside packet drops; only the packet reasons add up to it.
          const byKind = dropsByKind(report);
          expect(byKind.packet).toBe(dropped);
          const requestDrops = Object.entries(report.totals).filter(([name]) => name.startsWith('requests.dropped{'));
          expect(byKind.request).toBe(requestDrops.reduce((n, [, v]) => n + v, 0));
        }),
        // A seed's neighbours are unrelated runs, so shrinking one only re-runs the replay for minutes: report it at once.
        { numRuns: runsWithin(5), endOnFailure: true },
      );
    },
    SLOW,
  );

  it(
    'goes on from a checkpoint at any moment exactly as the run it was taken from, in this worker or through a structured clone',
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 0xffffffff }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          // Half the budget's reach: the restored run repeats part of the way to the end point.
          fc.double({ min: 0.05, max: 0.5, noNaN: true }),
          // A checkpoint stored in IndexedDB or handed to a new worker crosses as a structured clone, its classes by name.
          fc.boolean(),
          (seed, at, until, cloned) => {
            const sim = load(file, seed);
            const endUs = Math.round(sim.durationUs * until * reach()) as SimTime;
            sim.runUntil(Math.round(endUs * at) as SimTime);
            const checkpoint = sim.checkpoint();
            sim.runUntil(endUs);
            const restored = restoreSim(cloned ? { ...checkpoint, state: unportable(structuredClone(portable(checkpoint.state))) } : checkpoint);
            restored.runUntil(endUs);
            expect(restored.report(0).digest).toBe(sim.report(0).digest);
            expect(restored.eventsExecuted()).toBe(sim.eventsExecuted());
          },
        ),
        { numRuns: runsWithin(3), endOnFailure: true },
      );
    },
    SLOW,
  );

  it(
    'never moves simulated time backwards, whatever mix of steps and runUntil',
    () => {
      fc.assert(
        fc.property(fc.array(fc.oneof(fc.constant(-1), fc.double({ min: 0, max: 3 * reach(), noNaN: true })), { minLength: 1, maxLength: 60 }), (ops) => {
          const sim = load(file);
          let last = sim.now() as number;
          for (const op of ops) {
            if (op < 0) for (let i = 0; i < 50; i++) sim.step();
            else sim.runUntil((sim.now() + atSeconds(op)) as SimTime);
            expect(sim.now()).toBeGreaterThanOrEqual(last);
            expect(sim.now()).toBeLessThanOrEqual(sim.durationUs);
            last = sim.now();
          }
        }),
        { numRuns: runsWithin(10), endOnFailure: true },
      );
    },
    SLOW,
  );
});
