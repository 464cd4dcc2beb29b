import { useEffect, useRef } from 'react';
import { frameStore } from '../../state/frame-store';
import { panel, panelTitle } from '../styles';
import { createRateChart } from './rate-chart';

/** Live requests-per-second chart; redrawn by d3 whenever the series buffer changes, without React renders. */
export function ChartPanel() {
  const svgRef = useRef<SVGSVGElement>(null);
  const legendRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!svgRef.current || !legendRef.current) return;
    const chart = createRateChart(svgRef.current, legendRef.current);
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
  }, []);

  return (
    <section className={panel} aria-label="Requests per second">
      <div className={panelTitle}>
        <h2>Requests per second</h2>
        <div ref={legendRef} className="flex items-baseline gap-4 text-sm normal-case tracking-normal" aria-live="off" />
      </div>
      <div className="relative min-h-0 flex-1">
        <svg ref={svgRef} data-testid="chart" className="absolute inset-0 size-full" role="img" aria-label="Requests per second: ok and failed" />
      </div>
    </section>
  );
}
