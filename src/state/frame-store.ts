import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import type { Inspection, LiveView, LogEvent, TopologyView } from '../sim';
import type { Frame, Preview, TimedFault, View } from '../worker/protocol';
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
  /** The simulated µs of the run's checkpoints, where jumps and scrubs start from. */
  checkpoints: number[];
  /** While a scrub shows another moment: the view fields above are the preview's, not the run's (see showPreview). */
  preview: Omit<Preview, keyof View> | null;
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
  checkpoints: [],
  preview: null,
});

/** The fields a view of a moment sets: the run's frames or, during a scrub, its preview. */
type ViewFields = Pick<FrameState, 'topology' | 'connections' | 'inspection' | 'live' | 'drops'>;

// The run's own view while a preview takes its place on screen; frames that arrive meanwhile update this.
let held: ViewFields | null = null;

export const frameStore = createStore<FrameState>(initial);

export function useFrame<T>(selector: (s: FrameState) => T): T {
  return useStore(frameStore, selector);
}

/** Forgets everything from the previous run (a new scenario, a reset or a restarted worker). */
export function clearFrames(): void {
  held = null;
  frameStore.setState(initial(), true);
}

/** Shows `preview` in the picture, gauges and inspector in place of the run's latest frame, which is held meanwhile. */
export function showPreview(preview: Preview): void {
  const s = frameStore.getState();
  held ??= { topology: s.topology, connections: s.connections, inspection: s.inspection, live: s.live, drops: s.drops };
  const { topology, connections, inspection, live, drops, ...about } = preview;
  frameStore.setState({ topology, connections, inspection, live, drops, preview: about });
}

/** The run's own view again, as its latest frame left it. */
export function endPreview(): void {
  if (!held) return;
  frameStore.setState({ ...held, preview: null });
  held = null;
}

/** Folds one worker frame into the store. */
export function ingestFrame(frame: Frame): void {
  if (frame.run !== frameStore.getState().run) clearFrames();
  const s = frameStore.getState();
  const view: Partial<ViewFields> = { connections: frame.connections, live: frame.live, inspection: frame.inspection, drops: frame.drops };
  if (frame.topology) view.topology = frame.topology;
  const next: Partial<FrameState> = {
    run: frame.run,
    t: frame.t,
    durationUs: frame.durationUs,
    eventsExecuted: frame.eventsExecuted,
    seekTarget: frame.seekTarget ?? null,
  };
  if (held) Object.assign(held, view);
  else Object.assign(next, view);
  if (frame.faults) next.faultRecord = frame.faults;
  if (frame.checkpoints) next.checkpoints = frame.checkpoints;
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
