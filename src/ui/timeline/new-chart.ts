import type { ChartSpec } from '../../worker/protocol';

/** Checks a chart the user asks for against the series the run has; the message names the field. */
export function checkNewChart(metric: string, kind: string, recorded: readonly string[]): { ok: true; spec: ChartSpec } | { ok: false; message: string } {
  const name = metric.trim();
  if (name === '') return { ok: false, message: 'metric: pick a series the run has recorded' };
  if (!recorded.includes(name)) return { ok: false, message: `metric: "${name}" is not a series this run has recorded` };
  if (kind !== 'rate' && kind !== 'level') return { ok: false, message: 'kind: expected rate or level' };
  const label = name.length > 32 ? `…${name.slice(-31)}` : name;
  return { ok: true, spec: { title: name, kind, series: [{ metric: name, label }] } };
}
