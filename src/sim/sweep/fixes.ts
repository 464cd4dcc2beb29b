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
 * Each candidate row's fix effects, in the order of `names`, gathered from the runs of fixTasks(trials.length, candidates)
 * as they arrive in any order: a run is measured as soon as its trial's unfaulted run is in, so the work is spread over
 * the arrivals rather than done at the end. A fix that has no trial says why from `unusable`.
 */
export class FixEffects {
  private readonly unfaulted: (UnfaultedRun | string | undefined)[];
  /** Per candidate, per trial: its run until measured, then its effect. */
  private readonly runs: (VariantRun | string | undefined)[][];
  private readonly measured: (FixEffect | undefined)[][];

  constructor(
    private readonly plan: SweepPlan,
    private readonly ranked: readonly VariantImpact[],
    private readonly names: readonly string[],
    private readonly trials: readonly string[],
    private readonly unusable: ReadonlyMap<string, string>,
    private readonly candidates: readonly number[],
  ) {
    this.unfaulted = trials.map(() => undefined);
    this.runs = candidates.map(() => trials.map(() => undefined));
    this.measured = candidates.map(() => trials.map(() => undefined));
  }

  /** Task `n`'s run, or a string saying why it has none. */
  add(n: number, result: VariantRun | UnfaultedRun | string): void {
    const t = n % this.trials.length;
    if (n < this.trials.length) {
      this.unfaulted[t] = result as UnfaultedRun | string;
      this.candidates.forEach((_, c) => this.measure(c, t));
    } else {
      const c = Math.floor(n / this.trials.length) - 1;
      this.runs[c]![t] = result as VariantRun | string;
      this.measure(c, t);
    }
  }

  private measure(c: number, t: number): void {
    const unfaulted = this.unfaulted[t];
    const run = this.runs[c]![t];
    if (unfaulted === undefined || run === undefined || this.measured[c]![t] !== undefined) return;
    const fix = this.trials[t]!;
    const row = this.ranked.find((r) => r.index === this.candidates[c])!;
    this.measured[c]![t] =
      typeof unfaulted === 'string'
        ? { fix, refused: `its unfaulted run failed: ${unfaulted}` }
        : typeof run === 'string'
          ? { fix, refused: `its run failed: ${run}` }
          : fixEffect(this.plan, fix, unfaulted, row, run);
    // Measured, the run is no longer needed.
    this.runs[c]![t] = undefined;
  }

  /** Every candidate's effects by variant index; call once every task's run is in. */
  effects(): Map<number, FixEffect[]> {
    const effects = new Map<number, FixEffect[]>();
    this.candidates.forEach((index, c) => {
      const measured = this.measured[c]!;
      effects.set(
        index,
        this.names.map((fix) => measured.find((m) => m?.fix === fix) ?? { fix, refused: `cannot be applied with the sweep's overrides: ${this.unusable.get(fix)!}` }),
      );
    });
    return effects;
  }
}

/** FixEffects over every run of fixTasks(trials.length, candidates) at once: `results[k]` is task k's run. */
export function collectFixEffects(
  plan: SweepPlan,
  ranked: readonly VariantImpact[],
  names: readonly string[],
  trials: readonly string[],
  unusable: ReadonlyMap<string, string>,
  candidates: readonly number[],
  results: readonly (VariantRun | UnfaultedRun | string)[],
): Map<number, FixEffect[]> {
  const effects = new FixEffects(plan, ranked, names, trials, unusable, candidates);
  results.forEach((result, n) => effects.add(n, result));
  return effects.effects();
}
