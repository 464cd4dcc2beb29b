import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand, scaleLinear } from 'd3-scale';
import { createChartFrame, drawLegend } from './chart-frame';
import type { ChartSpec } from '../../worker/protocol';
import type { SeriesBuffer } from '../../state/series-buffer';

/**
 * A histogram's observations so far, one bar per bucket, summed from its per-step `name.le_B` series (cumulative
 * like Prometheus's `le`). Bars of one histogram share a colour; up to six histograms sit side by side per bucket.
 */

/** The bucket bounds a histogram has series for, ascending. */
function boundsOf(buffer: SeriesBuffer, metric: string): number[] {
  const prefix = `${metric}.le_`;
  return buffer
    .names()
    .filter((n) => n.startsWith(prefix))
    .map((n) => Number(n.slice(prefix.length)))
    .filter((b) => Number.isFinite(b))
    .sort((a, b) => a - b);
}

/** Observations per bucket (bound → count in (previous bound, bound]) over every sample the buffer holds. */
function bucketCounts(buffer: SeriesBuffer, metric: string, bounds: number[]): number[] {
  const cumulative = bounds.map((b) => buffer.total(`${metric}.le_${b}`));
  return cumulative.map((c, i) => c - (i > 0 ? cumulative[i - 1]! : 0));
}

export interface HistogramChart {
  draw(buffer: SeriesBuffer): void;
  destroy(): void;
}

export function createHistogramChart(svg: SVGSVGElement, legend: HTMLElement, spec: ChartSpec): HistogramChart {
  let last: SeriesBuffer | undefined;
  const frame = createChartFrame(svg, legend, 'observations', () => {
    if (last) draw(last);
  });
  const { grid, xAxis, yAxis, note } = frame;
  const xLabel = frame.plot
    .append('text')
    .attr('class', 'chart-label')
    .attr('text-anchor', 'end')
    .text(spec.unit ?? '');
  const bars = frame.plot.append('g');

  function draw(buffer: SeriesBuffer): void {
    last = buffer;
    const size = frame.fit();
    if (!size) return;
    const { w, h } = size;

    const histograms = spec.series.slice(0, 6).map((s, i) => {
      const bounds = boundsOf(buffer, s.metric);
      return { ...s, key: `s${i}`, bounds, counts: bucketCounts(buffer, s.metric, bounds) };
    });
    const bounds = [...new Set(histograms.flatMap((d) => d.bounds))].sort((a, b) => a - b);
    const total = histograms.reduce((sum, d) => sum + d.counts.reduce((a, b) => a + b, 0), 0);
    const x = scaleBand<number>().domain(bounds).range([0, w]).paddingInner(0.2).paddingOuter(0.1);
    const inner = scaleBand<string>()
      .domain(histograms.map((d) => d.key))
      .range([0, x.bandwidth()])
      .padding(0.05);
    const peak = Math.max(1, ...histograms.flatMap((d) => d.counts));
    const y = scaleLinear()
      .domain([0, peak * 1.1])
      .range([h, 0])
      .nice(4);

    grid.call(
      axisLeft(y)
        .ticks(4)
        .tickSize(-w)
        .tickFormat(() => ''),
    );
    yAxis.call(axisLeft(y).ticks(4, '~s').tickSizeOuter(0));
    const everyNth = Math.max(1, Math.ceil(bounds.length / Math.max(1, Math.floor(w / 36))));
    xAxis.attr('transform', `translate(0,${h})`).call(
      axisBottom(x)
        .tickValues(bounds.filter((_, i) => i % everyNth === 0))
        .tickFormat((b) => `≤${b}`)
        .tickSizeOuter(0),
    );
    xLabel.attr('x', w).attr('y', h + 26);

    const cells = histograms.flatMap((d) => d.bounds.map((b, i) => ({ key: d.key, label: d.label, bound: b, count: d.counts[i]! })));
    bars
      .selectAll<SVGRectElement, (typeof cells)[number]>('rect')
      .data(cells, (c) => `${c.key}:${c.bound}`)
      .join('rect')
      .attr('class', 'chart-bar')
      .attr('data-series', (c) => c.key)
      .style('fill', (c) => `var(--c-${c.key})`)
      .attr('x', (c) => (x(c.bound) ?? 0) + (inner(c.key) ?? 0))
      .attr('width', inner.bandwidth())
      .attr('y', (c) => y(c.count))
      .attr('height', (c) => h - y(c.count))
      .selectAll('title')
      .data((c) => [c])
      .join('title')
      .text((c) => `${c.label}: ${c.count} observations ≤ ${c.bound}`);

    note
      .attr('x', w / 2)
      .attr('y', h / 2)
      .text(total > 0 ? '' : buffer.end() === 0 ? 'Waiting for the first one-second sample…' : 'No observations yet');

    drawLegend(
      legend,
      histograms,
      (d) => d.key,
      'size-2.5 rounded-sm',
      (d) => String(d.counts.reduce((a, b) => a + b, 0)),
    );
  }

  return { draw, destroy: frame.destroy };
}
