import { area, axisBottom, axisLeft, curveMonotoneX, line, max, scaleLinear, select } from 'd3';
import { createChartFrame, drawLegend } from './chart-frame';
import type { ChartSpec } from '../../sim/scenario/schema';
import type { SeriesBuffer } from '../../state/series-buffer';
import { formatRate } from '../format';

/** A scenario's rate or level chart drawn with d3 from the series buffer; framework-free. */

export interface SeriesChart {
  draw(buffer: SeriesBuffer, durationUs: number): void;
  destroy(): void;
}

/** One line: the series it reads, its legend label, and its colour slot (`--c-s0` … `--c-s5`). */
interface Line {
  name: string;
  label: string;
  key: string;
}

/** Longer runs scroll: the chart shows the last five minutes. */
const WINDOW_S = 300;
/** Lines a `{label=*}` pattern expands to: the busiest series in view. */
const PATTERN_LINES = 5;
const PALETTE = 6;

const clockTick = (s: number): string => {
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

interface Point {
  t: number;
  v: number;
}

/** `flows.new{dst=*}` → prefix `flows.new{dst=`; a plain metric has no pattern. */
function patternPrefix(metric: string): string | null {
  return metric.endsWith('=*}') ? metric.slice(0, -2) : null;
}

/** The lines to draw now: plain series as they are, patterns as their busiest matches within [from, to). */
function resolveLines(spec: ChartSpec, buffer: SeriesBuffer, from: number, to: number): Line[] {
  const out: Line[] = [];
  for (const s of spec.series) {
    const prefix = patternPrefix(s.metric);
    if (!prefix) {
      out.push({ name: s.metric, label: s.label, key: '' });
      continue;
    }
    const peaks = buffer
      .names()
      .filter((name) => name.startsWith(prefix) && name.endsWith('}'))
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

export function createSeriesChart(svg: SVGSVGElement, legend: HTMLElement, spec: ChartSpec): SeriesChart {
  const perSecond = spec.kind === 'rate';
  let last: { buffer: SeriesBuffer; durationUs: number } | undefined;
  const frame = createChartFrame(svg, legend, spec.unit ?? (perSecond ? 'per second' : ''), () => {
    if (last) draw(last.buffer, last.durationUs);
  });
  const { grid, xAxis, yAxis, note } = frame;
  const areas = frame.plot.append('g');
  const lines = frame.plot.append('g');

  function showLegend(buffer: SeriesBuffer, shown: Line[]): void {
    drawLegend(legend, shown, (d) => `${d.key}:${d.name}`, 'h-0.5 w-4 rounded', (d) => {
      if (!buffer.has(d.name) || buffer.end() === 0) return '—';
      const v = buffer.value(d.name, buffer.end() - 1);
      return perSecond ? `${formatRate(v / buffer.stepSeconds)}/s` : formatRate(v);
    });
  }

  function draw(buffer: SeriesBuffer, durationUs: number): void {
    last = { buffer, durationUs };
    const size = frame.fit();
    if (!size) return;
    const { w, h } = size;

    const step = buffer.stepSeconds;
    const endT = buffer.end() * step;
    const durationS = durationUs / 1e6;
    const [x0, x1] =
      durationS > 0 && durationS <= WINDOW_S ? [0, durationS] : [Math.max(0, endT - WINDOW_S), Math.max(WINDOW_S, endT)];
    const fromK = Math.max(buffer.start(), Math.floor(x0 / step));
    const shown = resolveLines(spec, buffer, fromK, buffer.end()).filter((l) => buffer.has(l.name));
    const data = shown.map((l) => {
      const points: Point[] = [];
      for (let k = fromK; k < buffer.end(); k++) {
        const v = buffer.value(l.name, k);
        points.push({ t: (k + 1) * step, v: perSecond ? v / step : v });
      }
      return { ...l, points };
    });

    const peak = max(data, (d) => max(d.points, (p) => (Number.isFinite(p.v) ? p.v : 0))) ?? 0;
    const x = scaleLinear().domain([x0, x1]).range([0, w]);
    const y = scaleLinear().domain([0, Math.max(1, peak * 1.1)]).range([h, 0]).nice(4);

    grid.call(axisLeft(y).ticks(4).tickSize(-w).tickFormat(() => ''));
    yAxis.call(axisLeft(y).ticks(4, '~s').tickSizeOuter(0));
    xAxis
      .attr('transform', `translate(0,${h})`)
      .call(axisBottom(x).ticks(Math.max(2, Math.floor(w / 90))).tickFormat((d) => clockTick(Number(d))).tickSizeOuter(0));

    const defined = (p: Point): boolean => Number.isFinite(p.v);
    const lineGen = line<Point>().defined(defined).x((p) => x(p.t)).y((p) => y(p.v)).curve(curveMonotoneX);
    const areaGen = area<Point>().defined(defined).x((p) => x(p.t)).y0(h).y1((p) => y(p.v)).curve(curveMonotoneX);

    const paths = (layer: typeof areas, cls: string, paint: 'fill' | 'stroke', shape: (points: Point[]) => string | null): void => {
      layer
        .selectAll<SVGPathElement, (typeof data)[number]>('path')
        .data(data, (d) => d.key)
        .join('path')
        .attr('class', cls)
        .attr('data-series', (d) => d.key)
        .style(paint, (d) => `var(--c-${d.key})`)
        .attr('d', (d) => shape(d.points) ?? '');
    };
    paths(areas, 'chart-area', 'fill', areaGen);
    paths(lines, 'chart-line', 'stroke', lineGen);

    const anyPoints = data.some((d) => d.points.length > 0);
    note
      .attr('x', w / 2)
      .attr('y', h / 2)
      .text(anyPoints ? '' : buffer.end() === 0 ? 'Waiting for the first one-second sample…' : 'Nothing recorded for this chart yet');
    showLegend(buffer, shown);
  }

  return { draw, destroy: frame.destroy };
}
