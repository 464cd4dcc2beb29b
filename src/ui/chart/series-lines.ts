import type { ChartSpec } from '../../worker/protocol';
import type { SeriesBuffer } from '../../state/series-buffer';

/** One line of a chart: the series it reads, its legend label, and its colour slot (`--c-s0` … `--c-s5`). */
export interface Line {
  name: string;
  label: string;
  key: string;
}

/** Lines a `{label=*}` pattern expands to: the busiest series in view. */
const PATTERN_LINES = 5;
export const PALETTE = 6;

/** `flows.new{dst=*}` → prefix `flows.new{dst=`; a plain metric has no pattern. */
export function patternPrefix(metric: string): string | null {
  return metric.endsWith('=*}') ? metric.slice(0, -2) : null;
}

/** The series names a chart metric stands for: itself, or every series a pattern matches. */
export function matchingNames(metric: string, names: readonly string[]): string[] {
  const prefix = patternPrefix(metric);
  if (!prefix) return names.includes(metric) ? [metric] : [];
  return names.filter((name) => name.startsWith(prefix) && name.endsWith('}'));
}

/** The lines to draw now: plain series as they are, patterns as their busiest matches within samples [from, to). */
export function resolveLines(spec: ChartSpec, buffer: SeriesBuffer, from: number, to: number): Line[] {
  const out: Line[] = [];
  const names = buffer.names();
  for (const s of spec.series) {
    const prefix = patternPrefix(s.metric);
    if (!prefix) {
      out.push({ name: s.metric, label: s.label, key: '' });
      continue;
    }
    const peaks = matchingNames(s.metric, names)
      .map((name) => {
        let peak = 0;
        for (let k = from; k < to; k++) {
          const v = buffer.value(name, k);
          if (v > peak) peak = v;
        }
        return { name, peak };
      })
      .filter((c) => c.peak > 0)
      .sort((a, b) => b.peak - a.peak || (a.name < b.name ? -1 : 1))
      .slice(0, PATTERN_LINES);
    for (const c of peaks) out.push({ name: c.name, label: `${s.label} ${c.name.slice(prefix.length, -1)}`, key: '' });
  }
  return out.slice(0, PALETTE).map((l, i) => ({ ...l, key: `s${i}` }));
}
