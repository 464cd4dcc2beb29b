import { useEffect, useRef } from 'react';
import { useApp } from '../../state/app-store';
import { frameStore, useFrame } from '../../state/frame-store';
import { removeChart, setZoom, useTimeline } from '../../state/timeline';
import type { ChartSpec } from '../../worker/protocol';
import { DEFAULT_CHARTS } from '../../sim';
import { createHistogramChart } from '../chart/histogram-chart';
import { formatClock } from '../components/format';
import { createPacer } from '../services/pacer';
import { panel, smallButton } from '../components/styles';
import { ScrollArea } from '../components/scroll-area';
import { AddChart } from './add-chart';
import { CompareControl } from './compare-control';
import { CompareSummary } from './compare-summary';
import { createTimelineChart } from './timeline-chart';
import { handlers, jumpToCursor } from './timeline-actions';
import { createTimeLane, type LaneState, type ScrubHandlers } from './time-lane';
import { endScrub, scrubStore, scrubTo, useScrub } from './scrub';
import { clockLabel, toSeekUs } from './time-scale';
import { currentView, subscribeView } from './timeline-view';

/** A timeline short of room shows one chart at a time, the whole of it, and scrolls (snapping) to the next. */
const oneChart = 'h-full shrink-0 snap-start snap-always';

function ChartRow({ spec, onRemove, one }: { spec: ChartSpec; onRemove?: () => void; one: boolean }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const legendRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!svgRef.current || !legendRef.current) return;
    const chart = createTimelineChart(svgRef.current, legendRef.current, spec, handlers);
    const unsubscribe = subscribeView((view) => chart.draw(view));
    return () => {
      unsubscribe();
      chart.destroy();
    };
  }, [spec]);
  const what = spec.series.map((s) => s.label).join(', ');
  return (
    <div className={`flex flex-col border-b border-slate-100 py-1 last:border-0 dark:border-slate-800/70 ${one ? oneChart : 'flex-1'}`} data-testid="timeline-chart" data-title={spec.title}>
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5 px-3 text-xs">
        <h3 className="shrink-0 font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-300">
          {spec.title}
          <span className="ml-1.5 font-normal normal-case tracking-normal text-slate-500 dark:text-slate-400">{spec.unit ?? (spec.kind === 'rate' ? 'per second' : '')}</span>
        </h3>
        <div ref={legendRef} className="flex min-w-0 flex-1 flex-wrap items-baseline gap-x-3 gap-y-0.5" aria-live="off" />
        {onRemove && (
          <button
            type="button"
            onClick={onRemove}
            aria-label={`Remove chart ${spec.title}`}
            title="Remove this chart"
            className="shrink-0 rounded px-1 text-slate-500 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:bg-slate-800"
          >
            ×
          </button>
        )}
      </div>
      <svg
        ref={svgRef}
        data-testid="chart"
        className={`block w-full flex-1 ${one ? 'min-h-0' : 'min-h-[4.5rem]'}`}
        role="img"
        aria-label={`${spec.title}: ${what}. Drag to zoom, click to jump, double-click to show the whole run.`}
      />
    </div>
  );
}

/** Totals over every held sample: a histogram changes little from one sample to the next. */
const HISTOGRAM_PACE = { minMs: 500, costFactor: 10 };

function HistogramRow({ spec, one }: { spec: ChartSpec; one: boolean }) {
  const svgRef = useRef<SVGSVGElement>(null);
  const legendRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!svgRef.current || !legendRef.current) return;
    const chart = createHistogramChart(svgRef.current, legendRef.current, spec);
    chart.draw(frameStore.getState().series);
    const pacer = createPacer(() => chart.draw(frameStore.getState().series), HISTOGRAM_PACE);
    const unsubscribe = frameStore.subscribe((s, prev) => {
      if (s.series !== prev.series) pacer.now();
      else if (s.seriesVersion !== prev.seriesVersion) pacer.request();
    });
    return () => {
      unsubscribe();
      pacer.cancel();
      chart.destroy();
    };
  }, [spec]);
  return (
    <div className={`flex flex-col border-b border-slate-100 py-1 last:border-0 dark:border-slate-800/70 ${one ? oneChart : 'shrink-0'}`} data-testid="histogram-chart">
      <div className="flex items-baseline gap-x-3 px-3 text-xs">
        <h3 className="shrink-0 font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-300">
          {spec.title}
          <span className="ml-1.5 font-normal normal-case tracking-normal text-slate-500 dark:text-slate-400">so far, not on the time axis</span>
        </h3>
        <div ref={legendRef} className="flex min-w-0 flex-1 flex-wrap items-baseline gap-x-3 text-xs" aria-live="off" />
      </div>
      <svg ref={svgRef} className={`block w-full ${one ? 'min-h-0 flex-1' : 'h-32'}`} role="img" aria-label={`${spec.title}: observations per bucket so far`} />
    </div>
  );
}

/** What the time lane draws besides the view: the clock, the checkpoints and a scrub. */
function laneState(): LaneState {
  const { t, checkpoints } = frameStore.getState();
  const { at } = scrubStore.getState();
  return { nowS: t / 1e6, checkpointsS: checkpoints.map((c) => c / 1e6), scrubS: at === null ? null : at / 1e6 };
}

const SCRUB: ScrubHandlers = {
  scrub: (seconds) => scrubTo(toSeekUs(seconds, frameStore.getState().durationUs / 1e6)),
  end: (jump) => void endScrub(jump),
};

function TimeLaneRow() {
  const svgRef = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (!svgRef.current) return;
    const lane = createTimeLane(svgRef.current, SCRUB);
    const unsubscribe = subscribeView((view) => lane.draw(view, laneState()));
    const clock = createPacer(() => lane.draw(currentView(), laneState()), { minMs: 0 });
    const unsubscribeClock = frameStore.subscribe((s, prev) => {
      if (s.t !== prev.t || s.checkpoints !== prev.checkpoints) clock.request();
    });
    const unsubscribeScrub = scrubStore.subscribe(() => clock.request());
    return () => {
      unsubscribe();
      unsubscribeClock();
      unsubscribeScrub();
      clock.cancel();
      lane.destroy();
      void endScrub(false);
    };
  }, []);
  return (
    <svg
      ref={svgRef}
      data-testid="time-lane"
      className="block h-8 w-full shrink-0 cursor-ew-resize touch-none outline-none focus-visible:outline-2 focus-visible:outline-indigo-500"
      role="slider"
      tabIndex={0}
      aria-label="Scrub the run: drag or use the arrow keys to preview a moment; release or Enter jumps there, Escape goes back"
      aria-valuemin={0}
    />
  );
}

/** A scrub's state in words: the moment shown, from which checkpoint, or why there is no preview; `brief` for a corner over the lane. */
function ScrubReadout({ brief = false }: { brief?: boolean }) {
  const at = useScrub((s) => s.at);
  const refused = useScrub((s) => s.refused);
  const shown = useFrame((s) => s.preview);
  if (at === null) return null;
  return (
    <span className="text-xs text-slate-600 dark:text-slate-300" data-testid="scrub-readout" role="status">
      {refused !== null ? (
        `No preview: ${refused.replace(/^preview: /, '')} · release jumps there, Esc goes back`
      ) : (
        <>
          Preview of <b className="font-mono tabular-nums text-slate-900 dark:text-slate-100">{formatClock(shown?.t ?? at)}</b>
          {!brief && shown && shown.t < shown.target ? `, on its way to ${formatClock(shown.target)}` : ''}
          {!brief && shown ? ` from the checkpoint at ${formatClock(shown.fromUs)}` : ''}
          {!brief && ' · release to jump, Esc to go back'}
        </>
      )}
    </span>
  );
}

function SeekProgress() {
  const target = useFrame((s) => s.seekTarget);
  const t = useFrame((s) => s.t);
  const run = useFrame((s) => s.run);
  // Where this seek started (a replay starts at 0 in a new run), so the bar measures this jump only.
  const start = useRef<{ target: number; run: number; from: number } | null>(null);
  if (target === null) {
    start.current = null;
    return null;
  }
  if (!start.current || start.current.target !== target || start.current.run !== run) start.current = { target, run, from: t };
  const { from } = start.current;
  const pct = target > from ? Math.min(100, Math.floor(((t - from) / (target - from)) * 100)) : 100;
  return (
    <div className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-300" data-testid="seek-progress" role="status">
      <span>
        Jumping to {formatClock(target)}, at {formatClock(t)}
      </span>
      <progress className="h-1.5 w-24 accent-indigo-600" max={100} value={pct} aria-label="Jump progress" />
    </div>
  );
}

function CursorReadout({ hint }: { hint: boolean }) {
  const cursor = useTimeline((s) => s.cursor);
  if (cursor === null) return hint ? <span className="text-xs text-slate-500 dark:text-slate-400">Hover a chart to read values; drag to zoom; click to jump.</span> : null;
  return (
    <span className="flex items-center gap-1.5 text-xs text-slate-600 dark:text-slate-300">
      crosshair
      <output data-testid="crosshair-time" className="font-mono font-semibold tabular-nums text-slate-900 dark:text-slate-100">
        {clockLabel(cursor)}
      </output>
      <button type="button" className={smallButton} onClick={jumpToCursor} title="Jump the run to the crosshair (j)" aria-keyshortcuts="j">
        Jump here
      </button>
    </span>
  );
}

function ZoomControl() {
  const zoom = useTimeline((s) => s.zoom);
  if (!zoom) return null;
  return (
    <span className="flex items-center gap-1.5 text-xs text-slate-600 dark:text-slate-300" data-testid="zoom-range">
      {clockLabel(zoom[0])}–{clockLabel(zoom[1])}
      <button type="button" data-testid="zoom-reset" className={smallButton} onClick={() => setZoom(null)} title="Show the whole run (0)" aria-keyshortcuts="0">
        Reset zoom
      </button>
    </span>
  );
}

/**
 * The scenario's charts stacked on one time axis, with markers, crosshair, zoom, jump, added charts and A/B compare.
 * `compact` (a wiki page's embed, presenter mode) leaves out adding charts, comparing and the hint for the mouse. There and
 * where `oneAtATime` (the short docks of the projector and narrow layouts), each chart fills the panel, whole, in turn.
 */
export function TimelinePanel({ compact = false, oneAtATime = compact, className = '' }: { compact?: boolean; oneAtATime?: boolean; className?: string }) {
  const scenarioId = useApp((s) => s.summary?.id ?? '');
  const charts = useApp((s) => s.summary?.charts) ?? DEFAULT_CHARTS;
  const added = useTimeline((s) => s.added[scenarioId]);
  const timed = charts.filter((c) => c.kind !== 'histogram');
  const histograms = charts.filter((c) => c.kind === 'histogram');

  return (
    <section className={`${panel} relative ${className}`} aria-label="Timeline" data-testid="timeline">
      {compact ? (
        <>
          <h2 className="sr-only">Timeline</h2>
          {/* Only while there is something to say (a crosshair, a zoom, a jump), over the lane's corner rather than above it. */}
          <div className="absolute top-0 right-0 z-10 flex flex-wrap items-center justify-end gap-x-3 rounded-bl-md bg-white/95 px-2 py-1 empty:hidden dark:bg-slate-900/95">
            <CursorReadout hint={false} />
            <ZoomControl />
            <SeekProgress />
            <ScrubReadout brief />
          </div>
        </>
      ) : (
        <div className="flex flex-wrap items-center gap-x-4 gap-y-1 border-b border-slate-200 px-3 py-1.5 dark:border-slate-800">
          <h2 className="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">Timeline</h2>
          <CursorReadout hint={!oneAtATime} />
          <ZoomControl />
          <SeekProgress />
          <ScrubReadout />
          <div className="ml-auto flex flex-wrap items-center justify-end gap-2">
            <AddChart />
            <CompareControl />
          </div>
        </div>
      )}
      {!compact && <CompareSummary />}
      <TimeLaneRow />
      {/* Its own stacking context (the mask of its scroll cue makes one): the clock's lane and the toolbar above repaint without the charts. */}
      <ScrollArea
        className="flex-1"
        label="Charts"
        testId="timeline-charts"
        scrollerClassName={oneAtATime ? 'snap-y snap-mandatory' : 'isolate'}
        contentClassName={`flex flex-col ${oneAtATime ? 'h-full' : 'min-h-full'}`}
      >
        {timed.map((c, i) => (
          <ChartRow key={`s:${i}:${c.title}`} spec={c} one={oneAtATime} />
        ))}
        {(added ?? []).map((c, i) => (
          <ChartRow key={`a:${i}:${c.title}:${c.kind}`} spec={c} one={oneAtATime} onRemove={() => removeChart(scenarioId, i)} />
        ))}
        {histograms.map((c, i) => (
          <HistogramRow key={`h:${i}:${c.title}`} spec={c} one={oneAtATime} />
        ))}
      </ScrollArea>
    </section>
  );
}
