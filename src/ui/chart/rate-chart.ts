import { area, axisBottom, axisLeft, curveMonotoneX, line, max, scaleLinear, select } from 'd3';
import type { SeriesBuffer } from '../../state/series-buffer';
import { formatRate } from '../format';

/** Requests-per-second chart drawn with d3 from the series buffer; framework-free. */

export interface ChartSeries {
  /** Metric name produced by the sim. */
  name: string;
  /** Stable key used for CSS colour and legend. */
  key: string;
  label: string;
}

export const REQUEST_SERIES: readonly ChartSeries[] = [
  { name: 'requests.ok', key: 'ok', label: 'ok' },
  { name: 'requests.failed', key: 'failed', label: 'failed' },
];

export interface RateChart {
  draw(buffer: SeriesBuffer, durationUs: number): void;
  destroy(): void;
}

const MARGIN = { top: 14, right: 18, bottom: 26, left: 48 };
/** Longer runs scroll: the chart shows the last five minutes. */
const WINDOW_S = 300;

const clockTick = (s: number): string => {
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

interface Point {
  t: number;
  v: number;
}

export function createRateChart(svg: SVGSVGElement, legend: HTMLElement, series = REQUEST_SERIES): RateChart {
  const root = select(svg);
  root.selectAll('*').remove();
  const plot = root.append('g');
  const grid = plot.append('g').attr('class', 'chart-grid');
  const xAxis = plot.append('g').attr('class', 'chart-axis');
  const yAxis = plot.append('g').attr('class', 'chart-axis');
  const yLabel = plot.append('text').attr('class', 'chart-label').attr('text-anchor', 'start').text('requests / s');
  const areas = plot.append('g');
  const lines = plot.append('g');
  const note = plot.append('text').attr('class', 'chart-label').attr('text-anchor', 'middle');

  const legendItems = select(legend)
    .selectAll<HTMLSpanElement, ChartSeries>('span.legend-item')
    .data(series, (d) => d.key)
    .join((enter) => {
      const item = enter.append('span').attr('class', 'legend-item inline-flex items-baseline gap-1.5');
      item
        .append('span')
        .attr('class', 'inline-block h-0.5 w-4 self-center rounded')
        .style('background', (d) => `var(--c-${d.key})`);
      item.append('span').attr('class', 'text-slate-600 dark:text-slate-300').text((d) => d.label);
      item.append('span').attr('class', 'value font-mono text-base font-semibold tabular-nums');
      return item;
    });

  let last: { buffer: SeriesBuffer; durationUs: number } | undefined;

  function draw(buffer: SeriesBuffer, durationUs: number): void {
    last = { buffer, durationUs };
    const { width: W, height: H } = svg.getBoundingClientRect();
    if (W === 0 || H === 0) return;
    const w = Math.max(10, W - MARGIN.left - MARGIN.right);
    const h = Math.max(10, H - MARGIN.top - MARGIN.bottom);
    plot.attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);

    const step = buffer.stepSeconds;
    const endT = buffer.end() * step;
    const durationS = durationUs / 1e6;
    const [x0, x1] =
      durationS > 0 && durationS <= WINDOW_S ? [0, durationS] : [Math.max(0, endT - WINDOW_S), Math.max(WINDOW_S, endT)];

    const present = series.filter((s) => buffer.has(s.name));
    const data = present.map((s) => {
      const points: Point[] = [];
      for (let k = Math.max(buffer.start(), Math.floor(x0 / step)); k < buffer.end(); k++) {
        points.push({ t: (k + 1) * step, v: buffer.value(s.name, k) / step });
      }
      return { ...s, points };
    });

    const peak = max(data, (d) => max(d.points, (p) => (Number.isFinite(p.v) ? p.v : 0))) ?? 0;
    const x = scaleLinear().domain([x0, x1]).range([0, w]);
    const y = scaleLinear().domain([0, Math.max(1, peak * 1.1)]).range([h, 0]).nice(4);

    grid.call(axisLeft(y).ticks(4).tickSize(-w).tickFormat(() => ''));
    yAxis.call(axisLeft(y).ticks(4).tickSizeOuter(0));
    xAxis.attr('transform', `translate(0,${h})`).call(axisBottom(x).ticks(Math.max(2, Math.floor(w / 90))).tickFormat((d) => clockTick(Number(d))).tickSizeOuter(0));
    yLabel.attr('x', 6).attr('y', 2).attr('dy', '0.7em');

    const defined = (p: Point): boolean => Number.isFinite(p.v);
    const lineGen = line<Point>().defined(defined).x((p) => x(p.t)).y((p) => y(p.v)).curve(curveMonotoneX);
    const areaGen = area<Point>().defined(defined).x((p) => x(p.t)).y0(h).y1((p) => y(p.v)).curve(curveMonotoneX);

    areas
      .selectAll<SVGPathElement, (typeof data)[number]>('path')
      .data(data, (d) => d.key)
      .join('path')
      .attr('class', 'chart-area')
      .attr('data-series', (d) => d.key)
      .attr('d', (d) => areaGen(d.points) ?? '');
    lines
      .selectAll<SVGPathElement, (typeof data)[number]>('path')
      .data(data, (d) => d.key)
      .join('path')
      .attr('class', 'chart-line')
      .attr('data-series', (d) => d.key)
      .attr('d', (d) => lineGen(d.points) ?? '');

    const anyPoints = data.some((d) => d.points.length > 0);
    note
      .attr('x', w / 2)
      .attr('y', h / 2)
      .text(anyPoints ? '' : buffer.end() === 0 ? 'Waiting for the first one-second sample…' : 'This scenario records no request series');

    legendItems.select('.value').text((s) => {
      if (!buffer.has(s.name) || buffer.end() === 0) return '—';
      return `${formatRate(buffer.value(s.name, buffer.end() - 1) / step)}/s`;
    });
  }

  const resize = new ResizeObserver(() => {
    if (last) draw(last.buffer, last.durationUs);
  });
  resize.observe(svg);

  return {
    draw,
    destroy() {
      resize.disconnect();
      root.selectAll('*').remove();
      select(legend).selectAll('*').remove();
    },
  };
}
