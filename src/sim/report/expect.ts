import type { ExpectResult, SeriesReport } from '../api';
import type { Scenario } from '../scenario/schema';

type Assertion = Scenario['expect'][number];

const OPS: Record<Assertion['op'], (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/**
 * Values of one series inside a window of simulated seconds. Sample k covers (k·step, (k+1)·step]; `firstIndex` is the
 * index of values[0], since ring buffers may have dropped the oldest samples.
 */
function windowValues(series: SeriesReport, firstIndex: number, window: readonly [number, number] | undefined): number[] {
  if (!window) return series.values;
  const [from, to] = window;
  return series.values.filter((_, i) => {
    const start = (firstIndex + i) * series.stepSeconds;
    return start >= from - 1e-9 && start + series.stepSeconds <= to + 1e-9;
  });
}

function aggregate(values: number[], agg: Assertion['agg']): number | null {
  if (values.length === 0) return null;
  switch (agg) {
    case 'total':
      return values.reduce((a, b) => a + b, 0);
    case 'peak':
      return Math.max(...values);
    case 'min':
      return Math.min(...values);
    case 'mean':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'last':
      return values[values.length - 1]!;
  }
}

/** The assertions that speak about a run with these fixes applied: those for every run, and those for exactly this set. */
export function expectationsFor(assertions: readonly Assertion[], fixes: readonly string[]): Assertion[] {
  const applied = [...fixes].sort().join(',');
  return assertions.filter((a) => a.fixes === undefined || [...a.fixes].sort().join(',') === applied);
}

/**
 * Checks a scenario's assertions. `total` without a window reads the run totals (counters' totals, gauges' peaks), which
 * stay exact however long the run; every other form reads the fixed-step series.
 */
export function evaluateExpectations(assertions: readonly Assertion[], totals: Record<string, number>, series: Record<string, SeriesReport>, sampleCount: number): ExpectResult[] {
  return assertions.map((a) => {
    // A metric name may be an inherited property's (`constructor`); only the run's own series count.
    const s = Object.hasOwn(series, a.metric) ? series[a.metric] : undefined;
    let actual: number | null = null;
    let missing: string | undefined;
    if (a.agg === 'total' && !a.window && Object.hasOwn(totals, a.metric)) actual = totals[a.metric]!;
    else if (!s) missing = `no metric named ${a.metric}`;
    else if (a.window && a.window[1] > sampleCount * s.stepSeconds + 1e-9) {
      missing = `the run stopped at ${sampleCount * s.stepSeconds} s, before the window ends at ${a.window[1]} s`;
    } else actual = aggregate(windowValues(s, sampleCount - s.values.length, a.window), a.agg);
    const windowText = a.window ? ` over ${a.window[0]}–${a.window[1]} s` : '';
    return {
      description: a.description ?? `${a.agg} of ${a.metric}${windowText} ${a.op} ${a.value}`,
      metric: a.metric,
      agg: a.agg,
      op: a.op,
      value: a.value,
      actual,
      held: actual !== null && OPS[a.op](actual, a.value),
      ...(missing === undefined ? {} : { missing }),
    };
  });
}
