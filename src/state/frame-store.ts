import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { Inspection, LiveView, LogEvent, TopologyView } from '../sim';
import type { Frame, TimedFault } from '../worker/protocol';
import { SeriesBuffer } from './series-buffer';

/** Newest events kept for the log panel. */
export const EVENT_LOG_LIMIT = 300;

/** The latest simulation state as streamed by the worker. Hot parts (series, connections) are read by d3 via subscribe. */
export interface FrameState {
  /** The worker's run id of the frames held here; -1 before the first frame. */
  run: number;
  t: number;
  durationUs: number;
  eventsExecuted: number;
  topology: TopologyView | null;
  connections: Int32Array;
  /** The inspected entity's live state from the latest frame. */
  inspection: Inspection | null;
  /** The latest live numbers (gauges, traffic, drops by site); null before the first frame. */
  live: LiveView | null;
  /** Mutated in place; `seriesVersion` changes whenever it does. */
  series: SeriesBuffer;
  seriesVersion: number;
  /** Newest first. */
  events: LogEvent[];
  eventsSeen: number;
  drops: Record<string, number>;
  /** Every fault event of the run (`fault.*`: applied from the timeline or by the user, or failed), oldest first. */
  faultEvents: LogEvent[];
  /** Faults the user applied in this run, with their times, as the worker records them for replays. */
  faultRecord: TimedFault[];
  /** Where a running seek is heading (µs), or null. */
  seekTarget: number | null;
}

const initial = (): FrameState => ({
  run: -1,
  t: 0,
  durationUs: 0,
  eventsExecuted: 0,
  topology: null,
  connections: new Int32Array(0),
  live: null,
  inspection: null,
  series: new SeriesBuffer(),
  seriesVersion: 0,
  events: [],
  eventsSeen: 0,
  drops: {},
  faultEvents: [],
  faultRecord: [],
  seekTarget: null,
});

export const frameStore = createStore<FrameState>(initial);

export function useFrame<T>(selector: (s: FrameState) => T): T {
  return useStore(frameStore, selector);
}

/** Forgets everything from the previous run (a new scenario, a reset or a restarted worker). */
export function clearFrames(): void {
  frameStore.setState(initial(), true);
}

/** Folds one worker frame into the store. */
export function ingestFrame(frame: Frame): void {
  if (frame.run !== frameStore.getState().run) clearFrames();
  const s = frameStore.getState();
  const next: Partial<FrameState> = {
    run: frame.run,
    t: frame.t,
    durationUs: frame.durationUs,
    eventsExecuted: frame.eventsExecuted,
    connections: frame.connections,
    live: frame.live,
    inspection: frame.inspection,
    drops: frame.drops,
    seekTarget: frame.seekTarget ?? null,
  };
  if (frame.faults) next.faultRecord = frame.faults;
  if (frame.topology) next.topology = frame.topology;
  if (frame.series.count > 0 || frame.series.names) {
    s.series.append(frame.series);
    next.seriesVersion = s.seriesVersion + 1;
  }
  if (frame.events.length > 0) {
    const newestFirst = frame.events.slice(-EVENT_LOG_LIMIT).reverse();
    next.events = newestFirst.concat(s.events).slice(0, EVENT_LOG_LIMIT);
    next.eventsSeen = (frame.events.at(-1)?.seq ?? 0) + 1;
    const faults = frame.events.filter((e) => e.kind.startsWith('fault.'));
    if (faults.length > 0) next.faultEvents = s.faultEvents.concat(faults);
  }
  frameStore.setState(next);
}
