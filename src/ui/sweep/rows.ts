import type { SweepRow, VariantImpact } from '../../sim';
import type { TimelineAddition } from '../../worker/protocol';

/** What a browser sweep ran on, for its rows' replays: the scenario's CLI name, seed, fixes, additions, `at` and `for`. */
export interface SweepRun {
  /** A shipped scenario's id (which `npm run sim` reads) or the file name of one opened or edited here. */
  scenario: string;
  seed: number;
  fixes: string[];
  /** Overrides the loaded run already had; a variant's setting adds its own after them. */
  sets: string[];
  /** Faults the loaded run already added to the timeline; they come before the variant's. */
  timeline: TimelineAddition[];
  at: number;
  for: number;
}

/** `power-off-node on node/node-a + setting fixed-reconnect on deployment/web`: what a variant tries, as the table names it. */
export function variantName(variant: Pick<VariantImpact, 'faults' | 'setting'>): string {
  const parts = variant.faults.map((f) => `${f.fault} on ${f.target}`);
  if (variant.setting) parts.push(`setting ${variant.setting.id} on ${variant.setting.target}`);
  return parts.join(' + ');
}

/** A word a POSIX shell reads back as itself. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * How the app loads a variant to replay it, as runVariant ran it: the run's overrides then the setting's, and the
 * variant's faults as timeline entries at the sweep's `at`, after those the run already had.
 */
export function variantLoad(run: SweepRun, impact: Pick<VariantImpact, 'faults' | 'setting'>): { sets: string[]; timeline: TimelineAddition[] } {
  return {
    sets: [...run.sets, ...(impact.setting?.sets ?? [])],
    timeline: [...run.timeline, ...impact.faults.map((f) => ({ at: run.at, fault: f.fault, target: f.target }))],
  };
}

/** A measured variant as a row of the table, replayed by the command line the CLI's sweep writes for it. */
export function sweepRow(run: SweepRun, impact: VariantImpact): SweepRow {
  const { sets, timeline } = variantLoad(run, impact);
  const words = ['npm', 'run', 'sim', '--', run.scenario, '--seed', String(run.seed)];
  for (const fix of run.fixes) words.push('--fix', fix);
  for (const set of sets) words.push('--set', set);
  for (const f of timeline) {
    const params = Object.entries(f.params ?? {}).map(([name, value]) => `${name}=${value}`);
    words.push('--fault', `${f.at}:${f.fault}:${f.target}${params.length > 0 ? `:${params.join(',')}` : ''}`);
  }
  words.push('--until', String(run.at + run.for));
  // A shell comment, as the CLI writes it: the line names the setting its overrides turn on and still runs as it is.
  const named = impact.setting ? `  # risky setting ${impact.setting.id} on ${impact.setting.target}` : '';
  const replay = { scenario: run.scenario, seed: run.seed, fixes: run.fixes, sets, at: run.at, for: run.for };
  return { record: 'variant', ...impact, ...replay, command: words.map(shellWord).join(' ') + named };
}
