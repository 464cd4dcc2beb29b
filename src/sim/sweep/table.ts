import { csvField } from '../report/csv';
import type { FixEffect } from './fixes';
import { compareImpacts, type PerStep, type VariantImpact } from './impact';

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

/** One line of a sweep's table: its rank once the table is whole, the variant's impact and how to replay it. */
export type SweepRow = { record: 'variant'; rank?: number } & VariantImpact & Replay & { fixEffects?: FixEffect[] };

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
