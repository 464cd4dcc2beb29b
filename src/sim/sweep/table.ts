import { csvField } from '../report/csv';
import { compareImpacts, type VariantImpact } from './impact';

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
export type SweepRow = { record: 'variant'; rank?: number } & VariantImpact & Replay;

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
  'digest',
  'command',
];

/** The table as CSV (RFC 4180), one row per variant in the given order; p99 as `histogram baseline→variant`. */
export function sweepCsv(rows: readonly SweepRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) {
    const text = (n: number | null | undefined): string => (n === undefined ? '' : n === null ? 'not within the run' : String(n));
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
      row.digest ?? '',
      row.command,
    ];
    lines.push(cells.map(csvField).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
