import { useEffect, useState } from 'react';
import { useApp } from '../../state/app-store';
import { compareStore, describeB, useCompare } from '../../state/compare';
import { frameStore } from '../../state/frame-store';
import { DEFAULT_CHARTS } from '../../sim';
import { formatClock, formatCount } from '../components/format';
import { changeText, diffSummary, type DiffSummary } from './diff-summary';
import { clockLabel } from './time-scale';

const number = (v: number): string => (Number.isInteger(v) ? formatCount(v) : v.toFixed(1));

/** Recomputed at most this often: the table reads every sample of both runs. */
const REFRESH_MS = 500;

/** Legend and the difference in numbers while a comparison runs: every figure read from both runs' series. */
export function CompareSummary() {
  const status = useCompare((s) => s.status);
  const message = useCompare((s) => s.message);
  const branchAt = useCompare((s) => s.branchAt);
  const bName = useCompare((s) => describeB(s, formatClock));
  const bT = useCompare((s) => s.t);
  const charts = useApp((s) => s.summary?.charts) ?? DEFAULT_CHARTS;
  const [summary, setSummary] = useState<DiffSummary | null>(null);
  // Folded on short screens, where the figures would leave the charts no room; one click opens them.
  const [open, setOpen] = useState(() => typeof window === 'undefined' || window.innerHeight >= 800);

  useEffect(() => {
    if (status !== 'following') {
      setSummary(null);
      return;
    }
    // A branch is run A until it parts: its figures count from there.
    const since = (series: { stepSeconds: number }): number => (branchAt === null ? 0 : Math.floor(branchAt / 1e6 / series.stepSeconds));
    const update = (): void => {
      const a = frameStore.getState().series;
      setSummary(diffSummary(charts, a, compareStore.getState().series, since(a)));
    };
    update();
    const timer = setInterval(update, REFRESH_MS);
    return () => clearInterval(timer);
  }, [status, charts, branchAt]);

  if (status === 'error') {
    return (
      <p role="alert" data-testid="compare-error" className="border-b border-slate-200 bg-red-50 px-3 py-1 text-xs text-red-800 dark:border-slate-800 dark:bg-red-950/50 dark:text-red-200">
        {message}
      </p>
    );
  }
  if (status === 'off' || bName === null) return null;
  const rows = summary?.rows ?? [];
  const changed = rows.filter((r) => r.a !== 0 || r.b !== 0);
  const zeroInBoth = rows.filter((r) => r.a === 0 && r.b === 0);
  const span = summary && summary.to > summary.from ? `${clockLabel(summary.from * summary.stepSeconds)}–${clockLabel(summary.to * summary.stepSeconds)}` : '';

  return (
    <details
      open={open}
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-testid="compare-summary"
      className="group max-h-[min(8rem,35%)] shrink-0 overflow-y-auto border-b border-slate-200 px-3 py-1 text-xs dark:border-slate-800"
    >
      <summary className="flex cursor-pointer flex-wrap items-center gap-x-4 gap-y-1 rounded text-slate-700 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-200">
        <span className="flex items-center gap-1.5" data-testid="compare-legend-a">
          <svg width="20" height="6" aria-hidden="true">
            <line x1="0" x2="20" y1="3" y2="3" className="stroke-slate-600 dark:stroke-slate-300" strokeWidth="2" />
          </svg>
          A: as is
        </span>
        <span className="flex items-center gap-1.5" data-testid="compare-legend-b">
          <svg width="20" height="6" aria-hidden="true">
            <line x1="0" x2="20" y1="3" y2="3" className="stroke-slate-600 dark:stroke-slate-300" strokeWidth="2" strokeDasharray="4 3" />
          </svg>
          {bName}
        </span>
        <span className="text-slate-500 dark:text-slate-400" data-testid="compare-clock" data-us={bT}>
          run B at {formatClock(bT)}
          {span && ` · figures over ${span}, the samples both runs have`}
        </span>
      </summary>
      {summary && changed.length > 0 && (
        <dl className="mt-1 grid grid-cols-[repeat(auto-fill,minmax(17rem,1fr))] gap-x-4 gap-y-0.5" data-testid="compare-table" aria-label={`Run A against run B, ${span}`}>
          {changed.map((r) => (
            <div key={`${r.agg}:${r.label}`} data-testid="compare-row" data-label={r.label} data-a={r.a} data-b={r.b} className="flex min-w-0 items-baseline gap-1.5">
              <dt className="min-w-0 truncate text-slate-600 dark:text-slate-300" title={`${r.label} (${r.agg})`}>
                {r.label} <span className="text-slate-500 dark:text-slate-400">{r.agg}</span>
              </dt>
              <dd className="ml-auto shrink-0 font-mono tabular-nums text-slate-900 dark:text-slate-100">
                {number(r.a)} → {number(r.b)} <span className="font-semibold">{changeText(r.a, r.b)}</span>
              </dd>
            </div>
          ))}
        </dl>
      )}
      {summary && zeroInBoth.length > 0 && (
        <p className="mt-0.5 text-slate-500 dark:text-slate-400" data-testid="compare-zero">
          0 in both: {zeroInBoth.map((r) => r.label).join(', ')}
        </p>
      )}
    </details>
  );
}
