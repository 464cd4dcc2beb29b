import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCENARIO_DIR, shippedScenarios } from '../../src/cli/shipped';
import type { Sim } from '../../src/sim/api';
import { atSeconds, type SimTime } from '../../src/sim/core/time';
import { loadScenario } from '../../src/sim/scenario/load';
import { createSim, FAULT_IDS } from '../../src/sim/sim';

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

describe.each(shippedScenarios())('shipped scenario $id', ({ file }) => {
  it('gives the same digest for the same seed, and a different one for another seed', () => {
    const a = runToEnd(load(file, 1));
    const b = runToEnd(load(file, 1));
    const c = runToEnd(load(file, 2));
    expect(a.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(b.digest).toBe(a.digest);
    expect(c.digest).not.toBe(a.digest);
  });

  it('meets every expectation it ships with, at its own seed', () => {
    const report = runToEnd(load(file));
    expect(report.expect.filter((e) => !e.held)).toEqual([]);
  });

  it('accounts for every packet: delivered, dropped with a reason, or in flight', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.double({ min: 0.05, max: 1, noNaN: true }), (seed, fraction) => {
        const sim = load(file, seed);
        sim.runUntil(Math.round(sim.durationUs * fraction) as SimTime);
        const report = sim.report(0);
        const { sent, delivered, dropped, inFlight } = report.packets;
        expect(sent).toBeGreaterThan(0);
        expect(delivered + dropped + inFlight).toBe(sent);
        expect(Object.values(report.drops).reduce((x, y) => x + y, 0)).toBe(dropped);
      }),
      { numRuns: 5 },
    );
  });

  it('never moves simulated time backwards, whatever mix of steps and runUntil', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(-1), fc.double({ min: 0, max: 3, noNaN: true })), { minLength: 1, maxLength: 60 }),
        (ops) => {
          const sim = load(file);
          let last = sim.now() as number;
          for (const op of ops) {
            if (op < 0) for (let i = 0; i < 50; i++) sim.step();
            else sim.runUntil((sim.now() + atSeconds(op)) as SimTime);
            expect(sim.now()).toBeGreaterThanOrEqual(last);
            expect(sim.now()).toBeLessThanOrEqual(sim.durationUs);
            last = sim.now();
          }
        },
      ),
      { numRuns: 10 },
    );
  });
});
