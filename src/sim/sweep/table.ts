import { csvField } from '../report/csv';
import type { FixEffect } from './fixes';
import { compareImpacts, perStep, type PerStep, type VariantImpact } from './impact';
import type { SweepPlan } from './plan';

/** The first line of a sweep's table: what was swept, how many variants there are, and the unfaulted run's figures. */
export interface SweepHeader {
  record: 'sweep';
  scenario: string;
  source: string;
  seed: number;
  fixes: string[];
  sets: string[];
  faults: string[] | null;
  /** The risky settings chosen: null for all, [] for none (`--no-settings`). */
  settings: string[] | null;
  pairs: boolean;
  at: number;
  for: number;
  variants: number;
  untargeted: string[];
  /** Chosen risky settings with nothing in the scenario to apply to. */
  untargetedSettings: string[];
  /** Risky settings the scenario already has, on these targets: not variants. */
  settingsInEffect: { id: string; target: string }[];
  baseline: {
    digest: string;
    failedRequests: number;
    failedConnections: number;
    /** The metrics step, in seconds; the window's first step is the one that holds `at`. */
    stepSeconds: number;
    /** Requests answered and failed, and connections failed, in each of the window's steps. */
    perStep: PerStep;
  };
  /** Only in a shard's output: which share of the variants it holds. */
  shard?: string;
  /** Only in a whole table: how many of the worst rows each of the scenario's fixes was tried on. */
  fixTop?: number;
}

/**
 * What replays a row: the scenario as it was given, the seed, fixes and overrides it was loaded with (the sweep's, then
 * its setting's), and when the faults landed.
 */
export interface Replay {
  /** A shipped scenario's id or a file's path, as given to the sweep. */
  scenario: string;
  seed: number;
  fixes: string[];
  sets: string[];
  at: number;
  for: number;
  /** The command line that reruns the variant to the same digest. */
  command: string;
}

/** A fault added to a scenario's timeline when it is loaded, after its own entries, as the CLI's `--fault` adds it. */
export interface TimelineAddition {
  /** Simulated seconds from the start, as a scenario's timeline writes them. */
  at: number;
  fault: string;
  target: string;
  params?: Record<string, number | string | boolean>;
}

/**
 * What every row of a sweep replays from: the scenario as the sweep names it, the seed, fixes and overrides it was
 * loaded with, the faults it had already added to its timeline (a run opened from an earlier sweep), `at` and `for`.
 */
export interface SweepBase {
  /** A shipped scenario's id or a file's path or name, as the CLI reads it. */
  scenario: string;
  seed: number;
  fixes: string[];
  sets: string[];
  timeline: TimelineAddition[];
  at: number;
  for: number;
}

/**
 * How a variant is loaded to replay it, as runVariant runs it: the sweep's overrides then the setting's, and the
 * variant's faults as timeline entries at `at`, after those the sweep's run already had.
 */
export function variantLoad(base: SweepBase, variant: Pick<VariantImpact, 'faults' | 'setting'>): { sets: string[]; timeline: TimelineAddition[] } {
  return {
    sets: [...base.sets, ...(variant.setting?.sets ?? [])],
    timeline: [...base.timeline, ...variant.faults.map((f) => ({ at: base.at, fault: f.fault, target: f.target }))],
  };
}

/** A word a POSIX shell reads back as itself. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A measured variant as a row of the table, with the `npm run sim` command line that replays it to its digest. */
export function sweepRow(base: SweepBase, impact: VariantImpact): SweepRow {
  const { sets, timeline } = variantLoad(base, impact);
  const words = ['npm', 'run', 'sim', '--', base.scenario, '--seed', String(base.seed)];
  for (const fix of base.fixes) words.push('--fix', fix);
  for (const set of sets) words.push('--set', set);
  for (const f of timeline) {
    const params = Object.entries(f.params ?? {}).map(([name, value]) => `${name}=${value}`);
    words.push('--fault', `${f.at}:${f.fault}:${f.target}${params.length > 0 ? `:${params.join(',')}` : ''}`);
  }
  words.push('--until', String(base.at + base.for));
  // A shell comment, so the line names the setting its overrides turn on and still runs as it is.
  const named = impact.setting ? `  # risky setting ${impact.setting.id} on ${impact.setting.target}` : '';
  const replay = { scenario: base.scenario, seed: base.seed, fixes: base.fixes, sets, at: base.at, for: base.for };
  return { record: 'variant', ...impact, ...replay, command: words.map(shellWord).join(' ') + named };
}

/** The header of a sweep's table from its plan: `scenario` is the scenario's id, `source` how the rows' commands name it. */
export function sweepHeader(plan: SweepPlan, names: { scenario: string; source: string; seed: number; sets: string[] }): SweepHeader {
  const { options, baseline } = plan;
  // What clients saw in the unfaulted run during the measured steps.
  const seen = baseline.window;
  return {
    record: 'sweep',
    scenario: names.scenario,
    source: names.source,
    seed: names.seed,
    fixes: plan.fixes,
    sets: names.sets,
    faults: options.faults ? [...options.faults] : null,
    settings: options.settings ? [...options.settings] : null,
    pairs: options.pairs,
    at: options.at,
    for: options.for,
    variants: plan.variants.length,
    untargeted: plan.untargeted,
    untargetedSettings: plan.settings.untargeted,
    settingsInEffect: plan.settings.inEffect,
    baseline: {
      digest: baseline.digest,
      failedRequests: seen.failed.reduce((a, b) => a + b, 0),
      failedConnections: seen.failedConnections.reduce((a, b) => a + b, 0),
      stepSeconds: seen.stepSeconds,
      perStep: perStep(seen),
    },
  };
}

/** One line of a sweep's table: its rank once the table is whole, the variant's impact and how to replay it. */
export type SweepRow = { record: 'variant'; rank?: number } & VariantImpact &
  Replay & {
    fixEffects?: FixEffect[];
    /** A share link that replays the run in the app, when the sweep was told where the app is (`--app`). */
    link?: string;
  };

/** Rows in ranked order, each with its rank (1 for the worst), the key placed where every writer puts it. */
export function rankRows(rows: readonly SweepRow[]): SweepRow[] {
  return [...rows].sort(compareImpacts).map((row, i) => {
    const rest: Partial<SweepRow> = { ...row };
    delete rest.rank;
    return { record: row.record, rank: i + 1, ...rest } as SweepRow;
  });
}

const CSV_COLUMNS = [
  'rank',
  'score',
  'faults',
  'setting',
  'outcome',
  'failed_requests_extra',
  'failed_requests',
  'failed_connections_extra',
  'slow_requests_extra',
  'p99_ms',
  'recovered_after_s',
  'root_cause',
  'best_fix',
  'best_fix_score',
  'digest',
  'command',
];

/** The fact the row's first why chain starts from, and the last step it reached, as `kind at entity: text`. */
export function rootCause(row: Pick<VariantImpact, 'why'>): string {
  const chain = row.why?.[0];
  if (!chain) return '';
  const last = chain.steps.at(-1);
  return `${chain.cause.kind} at ${chain.cause.entity}${last ? `: ${last.entity} ${last.text}` : ''}`;
}

/**
 * The table as CSV (RFC 4180), one row per variant in the given order; p99 as `histogram baseline→variant`; the root
 * cause as rootCause gives it; the best fix is the measured fix that lowered the score most.
 */
export function sweepCsv(rows: readonly SweepRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) {
    const text = (n: number | null | undefined): string => (n === undefined ? '' : n === null ? 'not within the run' : String(n));
    const best = bestFix(row.fixEffects, row.score);
    const slow = row.slowRequests ? Object.values(row.slowRequests).reduce((a, d) => a + d.extra, 0) : undefined;
    const p99 = Object.entries(row.p99Ms ?? {})
      .map(([name, p]) => `${name} ${p.baseline ?? '-'}→${p.variant ?? '-'}`)
      .join('; ');
    const cells = [
      text(row.rank),
      text(row.score),
      row.faults.map((f) => `${f.fault} ${f.target}`).join(' + '),
      row.setting ? `${row.setting.id} ${row.setting.target}` : '',
      row.refused === undefined ? 'ran' : `refused: ${row.refused}`,
      text(row.failedRequests?.extra),
      text(row.failedRequests?.variant),
      text(row.failedConnections?.extra),
      text(slow),
      p99,
      row.refused === undefined ? text(row.recoveredAfterS) : '',
      rootCause(row),
      best?.fix ?? '',
      text(best?.score),
      row.digest ?? '',
      row.command,
    ];
    lines.push(cells.map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

/** The fix that lowered the score most, if any did. */
export function bestFix(effects: readonly FixEffect[] | undefined, score: number | undefined): FixEffect | undefined {
  let best: FixEffect | undefined;
  for (const e of effects ?? []) if (e.score !== undefined && e.score < (best?.score ?? score ?? -Infinity)) best = e;
  return best;
}
