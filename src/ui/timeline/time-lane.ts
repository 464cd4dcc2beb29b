import { axisTop } from 'd3-axis';
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import type { Marker, TimelineView } from './timeline-chart';
import { PLOT_MARGIN } from './timeline-chart';
import { clockLabel } from './time-scale';
import { quiet } from '../components/quiet';

/** A chapter number closer than this to the one before it is left out (the tick and its tooltip stay). */
const LABEL_GAP_PX = 14;

/** The strip above the charts: the shared time axis, chapter and fault markers, and the clock's position. */

export interface TimeLane {
  draw(view: TimelineView, nowS: number): void;
  destroy(): void;
}

export function createTimeLane(svg: SVGSVGElement): TimeLane {
  const root = select(svg);
  root.selectAll('*').remove();
  const plot = root.append('g');
  const axis = plot.append('g').attr('class', 'chart-axis');
  const marks = plot.append('g');
  const now = plot.append('path').attr('class', 'timeline-now');
  let last: { view: TimelineView; nowS: number } | undefined;
  let axisKey = '';
  // What the markers were last drawn for: a new clock reading alone moves only the playhead.
  let marked: { markers: TimelineView['markers']; axisKey: string } | undefined;
  // Sized by the observer, not by reading layout on every draw.
  let box = { width: 0, height: 0 };
  const resize = new ResizeObserver((entries) => {
    const rect = entries.at(-1)?.contentRect;
    if (rect) box = { width: rect.width, height: rect.height };
    if (last) draw(last.view, last.nowS);
  });
  resize.observe(svg);

  function draw(view: TimelineView, nowS: number): void {
    last = { view, nowS };
    const { width, height } = box;
    if (width === 0 || height === 0) return;
    const w = Math.max(10, width - PLOT_MARGIN.left - PLOT_MARGIN.right);
    const axisY = height - 2;
    quiet(plot).attr('transform', `translate(${PLOT_MARGIN.left},0)`);
    const x = scaleLinear().domain(view.domain).range([0, w]);
    // The axis rewrites every tick when called, so only when the range or the size changed.
    const nextAxisKey = `${view.domain.join()}|${w}|${axisY}`;
    if (nextAxisKey !== axisKey) {
      axisKey = nextAxisKey;
      axis.attr('transform', `translate(0,${axisY})`).call(
        axisTop(x)
          .ticks(Math.max(2, Math.floor(w / 80)))
          .tickFormat((d) => clockLabel(Number(d)))
          .tickSizeOuter(0)
          .tickSize(4),
      );
    }
    if (marked?.markers !== view.markers || marked.axisKey !== nextAxisKey) {
      marked = { markers: view.markers, axisKey: nextAxisKey };
      drawMarkers(view, x);
    }
    const nx = x(nowS);
    // The run's clock: a playhead in the marker row, clear of the tick labels.
    quiet(now)
      .attr('display', nowS >= view.domain[0] && nowS <= view.domain[1] ? 'inline' : 'none')
      .attr('d', `M${nx - 5},0H${nx + 5}L${nx},8ZM${nx - 0.75},8h1.5V14h-1.5Z`);
  }

  function drawMarkers(view: TimelineView, x: ScaleLinear<number, number>): void {
    const visible = view.markers.filter((m) => m.t >= view.domain[0] && m.t <= view.domain[1]);
    const groups = marks
      .selectAll<SVGGElement, Marker>('g.timeline-lane-marker')
      .data(visible, (m) => `${m.kind}:${m.t}:${m.label}`)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'timeline-lane-marker').attr('data-testid', 'timeline-marker');
        g.append('title');
        g.append('path');
        g.append('text').attr('text-anchor', 'start').attr('y', 9);
        return g;
      });
    quiet(groups)
      .attr('data-kind', (m) => m.kind)
      .attr('transform', (m) => `translate(${x(m.t)},0)`)
      .attr('class', (m) => `timeline-lane-marker timeline-lane-${m.kind}`);
    quiet(groups.select('title')).text((m) => `${clockLabel(m.t)} ${m.label}`);
    // Chapters are numbered ticks, faults are downward triangles.
    quiet(groups.select('path')).attr('d', (m) => (m.kind === 'chapter' ? 'M0,1V13' : 'M-5,2H5L0,11Z'));
    let lastLabelX = -Infinity;
    const labelled = new Set<Marker>();
    for (const m of visible) {
      if (m.kind !== 'chapter' || x(m.t) - lastLabelX < LABEL_GAP_PX) continue;
      labelled.add(m);
      lastLabelX = x(m.t);
    }
    quiet(groups.select('text'))
      .attr('x', 3)
      .text((m) => (labelled.has(m) ? m.label.replace(/^Chapter (\d+):.*$/, '$1') : ''));
  }

  return {
    draw,
    destroy() {
      resize.disconnect();
      root.selectAll('*').remove();
    },
  };
}
