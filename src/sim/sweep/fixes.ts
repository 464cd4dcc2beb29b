import type { Scenario } from '../scenario/schema';
import { impactOf, type VariantImpact } from './impact';
import { runUnfaulted, runVariant, type SweepPlan, type UnfaultedRun, type VariantRun } from './plan';
import { whyBeyond } from './why';

/** One of the scenario's own fixes, tried on the sweep's worst rows: the scenario loaded with it and the fixes its runs record. */
export interface FixTrial {
  fix: string;
  scenario: Scenario;
  fixes: string[];
}

/** How many of the worst rows each fix is tried on, unless told otherwise: each costs a run per fix. */
export const FIX_TOP = 5;
// Model choice: a bound on the runs one sweep's fixes may add (fixes × rows), far above any table read by hand.
export const MAX_FIX_TOP = 1000;

/** A run of the sweep: a variant's (phase one), or for fix trial `trial` its unfaulted run or a variant's run with the fix. */
export type SweepTask = { index: number } | { trial: number; index?: number };

/** Runs one task; plain data in and out, so a worker thread or a browser worker can run it. */
export function runSweepTask(plan: SweepPlan, trials: readonly FixTrial[], task: SweepTask): VariantRun | UnfaultedRun {
  if (!('trial' in task)) return runVariant(plan, plan.variants[task.index]!);
  const { scenario, fixes } = trials[task.trial]!;
  if (task.index === undefined) return runUnfaulted(scenario, fixes, plan.options);
  return runVariant({ scenario, fixes, options: plan.options }, plan.variants[task.index]!);
}

/** The variants to try fixes on: the `top` worst rows (in ranked order) that ran and did harm. */
export function fixCandidates(ranked: readonly VariantImpact[], top: number): number[] {
  return ranked
    .filter((row) => row.refused === undefined && row.score! > 0)
    .slice(0, top)
    .map((row) => row.index);
}

/** Every trial's unfaulted run, then every candidate under every trial, in that order. */
export function fixTasks(trials: number, candidates: readonly number[]): SweepTask[] {
  const tasks: SweepTask[] = Array.from({ length: trials }, (_, trial) => ({ trial }));
  for (const index of candidates) for (let trial = 0; trial < trials; trial++) tasks.push({ trial, index });
  return tasks;
}

/** What one of the scenario's fixes did to a variant: its run with the fix against the unfaulted run with the fix. */
export interface FixEffect {
  fix: string;
  /** Why a fault could not land with the fix. */
  refused?: string;
  score?: number;
  recoveredAfterS?: number | null;
  /**
   * The variant's main symptom (the fact its first why chain starts from) with the fix: how often it happened there,
   * and in the unfaulted run with the fix.
   */
  symptom?: { count: number; baseline: number };
  /** No chain of the main symptom's kind stands out against the unfaulted run with the fix any more. */
  removesSymptom?: boolean;
  digest?: string;
}

/** Measures a variant's run under a fix against the unfaulted run under it; `row` is the variant's row without the fix. */
export function fixEffect(plan: SweepPlan, fix: string, unfaulted: UnfaultedRun, row: VariantImpact, run: VariantRun): FixEffect {
  if ('refused' in run) return { fix, refused: run.refused };
  const impact = impactOf({ variants: plan.variants, options: plan.options, baseline: unfaulted }, run);
  const effect: FixEffect = { fix, score: impact.score!, recoveredAfterS: impact.recoveredAfterS! };
  const main = row.why?.[0]?.cause;
  if (main) {
    const same = (chains: UnfaultedRun['why']) => chains.find((c) => c.cause.kind === main.kind && c.cause.entity === main.entity)?.cause.count ?? 0;
    effect.symptom = { count: same(run.why), baseline: same(unfaulted.why) };
    effect.removesSymptom = !whyBeyond(unfaulted.why, run.why, Infinity).some((c) => c.cause.kind === main.kind);
  }
  effect.digest = impact.digest!;
  return effect;
}

/** The scenario's own fixes a sweep may try: those it was not loaded with, in the scenario's order. */
export function fixesToTry(plan: Pick<SweepPlan, 'scenario' | 'fixes'>): string[] {
  return Object.keys(plan.scenario.fixes).filter((name) => !plan.fixes.includes(name));
}

/**
 * Each candidate row's fix effects, in the order of `names`, from the runs of fixTasks(trials.length, candidates):
 * `results[k]` is task k's run, or a string saying why it has none. A fix that has no trial says why from `unusable`.
 */
export function collectFixEffects(
  plan: SweepPlan,
  ranked: readonly VariantImpact[],
  names: readonly string[],
  trials: readonly string[],
  unusable: ReadonlyMap<string, string>,
  candidates: readonly number[],
  results: readonly (VariantRun | UnfaultedRun | string)[],
): Map<number, FixEffect[]> {
  const effects = new Map<number, FixEffect[]>();
  candidates.forEach((index, c) => {
    const row = ranked.find((r) => r.index === index)!;
    const measured = trials.map((fix, t): FixEffect => {
      const unfaulted = results[t]!;
      const run = results[trials.length * (1 + c) + t]!;
      if (typeof unfaulted === 'string') return { fix, refused: `its unfaulted run failed: ${unfaulted}` };
      if (typeof run === 'string') return { fix, refused: `its run failed: ${run}` };
      return fixEffect(plan, fix, unfaulted as UnfaultedRun, row, run as VariantRun);
    });
    effects.set(
      index,
      names.map((fix) => measured.find((m) => m.fix === fix) ?? { fix, refused: `cannot be applied with the sweep's overrides: ${unusable.get(fix)!}` }),
    );
  });
  return effects;
}
