import { axisTop } from 'd3-axis';
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { pointer, select } from 'd3-selection';
import type { Marker, TimelineView } from './timeline-chart';
import { PLOT_MARGIN } from './timeline-chart';
import { clockLabel, timeAtPixel } from './time-scale';
import { quiet } from '../components/quiet';

/** A chapter number closer than this to the one before it is left out (the tick and its tooltip stay). */
const LABEL_GAP_PX = 14;

/** Seconds a key moves a scrub: one, or ten with Shift. */
const SCRUB_STEP_S = 1;
const SCRUB_LEAP_S = 10;

/**
 * The strip above the charts: the shared time axis, chapter and fault markers, the clock's position, the run's
 * checkpoints, and a scrub's position. A drag on it scrubs (a preview of each moment passed), released it jumps there;
 * focused, it is a slider whose arrows scrub, Enter jumps and Esc goes back to the run.
 */

export interface LaneState {
  /** The run's clock. */
  nowS: number;
  /** Where the run keeps checkpoints (seconds): scrubs and jumps start from them. */
  checkpointsS: readonly number[];
  /** The time a scrub asks for, or null. */
  scrubS: number | null;
}

export interface ScrubHandlers {
  /** The scrub is at `seconds` (starting it if it was not on). */
  scrub(seconds: number): void;
  /** The scrub ends: with a jump to where it was, or back to the run as it is. */
  end(jump: boolean): void;
}

export interface TimeLane {
  draw(view: TimelineView, state: LaneState): void;
  destroy(): void;
}

export function createTimeLane(svg: SVGSVGElement, on: ScrubHandlers): TimeLane {
  const root = select(svg);
  root.selectAll('*').remove();
  const plot = root.append('g');
  const axis = plot.append('g').attr('class', 'chart-axis');
  const marks = plot.append('g');
  const kept = plot.append('path').attr('class', 'timeline-checkpoints');
  const now = plot.append('path').attr('class', 'timeline-now');
  const scrubHead = plot.append('path').attr('class', 'timeline-scrub');
  let last: { view: TimelineView; state: LaneState } | undefined;
  let keptKey = '';
  let axisKey = '';
  // What the markers were last drawn for: a new clock reading alone moves only the playhead.
  let marked: { markers: TimelineView['markers']; axisKey: string } | undefined;
  // Sized by the observer, not by reading layout on every draw.
  let box = { width: 0, height: 0 };
  const resize = new ResizeObserver((entries) => {
    const rect = entries.at(-1)?.contentRect;
    if (rect) box = { width: rect.width, height: rect.height };
    if (last) draw(last.view, last.state);
  });
  resize.observe(svg);

  const plotWidth = (): number => Math.max(10, box.width - PLOT_MARGIN.left - PLOT_MARGIN.right);
  const timeAt = (event: PointerEvent): number => timeAtPixel(pointer(event, plot.node())[0], plotWidth(), last?.view.domain ?? [0, 0]);
  const onDown = (event: PointerEvent): void => {
    if (event.button !== 0 || !last) return;
    svg.setPointerCapture(event.pointerId);
    on.scrub(timeAt(event));
  };
  const onMove = (event: PointerEvent): void => {
    if (svg.hasPointerCapture(event.pointerId)) on.scrub(timeAt(event));
  };
  const onUp = (event: PointerEvent): void => {
    if (!svg.hasPointerCapture(event.pointerId)) return;
    svg.releasePointerCapture(event.pointerId);
    on.end(true);
  };
  const onCancel = (): void => on.end(false);
  const onKey = (event: KeyboardEvent): void => {
    if (!last || event.altKey || event.ctrlKey || event.metaKey) return;
    const { view, state } = last;
    const from = state.scrubS ?? state.nowS;
    const step = event.shiftKey ? SCRUB_LEAP_S : SCRUB_STEP_S;
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') on.scrub(Math.min(view.durationS, Math.max(0, from + (event.key === 'ArrowRight' ? step : -step))));
    else if (event.key === 'Home' || event.key === 'End') on.scrub(event.key === 'Home' ? 0 : view.durationS);
    else if (event.key === 'Enter' && state.scrubS !== null) on.end(true);
    else if (event.key === 'Escape' && state.scrubS !== null) on.end(false);
    else return;
    event.preventDefault();
  };
  root.on('pointerdown.scrub', onDown).on('pointermove.scrub', onMove).on('pointerup.scrub', onUp).on('pointercancel.scrub', onCancel).on('keydown.scrub', onKey).on('blur.scrub', onCancel);

  function draw(view: TimelineView, state: LaneState): void {
    last = { view, state };
    const { nowS } = state;
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
    const inView = (t: number): boolean => t >= view.domain[0] && t <= view.domain[1];
    // Small diamonds on the axis line, one per checkpoint.
    const nextKeptKey = `${state.checkpointsS.join()}|${nextAxisKey}`;
    if (nextKeptKey !== keptKey) {
      keptKey = nextKeptKey;
      kept.attr(
        'd',
        state.checkpointsS
          .filter(inView)
          .map((t) => `M${x(t)},${axisY - 3}l3,3l-3,3l-3,-3Z`)
          .join(''),
      );
    }
    const scrubbing = state.scrubS !== null && inView(state.scrubS);
    const sx = scrubbing ? x(state.scrubS!) : 0;
    quiet(scrubHead)
      .attr('display', scrubbing ? 'inline' : 'none')
      .attr('d', `M${sx - 6},0H${sx + 6}L${sx},10ZM${sx - 1},10h2V${axisY}h-2Z`);
    svg.setAttribute('aria-valuenow', String(Math.round((state.scrubS ?? nowS) * 10) / 10));
    svg.setAttribute('aria-valuetext', state.scrubS === null ? `run at ${clockLabel(nowS)}` : `preview of ${clockLabel(state.scrubS)}; Enter jumps there, Escape goes back`);
    svg.setAttribute('aria-valuemax', String(view.durationS));
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
    // Chapters are numbered ticks, faults are downward triangles, where a compare's B parts is a hollow diamond.
    const glyph = { chapter: 'M0,1V13', fault: 'M-5,2H5L0,11Z', branch: 'M0,1L5,6.5L0,12L-5,6.5Z' };
    quiet(groups.select('path')).attr('d', (m) => glyph[m.kind]);
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
      root.on('.scrub', null);
      root.selectAll('*').remove();
    },
  };
}
