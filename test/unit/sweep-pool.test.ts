import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  collectFixEffects,
  compareImpacts,
  createSim,
  fixCandidates,
  fixTasks,
  impactOf,
  planSweep,
  rankRows,
  runSweepTask,
  runVariant,
  type FixEffect,
  type FixTrial,
  type SweepOptions,
  type VariantImpact,
} from '../../src/sim';
import { startSweepPool, type SpawnSweepWorker, type SweepEvents } from '../../src/ui/sweep/pool';
import { sweepRow, variantLoad, type SweepBase } from '../../src/sim';
import { loadWithAdditions } from '../../src/worker/load-with-additions';
import { createSweepHandler } from '../../src/worker/sweep-handler';
import type { SweepRequest, SweepSource } from '../../src/worker/sweep-protocol';

const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');
const SOURCE: SweepSource = { text: DEMO, fileName: 'demo.yaml', seed: 4, fixes: [] };
const OPTIONS: SweepOptions = { faults: ['delete-pod', 'crash-loop', 'power-off-node', 'scale-deployment'], pairs: false, at: 15, for: 45 };
const RUN: SweepBase = { scenario: 'demo', seed: 4, fixes: [], sets: [], timeline: [], at: 15, for: 45 };

/**
 * Workers in this thread on the worker's own handler. Every third variant (0, 3, …) takes 25 ms longer to answer, so
 * with two workers or more variants finish in another order than they were handed out. Records what the pool asked.
 */
function fakeWorkers(crashOn?: number, crashWhen: (request: SweepRequest) => boolean = (request) => request.type === 'run' && request.index === crashOn) {
  const log = { handed: [] as number[], inFlight: 0, maxInFlight: 0, spawned: 0, terminated: 0 };
  // Every third variant's answer waits for another worker's next answer, so with two or more workers they finish out of
  // the order they were handed in, whatever the machine's load (a delay in wall time reordered them only when idle).
  let held: (() => void)[] = [];
  const spawn: SpawnSweepWorker = (listen, crashed) => {
    const handle = createSweepHandler();
    let alive = true;
    let queue = Promise.resolve();
    log.spawned++;
    return {
      post(request: SweepRequest) {
        if (request.type === 'run') {
          log.handed.push(request.index);
          log.maxInFlight = Math.max(log.maxInFlight, ++log.inFlight);
        }
        // A worker takes its messages in the order they were posted, as a real one does.
        queue = queue.then(async () => {
          await new Promise((resolve) => setTimeout(resolve, 0));
          if (!alive) return;
          if (request.type === 'run') log.inFlight--;
          if (crashWhen(request)) return crashed('out of memory');
          const reply = handle(request);
          const answer = (): void => {
            if (alive && reply) listen(reply);
          };
          if (request.type === 'run' && request.index % 3 === 0 && log.inFlight > 0) {
            held.push(answer);
            return;
          }
          answer();
          const due = held;
          held = [];
          for (const release of due) release();
        });
      },
      terminate() {
        alive = false;
        log.terminated++;
      },
    };
  };
  return { spawn, log };
}

interface Outcome {
  impacts: VariantImpact[];
  failures: { index: number; message: string }[];
  refused?: string;
  total: number;
}

function sweepWith(size: number, spawn: SpawnSweepWorker, options = OPTIONS): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = { impacts: [], failures: [], total: 0 };
    const events: SweepEvents = {
      planned: (plan) => (out.total = plan.variants.length),
      measured: (impact) => out.impacts.push(impact),
      failed: (index, message) => out.failures.push({ index, message }),
      refused: (message) => resolve({ ...out, refused: message }),
      finished: () => resolve(out),
    };
    startSweepPool(size, spawn, SOURCE, options, events);
  });
}

const table = (impacts: readonly VariantImpact[]) => rankRows(impacts.map((i) => sweepRow(RUN, i)));

describe('the browser sweep pool', () => {
  let direct: ReturnType<typeof table>;
  beforeAll(() => {
    // What the CLI's sweep does with one job: plan, then every variant in this thread.
    const loaded = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4 }, 'timeline');
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const plan = planSweep(loaded.scenario, [], OPTIONS);
    direct = table(plan.variants.map((v) => impactOf(plan, runVariant(plan, v))));
  }, 60_000);

  it.each([1, 2, 4])('gives the same ranked table with %i workers as one thread does, whatever order the variants finish in', async (size) => {
    const { spawn, log } = fakeWorkers();
    const out = await sweepWith(size, spawn);
    expect(out.total).toBe(14);
    expect(out.failures).toEqual([]);
    expect(table(out.impacts)).toEqual(direct);
    // Handed out once each, in the plan's order, never more at a time than there are workers.
    expect(log.handed).toEqual(Array.from({ length: 14 }, (_, i) => i));
    expect(log.maxInFlight).toBe(size);
    expect(log.spawned).toBe(size);
    expect(log.terminated).toBe(size);
    if (size > 1) expect(out.impacts.map((i) => i.index)).not.toEqual(log.handed);
  });

  it('names the variant a worker died on, replaces the worker and measures every other variant', async () => {
    const { spawn, log } = fakeWorkers(5);
    const out = await sweepWith(2, spawn);
    expect(out.failures).toEqual([{ index: 5, message: 'variant 6 (delete-pod on pod/client-2): its worker failed: out of memory' }]);
    expect(out.impacts.map((i) => i.index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(table(out.impacts)).toEqual(direct.filter((row) => row.index !== 5).map((row, i) => ({ ...row, rank: i + 1 })));
    expect(log.spawned).toBe(3);
  });

  it('stops every worker at once on cancel and reports nothing after it', async () => {
    const { spawn, log } = fakeWorkers();
    const seen: number[] = [];
    let after = 0;
    await new Promise<void>((resolve) => {
      const pool = startSweepPool(3, spawn, SOURCE, OPTIONS, {
        planned: () => undefined,
        measured: (impact) => {
          if (seen.length === 2) after++;
          else seen.push(impact.index);
          if (seen.length === 2 && after === 0) {
            pool.cancel();
            setTimeout(resolve, 100);
          }
        },
        failed: () => after++,
        refused: () => after++,
        finished: () => after++,
      });
    });
    expect(seen).toHaveLength(2);
    expect(after).toBe(0);
    expect(log.terminated).toBe(3);
    expect(log.handed.length).toBeLessThan(14);
  });

  it("then tries each of the scenario's fixes on the worst rows, as the CLI's sweep does, and a dead worker costs one fix run", async () => {
    // What the CLI's measureFixes does in one thread: each fix loaded with the scenario, its unfaulted run, the worst rows' runs.
    const loaded = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4 }, 'timeline');
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const plan = planSweep(loaded.scenario, [], OPTIONS);
    const ranked = plan.variants.map((v) => impactOf(plan, runVariant(plan, v))).sort(compareImpacts);
    const names = Object.keys(loaded.scenario.fixes);
    expect(names.length).toBeGreaterThan(1);
    const trials: FixTrial[] = names.map((fix) => {
      const withFix = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4, fixes: [fix] }, 'timeline');
      if (!withFix.ok) throw new Error(withFix.errors.join('\n'));
      return { fix, scenario: withFix.scenario, fixes: withFix.appliedFixes };
    });
    const candidates = fixCandidates(ranked, 2);
    const tasks = fixTasks(trials.length, candidates);
    const direct = collectFixEffects(
      plan,
      ranked,
      names,
      names,
      new Map(),
      candidates,
      tasks.map((task) => runSweepTask(plan, trials, task)),
    );
    expect([...direct.values()].flat().some((e) => e.score! < ranked[0]!.score!)).toBe(true);

    const sweep = (spawn: SpawnSweepWorker) =>
      new Promise<{ runs: number; reported: number; effects?: Map<number, FixEffect[]> }>((resolve) => {
        const out: { runs: number; reported: number; effects?: Map<number, FixEffect[]> } = { runs: 0, reported: 0 };
        startSweepPool(
          2,
          spawn,
          SOURCE,
          OPTIONS,
          {
            planned: () => undefined,
            measured: () => undefined,
            failed: () => undefined,
            refused: (message) => {
              throw new Error(message);
            },
            fixing: (runs) => (out.runs = runs),
            fixRun: () => out.reported++,
            fixed: (effects) => (out.effects = effects),
            finished: () => resolve(out),
          },
          2,
        );
      });
    const whole = await sweep(fakeWorkers().spawn);
    expect(whole.runs).toBe(tasks.length);
    expect(whole.reported).toBe(tasks.length);
    expect(whole.effects).toEqual(direct);

    // The worker running the first fix run with a candidate's variant dies: that run alone is lost, named on its fix.
    const dying = fakeWorkers(undefined, (request) => request.type === 'task' && request.n === trials.length);
    const hurt = await sweep(dying.spawn);
    expect(hurt.reported).toBe(tasks.length);
    const first = hurt.effects!.get(candidates[0]!)!;
    expect(first[0]).toEqual({ fix: names[0], refused: 'its run failed: its worker failed: out of memory' });
    expect(first.slice(1)).toEqual(direct.get(candidates[0]!)!.slice(1));
    expect(hurt.effects!.get(candidates[1]!)).toEqual(direct.get(candidates[1]!));
  }, 120_000);

  it.each([
    [{ ...OPTIONS, at: 75 }, 'at: 75 s is not within the run (the scenario lasts 60 s)'],
    [{ ...OPTIONS, for: 50 }, 'for: 15 s + 50 s runs past the end of the scenario (60 s); at most 45 s'],
    [{ ...OPTIONS, faults: ['unplug'] }, /^faults: no fault "unplug" in the catalog/],
  ])('refuses options out of range with the field named, before any variant runs (%#)', async (options, message) => {
    const { spawn, log } = fakeWorkers();
    const out = await sweepWith(2, spawn, options);
    expect(out.refused).toMatch(message);
    expect(log.handed).toEqual([]);
    expect(log.terminated).toBe(1);
  });
});

describe("a row's replay in the app", () => {
  it("loads the scenario with the variant's faults after its timeline, as --fault adds them, and reaches the row's digest", () => {
    const loaded = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4 }, 'timeline');
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const plan = planSweep(loaded.scenario, [], OPTIONS);
    const variant = plan.variants.find((v) => v.faults[0]!.fault === 'power-off-node')!;
    const ran = runVariant(plan, variant);
    if ('refused' in ran) throw new Error(ran.refused);
    const { sets, timeline } = variantLoad(RUN, variant);
    expect(sets).toEqual([]);
    expect(timeline).toEqual([{ at: 15, fault: 'power-off-node', target: variant.faults[0]!.target }]);
    const app = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4, timeline }, 'load.timeline');
    if (!app.ok) throw new Error(app.errors.join('\n'));
    expect(app.scenario.timeline.slice(loaded.scenario.timeline.length)).toMatchObject(timeline);
    const sim = createSim(app.scenario, { fixes: [] });
    sim.runUntil(sim.durationUs);
    expect(sim.report(0).digest).toBe(ran.digest);
    expect(sweepRow(RUN, impactOf(plan, ran)).command).toBe(`npm run sim -- demo --seed 4 --fault 15:power-off-node:${variant.faults[0]!.target} --until 60`);
  });

  it("loads a risky setting's variant with its overrides after the fixes, as --set gives them, and reaches the row's digest", () => {
    const text = readFileSync(new URL('../../public/scenarios/source-ip.yaml', import.meta.url), 'utf8');
    const loaded = loadWithAdditions(text, 'source-ip.yaml', {}, 'timeline');
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const plan = planSweep(loaded.scenario, [], { faults: ['delete-pod'], pairs: false, at: 15, for: 45 });
    const variant = plan.variants.find((v) => v.setting !== undefined)!;
    expect(variant.setting?.id).toBe('etp-local-unknown-members');
    const ran = runVariant(plan, variant);
    if ('refused' in ran) throw new Error(ran.refused);
    const run: SweepBase = { ...RUN, scenario: 'source-ip', seed: loaded.scenario.seed };
    const load = variantLoad(run, variant);
    expect(load).toEqual({ sets: variant.setting!.sets, timeline: [] });
    const app = loadWithAdditions(text, 'source-ip.yaml', { seed: loaded.scenario.seed, ...load }, 'load.timeline');
    if (!app.ok) throw new Error(app.errors.join('\n'));
    const sim = createSim(app.scenario, { fixes: [] });
    sim.runUntil(sim.durationUs);
    expect(sim.report(0).digest).toBe(ran.digest);
    expect(sweepRow(run, impactOf(plan, ran)).command).toBe(
      `npm run sim -- source-ip --seed ${loaded.scenario.seed} --set ${variant.setting!.sets.join(' --set ')} --until 60  # risky setting etp-local-unknown-members on service/traefik`,
    );
  });

  it("names the timeline entry the loader refuses, by its place after the scenario's own", () => {
    const result = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4, timeline: [{ at: 15, fault: 'power-off-node', target: 'pod/web-1' }] }, 'load.timeline');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.join('\n')).toMatch(/timeline\[\d+\]/);
    expect(() => loadWithAdditions(DEMO, 'demo.yaml', { timeline: [{ at: 'soon' }] }, 'load.timeline')).toThrow('load.timeline[0].at: expected simulated seconds from 0, got "soon"');
    expect(() => loadWithAdditions(DEMO, 'demo.yaml', { sets: ['replicas'] }, 'load.timeline')).toThrow(
      'load.sets[0]: expected path=value like "params.client.reconnectMs=600", got "replicas"',
    );
  });
});
