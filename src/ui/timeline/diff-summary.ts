import type { SeriesBuffer } from '../../state/series-buffer';
import type { ChartSpec } from '../../worker/protocol';
import { matchingNames } from '../chart/series-lines';

/** The A/B difference in numbers: each series of the scenario's rate and level charts, over the samples both runs have. */

export interface DiffRow {
  label: string;
  /** `total` sums a rate chart's counts; `peak` is a level chart's highest sample. */
  agg: 'total' | 'peak';
  a: number;
  b: number;
}

export interface DiffSummary {
  /** Samples [from, to) both runs hold. */
  from: number;
  to: number;
  stepSeconds: number;
  rows: DiffRow[];
}

function aggregate(buffer: SeriesBuffer, names: readonly string[], agg: DiffRow['agg'], from: number, to: number): number {
  let out = 0;
  if (agg === 'total') {
    for (const name of names)
      for (let k = from; k < to; k++) {
        const v = buffer.value(name, k);
        if (Number.isFinite(v)) out += v;
      }
    return out;
  }
  for (let k = from; k < to; k++)
    for (const name of names) {
      const v = buffer.value(name, k);
      if (Number.isFinite(v) && v > out) out = v;
    }
  return out;
}

export function diffSummary(charts: readonly ChartSpec[], a: SeriesBuffer, b: SeriesBuffer, sinceSample = 0): DiffSummary {
  const from = Math.max(a.start(), b.start(), sinceSample);
  const to = Math.min(a.end(), b.end());
  const rows: DiffRow[] = [];
  if (to <= from) return { from, to: from, stepSeconds: a.stepSeconds, rows };
  const seen = new Set<string>();
  for (const chart of charts) {
    if (chart.kind === 'histogram') continue;
    const agg = chart.kind === 'rate' ? 'total' : 'peak';
    for (const s of chart.series) {
      const key = `${agg}:${s.metric}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const names = [...new Set([...matchingNames(s.metric, a.names()), ...matchingNames(s.metric, b.names())])];
      if (names.length === 0) continue;
      const label = s.metric.endsWith('=*}') ? `${chart.title}: ${s.label} (any)` : s.label;
      rows.push({ label, agg, a: aggregate(a, names, agg, from, to), b: aggregate(b, names, agg, from, to) });
    }
  }
  return { from, to, stepSeconds: a.stepSeconds, rows };
}

/** B against A in words and numbers: "−97.3 %", "+12 %", "same", "none in A". */
export function changeText(a: number, b: number): string {
  if (a === b) return 'same';
  if (a === 0) return 'none in A';
  const pct = ((b - a) / a) * 100;
  const digits = Math.abs(pct) >= 10 ? 0 : 1;
  return `${pct > 0 ? '+' : '−'}${Math.abs(pct).toFixed(digits)} %`;
}

/** B / A as a factor, or null when A is 0. */
export function ratio(a: number, b: number): number | null {
  return a === 0 ? null : b / a;
}
