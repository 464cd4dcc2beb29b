import { echo, collectFixEffects, fixCandidates, fixesToTry, fixTasks, planSweep, type FixTrial, type SweepHeader, type SweepPlan, type SweepRow } from '../sim';
import { UsageError } from './args';
import { loadFromArgs, readSource } from './prepare';
import { progressLine, runTasks } from './sweep-pool';

/**
 * Tries each of the scenario's own fixes that the sweep did not apply on the `top` worst rows that did harm: the
 * unfaulted run and each of those variants run again with the fix, on the pool. Returns the rows with `fixEffects` on
 * those, in the scenario's order of fixes; a fix that cannot be loaded with the sweep's overrides says why on each.
 */
export async function measureFixes(
  source: { text: string; fileName: string },
  load: { seed?: number; sets: string[]; fixes: string[] },
  plan: SweepPlan,
  ranked: SweepRow[],
  top: number,
  jobs: number,
  label: string,
): Promise<SweepRow[]> {
  const names = fixesToTry(plan);
  const candidates = fixCandidates(ranked, top);
  if (names.length === 0 || candidates.length === 0) return ranked;
  const trials: FixTrial[] = [];
  const unusable = new Map<string, string>();
  for (const fix of names) {
    try {
      const loaded = loadFromArgs(source, { ...load, fixes: [...load.fixes, fix], faults: [] });
      trials.push({ fix, scenario: loaded.scenario, fixes: loaded.appliedFixes });
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      unusable.set(fix, error.message);
    }
  }
  const tasks = fixTasks(trials.length, candidates);
  const progress = progressLine(`${label}: ${names.length} fixes on the ${candidates.length} worst`, tasks.length, 'runs');
  progress(0);
  const results = await runTasks({ plan, trials }, tasks, jobs, progress);
  const effects = collectFixEffects(
    plan,
    ranked,
    names,
    trials.map((t) => t.fix),
    unusable,
    candidates,
    results,
  );
  return ranked.map((row) => (effects.has(row.index) ? { ...row, fixEffects: effects.get(row.index)! } : row));
}

/**
 * The plan of a merged sweep, made again from its header to try fixes: the scenario loaded as the sweep loaded it,
 * checked to give the same unfaulted run and the same number of variants; undefined when it has no fix to try.
 */
export function replan(header: SweepHeader): { source: { text: string; fileName: string }; plan: SweepPlan } | undefined {
  let source: { text: string; fileName: string };
  try {
    source = readSource(header.source);
  } catch (error) {
    throw new UsageError(`sweep-merge: ${(error as Error).message}; it is read again to try its fixes on the worst rows (--fix-top 0 merges without)`);
  }
  const { scenario, appliedFixes } = loadFromArgs(source, { seed: header.seed, sets: header.sets, fixes: header.fixes, faults: [] });
  if (Object.keys(scenario.fixes).every((name) => appliedFixes.includes(name))) return undefined;
  const options = {
    ...(header.faults ? { faults: header.faults } : {}),
    ...(header.settings ? { settings: header.settings } : {}),
    pairs: header.pairs,
    at: header.at,
    for: header.for,
  };
  const plan = planSweep(scenario, appliedFixes, options);
  if (plan.baseline.digest !== header.baseline.digest || plan.variants.length !== header.variants) {
    throw new UsageError(
      `sweep-merge: scenario ${echo(header.source)} no longer gives the sweep's unfaulted run (digest ${plan.baseline.digest}, not ${header.baseline.digest}); its fixes cannot be tried on these rows (--fix-top 0 merges without)`,
    );
  }
  return { source, plan };
}
