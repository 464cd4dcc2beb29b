import type { RunReport } from '../api';

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A run's metric series as CSV (RFC 4180): a header `t_s` and one column per series in name order, then one row per
 * sample, at the end of its step. Counters are the increase during the step, gauges their value at its end.
 */
export function seriesCsv(report: Pick<RunReport, 'series'>): string {
  const names = Object.keys(report.series).sort();
  const rows = Math.max(0, ...names.map((n) => report.series[n]!.values.length));
  const step = names.length > 0 ? report.series[names[0]!]!.stepSeconds : 1;
  const lines = [['t_s', ...names].map(csvField).join(',')];
  for (let i = 0; i < rows; i++) {
    const cells = [String(Math.round((i + 1) * step * 1e6) / 1e6)];
    for (const name of names) {
      const v = report.series[name]!.values[i];
      cells.push(v === undefined ? '' : String(v));
    }
    lines.push(cells.join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
