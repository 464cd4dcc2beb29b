import type { SweepRow, VariantImpact } from '../../sim';
import type { TimelineAddition } from '../../worker/protocol';

/** What a browser sweep ran on, for its rows' replays: the scenario's CLI name, seed, fixes, additions, `at` and `for`. */
export interface SweepRun {
  /** A shipped scenario's id (which `npm run sim` reads) or the file name of one opened or edited here. */
  scenario: string;
  seed: number;
  fixes: string[];
  /** Faults the loaded run already added to the timeline; they come before the variant's. */
  timeline: TimelineAddition[];
  at: number;
  for: number;
}

/** A word a POSIX shell reads back as itself. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The variant's faults as timeline entries at the sweep's `at`, after those the run already had: what replays the row. */
export function variantTimeline(run: SweepRun, impact: Pick<VariantImpact, 'faults'>): TimelineAddition[] {
  return [...run.timeline, ...impact.faults.map((f) => ({ at: run.at, fault: f.fault, target: f.target }))];
}

/** A measured variant as a row of the table, replayed by the command line the CLI's sweep writes for it. */
export function sweepRow(run: SweepRun, impact: VariantImpact): SweepRow {
  const words = ['npm', 'run', 'sim', '--', run.scenario, '--seed', String(run.seed)];
  for (const fix of run.fixes) words.push('--fix', fix);
  for (const f of variantTimeline(run, impact)) {
    const params = Object.entries(f.params ?? {}).map(([name, value]) => `${name}=${value}`);
    words.push('--fault', `${f.at}:${f.fault}:${f.target}${params.length > 0 ? `:${params.join(',')}` : ''}`);
  }
  words.push('--until', String(run.at + run.for));
  const replay = { scenario: run.scenario, seed: run.seed, fixes: run.fixes, sets: [], at: run.at, for: run.for };
  return { record: 'variant', ...impact, ...replay, command: words.map(shellWord).join(' ') };
}
