import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useApp } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { DEFAULT_CHARTS, type ChartSpec } from '../../worker/protocol';
import { panel } from '../styles';
import { createHistogramChart } from './histogram-chart';
import { createSeriesChart } from './series-chart';

/** The scenario's charts as tabs, one drawn at a time by d3 whenever the series buffer changes, without React renders. */
export function ChartPanel() {
  const charts = useApp((s) => s.summary?.charts) ?? DEFAULT_CHARTS;
  const [chosen, setChosen] = useState(0);
  const index = Math.min(chosen, charts.length - 1);
  const spec = charts[index]!;
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const move = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (move === 0) return;
    e.preventDefault();
    const next = (index + move + charts.length) % charts.length;
    setChosen(next);
    tabs.current[next]?.focus();
  };

  return (
    <section className={panel} aria-label="Charts">
      <div className="flex items-center gap-3 border-b border-slate-200 px-3 py-1.5 dark:border-slate-800">
        <div role="tablist" aria-label="Charts" className="flex min-w-0 flex-wrap gap-1" onKeyDown={onKeyDown}>
          {charts.map((c, i) => (
            <button
              key={`${i}:${c.title}`}
              ref={(el) => {
                tabs.current[i] = el;
              }}
              role="tab"
              type="button"
              id={`chart-tab-${i}`}
              aria-selected={i === index}
              aria-controls="chart-tabpanel"
              tabIndex={i === index ? 0 : -1}
              data-testid={`chart-tab-${i}`}
              onClick={() => setChosen(i)}
              className="rounded px-2 py-1 text-xs font-semibold uppercase tracking-wide text-slate-500 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 aria-selected:bg-indigo-50 aria-selected:text-indigo-700 dark:text-slate-400 dark:hover:bg-slate-800 dark:aria-selected:bg-indigo-950 dark:aria-selected:text-indigo-300"
            >
              {c.title}
            </button>
          ))}
        </div>
      </div>
      <ChartView key={`${index}:${spec.title}`} spec={spec} tab={`chart-tab-${index}`} />
    </section>
  );
}

function ChartView({ spec, tab }: { spec: ChartSpec; tab: string }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const legendRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!svgRef.current || !legendRef.current) return;
    const make = spec.kind === 'histogram' ? createHistogramChart : createSeriesChart;
    const chart = make(svgRef.current, legendRef.current, spec);
    const initial = frameStore.getState();
    chart.draw(initial.series, initial.durationUs);
    const unsubscribe = frameStore.subscribe((s, prev) => {
      if (s.seriesVersion !== prev.seriesVersion || s.series !== prev.series || s.durationUs !== prev.durationUs) {
        chart.draw(s.series, s.durationUs);
      }
    });
    return () => {
      unsubscribe();
      chart.destroy();
    };
  }, [spec]);

  const what = spec.series.map((s) => s.label).join(', ');
  return (
    <div id="chart-tabpanel" role="tabpanel" aria-labelledby={tab} className="flex min-h-0 flex-1 flex-col">
      <div ref={legendRef} className="flex flex-wrap items-baseline gap-x-4 gap-y-0.5 px-3 pt-1.5 text-sm" aria-live="off" />
      <div className="relative min-h-0 flex-1">
        <svg ref={svgRef} data-testid="chart" className="absolute inset-0 size-full" role="img" aria-label={`${spec.title}: ${what}`} />
      </div>
    </div>
  );
}
