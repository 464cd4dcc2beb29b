import { max } from 'd3-array';
import { axisLeft } from 'd3-axis';
import { brushX, type D3BrushEvent } from 'd3-brush';
import { format } from 'd3-format';
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { pointer, select } from 'd3-selection';
import { line } from 'd3-shape';
import type { SeriesBuffer } from '../../state/series-buffer';
import type { ChartSpec } from '../../worker/protocol';
import { resolveLines, type Line } from '../chart/series-lines';
import { formatPerSecond, formatRate } from '../components/format';
import { quiet } from '../components/quiet';
import { sampleIndexAt, timeAtPixel, zoomFromPixels, type Domain } from './time-scale';

/** One chart of the timeline: a rate or level chart on the shared time range, drawn by d3; framework-free. */

export const PLOT_MARGIN = { top: 6, right: 26, bottom: 6, left: 56 };

export interface Marker {
  t: number;
  kind: 'fault' | 'chapter' | 'branch';
  label: string;
}

export interface TimelineView {
  a: SeriesBuffer;
  /** The compare run's series, drawn dashed over A's; null without a comparison. */
  b: SeriesBuffer | null;
  /** Changes whenever either buffer got new samples (the buffers are mutated in place). */
  dataVersion: string;
  domain: Domain;
  durationS: number;
  cursor: number | null;
  markers: readonly Marker[];
}

export interface TimelineHandlers {
  hover(t: number): void;
  zoom(domain: Domain): void;
  jump(t: number): void;
  reset(): void;
}

export interface TimelineChart {
  draw(view: TimelineView): void;
  destroy(): void;
}

interface Point {
  t: number;
  v: number;
}

// Each tick picks its own SI prefix, so 0 reads "0" rather than "0k".
const siFormat = format('~s');

/** Waits this long after a click before jumping, so a double click (reset zoom) does not also jump. */
const CLICK_DELAY_MS = 250;

/** The value of `name` at sample k as the chart shows it: per second for rates, as is for levels. */
function shown(buffer: SeriesBuffer, name: string, k: number, perSecond: boolean): number {
  const v = buffer.value(name, k);
  return perSecond ? v / buffer.stepSeconds : v;
}

export function valueText(v: number, perSecond: boolean): string {
  if (!Number.isFinite(v)) return '—';
  return perSecond ? formatPerSecond(v) : formatRate(v);
}

/** The event a chart's SVG takes to draw now even while scrolled out of view. */
export const DRAW_NOW = 'netmortem-draw-now';

export function createTimelineChart(svg: SVGSVGElement, legend: HTMLElement, spec: ChartSpec, on: TimelineHandlers): TimelineChart {
  const perSecond = spec.kind === 'rate';
  const root = select(svg);
  root.selectAll('*').remove();
  const plot = root.append('g').attr('transform', `translate(${PLOT_MARGIN.left},${PLOT_MARGIN.top})`);
  const grid = plot.append('g').attr('class', 'chart-grid');
  const yAxis = plot.append('g').attr('class', 'chart-axis');
  const markerLayer = plot.append('g');
  const linesA = plot.append('g');
  const linesB = plot.append('g');
  const cursorLayer = plot.append('g').attr('class', 'timeline-cursor').style('pointer-events', 'none');
  const cursorLine = cursorLayer.append('line').attr('class', 'timeline-cursor-line');
  const dots = cursorLayer.append('g');
  const note = plot.append('text').attr('class', 'chart-label').attr('text-anchor', 'middle');
  const brushLayer = plot.append('g').attr('class', 'timeline-brush');

  let last: TimelineView | undefined;
  let size = { w: 0, h: 0 };
  let y: ScaleLinear<number, number> = scaleLinear();
  let x: ScaleLinear<number, number> = scaleLinear();
  let lines: Line[] = [];
  let clickTimer: ReturnType<typeof setTimeout> | undefined;
  let dirty = true;
  let axisKey = '';
  // Charts scrolled out of the timeline keep their legends current but draw nothing until they are back.
  let onScreen = true;
  const visibility = new IntersectionObserver((entries) => {
    onScreen = entries.at(-1)?.isIntersecting ?? true;
    if (onScreen && dirty && last) draw(last);
  });
  visibility.observe(svg);
  // A picture of the timeline takes every chart, seen or not: it asks each to catch up first.
  const drawNow = (): void => {
    if (dirty && last) {
      dirty = false;
      draw(last);
    }
  };
  svg.addEventListener(DRAW_NOW, drawNow);
  // The size comes from the observer: reading it on every draw would force a layout of the whole page each time.
  let box = { width: 0, height: 0 };
  const resize = new ResizeObserver((entries) => {
    const rect = entries.at(-1)?.contentRect;
    if (rect) box = { width: rect.width, height: rect.height };
    dirty = true;
    if (last) draw(last);
  });
  resize.observe(svg);

  const brush = brushX<unknown>().on('end', (event: D3BrushEvent<unknown>) => {
    if (!event.sourceEvent || !last) return;
    const selection = event.selection as [number, number] | null;
    if (selection) {
      brushLayer.call(brush.move, null);
      const zoom = zoomFromPixels(selection[0], selection[1], size.w, last.domain, last.durationS);
      if (zoom) on.zoom(zoom);
      return;
    }
    const [px] = pointer(event.sourceEvent, plot.node());
    const t = timeAtPixel(px, size.w, last.domain);
    clearTimeout(clickTimer);
    clickTimer = setTimeout(() => on.jump(t), CLICK_DELAY_MS);
  });
  brushLayer.call(brush);
  brushLayer.on('pointermove.cursor', (event: PointerEvent) => {
    if (!last) return;
    const [px] = pointer(event, plot.node());
    // The crosshair sits on the sample it reads, so its line and the dots agree.
    const step = last.a.stepSeconds;
    on.hover(Math.max(step, Math.round(timeAtPixel(px, size.w, last.domain) / step) * step));
  });
  root.on('dblclick', (event: MouseEvent) => {
    event.preventDefault();
    clearTimeout(clickTimer);
    on.reset();
  });

  function fit(): boolean {
    const { width, height } = box;
    if (width === 0 || height === 0) return false;
    const w = Math.max(10, width - PLOT_MARGIN.left - PLOT_MARGIN.right);
    const h = Math.max(10, height - PLOT_MARGIN.top - PLOT_MARGIN.bottom);
    if (w !== size.w || h !== size.h) {
      size = { w, h };
      brush.extent([
        [0, 0],
        [w, h],
      ]);
      brushLayer.call(brush);
    }
    return true;
  }

  function pointsOf(buffer: SeriesBuffer, name: string, fromK: number, toK: number): Point[] {
    const points: Point[] = [];
    const step = buffer.stepSeconds;
    for (let k = Math.max(fromK, buffer.start()); k < Math.min(toK, buffer.end()); k++) {
      points.push({ t: (k + 1) * step, v: shown(buffer, name, k, perSecond) });
    }
    return points;
  }

  function drawCursor(view: TimelineView): void {
    const { cursor, a, b } = view;
    const inView = cursor !== null && cursor >= view.domain[0] && cursor <= view.domain[1];
    cursorLayer.attr('display', inView ? 'inline' : 'none');
    const k = cursor === null ? a.end() - 1 : sampleIndexAt(cursor, a.stepSeconds);
    if (inView) {
      const cx = x(cursor);
      cursorLine.attr('x1', cx).attr('x2', cx).attr('y1', 0).attr('y2', size.h);
      const at = (k + 1) * a.stepSeconds;
      const marks = lines.flatMap((l) => [{ key: l.key, run: 'a', v: shown(a, l.name, k, perSecond) }, ...(b ? [{ key: l.key, run: 'b', v: shown(b, l.name, k, perSecond) }] : [])]);
      dots
        .selectAll<SVGCircleElement, (typeof marks)[number]>('circle')
        .data(
          marks.filter((m) => Number.isFinite(m.v)),
          (m) => `${m.key}:${m.run}`,
        )
        .join('circle')
        .attr('r', 3)
        .attr('class', (m) => (m.run === 'b' ? 'timeline-dot timeline-dot-b' : 'timeline-dot'))
        .style('stroke', (m) => `var(--c-${m.key})`)
        .attr('cx', x(at))
        .attr('cy', (m) => y(m.v));
    }
    showLegend(view, cursor === null ? a.end() - 1 : k);
  }

  function showLegend(view: TimelineView, k: number): void {
    const { a, b } = view;
    const items = select(legend)
      .selectAll<HTMLSpanElement, Line>('span.legend-item')
      .data(lines, (d) => `${d.key}:${d.name}`)
      .join((enter) => {
        const item = enter.append('span').attr('class', 'legend-item inline-flex items-baseline gap-1.5 whitespace-nowrap').attr('data-testid', 'legend-item');
        item.append('span').attr('class', 'swatch inline-block h-0.5 w-4 self-center rounded');
        item.append('span').attr('class', 'label text-slate-600 dark:text-slate-300');
        item.append('span').attr('class', 'value font-mono font-semibold tabular-nums text-slate-900 dark:text-slate-100').attr('data-testid', 'legend-value');
        item.append('span').attr('class', 'value-b font-mono tabular-nums text-slate-600 dark:text-slate-300').attr('data-testid', 'legend-value-b');
        return item;
      });
    quiet(items).attr('data-series', (d) => d.name);
    quiet(items.select('.swatch')).style('background', (d) => `var(--c-${d.key})`);
    quiet(items.select('.label')).text((d) => d.label);
    const value = (buffer: SeriesBuffer, d: Line): string => (k < 0 || !buffer.has(d.name) ? '—' : valueText(shown(buffer, d.name, k, perSecond), perSecond));
    quiet(items.select('.value')).text((d) => (b ? `A ${value(a, d)}` : value(a, d)));
    quiet(items.select('.value-b')).text((d) => (b ? `B ${value(b, d)}` : ''));
  }

  /** The samples in view and the series drawn from them. */
  function range(view: TimelineView): { fromK: number; toK: number } {
    const { a, domain } = view;
    const step = a.stepSeconds;
    const fromK = Math.max(0, Math.floor(domain[0] / step) - 1);
    const toK = Math.ceil(domain[1] / step);
    lines = resolveLines(spec, a, Math.max(fromK, a.start()), Math.min(toK, a.end())).filter((l) => a.has(l.name));
    return { fromK, toK };
  }

  function draw(view: TimelineView): void {
    last = view;
    if (!fit()) return;
    const { w, h } = size;
    const { a, b, domain } = view;
    const step = a.stepSeconds;
    const { fromK, toK } = range(view);
    const dataA = lines.map((l) => ({ ...l, points: pointsOf(a, l.name, fromK, toK) }));
    const dataB = b ? lines.map((l) => ({ ...l, points: pointsOf(b, l.name, fromK, toK) })) : [];
    const finite = (p: Point): number => (Number.isFinite(p.v) ? p.v : 0);
    const peak = Math.max(max(dataA, (d) => max(d.points, finite)) ?? 0, max(dataB, (d) => max(d.points, finite)) ?? 0);
    x = scaleLinear().domain(domain).range([0, w]);
    y = scaleLinear()
      .domain([0, Math.max(1, peak * 1.1)])
      .range([h, 0])
      .nice(3);

    // Axes rewrite every tick when called, so only when the scale or the size changed.
    const nextAxisKey = `${y.domain().join()}|${w}|${h}`;
    if (nextAxisKey !== axisKey) {
      axisKey = nextAxisKey;
      grid.call(
        axisLeft(y)
          .ticks(3)
          .tickSize(-w)
          .tickFormat(() => ''),
      );
      yAxis.call(
        axisLeft(y)
          .ticks(3)
          .tickFormat((d) => siFormat(Number(d)))
          .tickSizeOuter(0),
      );
    }

    const defined = (p: Point): boolean => Number.isFinite(p.v) && p.t >= domain[0] - step && p.t <= domain[1] + step;
    const lineGen = line<Point>()
      .defined(defined)
      .x((p) => x(p.t))
      .y((p) => y(p.v));
    const paths = (layer: typeof linesA, data: typeof dataA, cls: string): void => {
      layer
        .selectAll<SVGPathElement, (typeof data)[number]>('path')
        .data(data, (d) => d.key)
        .join('path')
        .attr('class', cls)
        .attr('data-series', (d) => d.name)
        .style('stroke', (d) => `var(--c-${d.key})`)
        .attr('d', (d) => lineGen(d.points) ?? '');
    };
    paths(linesA, dataA, 'chart-line');
    paths(linesB, dataB, 'chart-line timeline-line-b');

    const visible = view.markers.filter((m) => m.t >= domain[0] && m.t <= domain[1]);
    quiet(markerLayer.selectAll<SVGLineElement, Marker>('line').data(visible).join('line'))
      .attr('class', (m) => `timeline-marker timeline-marker-${m.kind}`)
      .attr('x1', (m) => x(m.t))
      .attr('x2', (m) => x(m.t))
      .attr('y1', 0)
      .attr('y2', h);

    const anyPoints = dataA.some((d) => d.points.some((p) => Number.isFinite(p.v)));
    note
      .attr('x', w / 2)
      .attr('y', h / 2)
      .attr('dy', '0.35em')
      .text(anyPoints ? '' : a.end() === 0 ? 'Waiting for the first one-second sample…' : 'Nothing recorded in this range');
    drawCursor(view);
  }

  return {
    draw(view) {
      if (!onScreen) {
        last = view;
        dirty = true;
        range(view);
        showLegend(view, view.cursor === null ? view.a.end() - 1 : sampleIndexAt(view.cursor, view.a.stepSeconds));
        return;
      }
      // Only the crosshair moved: skip the lines and axes.
      const same = last !== undefined && view.dataVersion === last.dataVersion && view.domain === last.domain && view.markers === last.markers;
      if (same && !dirty) {
        last = view;
        drawCursor(view);
        return;
      }
      dirty = false;
      draw(view);
    },
    destroy() {
      clearTimeout(clickTimer);
      resize.disconnect();
      visibility.disconnect();
      svg.removeEventListener(DRAW_NOW, drawNow);
      root.on('dblclick', null);
      root.selectAll('*').remove();
      select(legend).selectAll('*').remove();
    },
  };
}
