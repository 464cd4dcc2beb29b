import type {
  SimTime,
  FaultDescriptor,
  FaultRequest,
  Inspection,
  LiveView,
  LogEvent,
  RunReport,
  SeriesSlice,
  TopologyView,
  Chapter,
  ChartSpec,
  WhyChain,
  Edit,
  Field,
  OutlineItem,
  YamlPath,
} from '../sim';
import type { TimedFault } from './fault-record';
import type { TimelineAddition } from './timeline-additions';

export type { Chapter, ChartSpec, TimedFault, TimelineAddition };

/** The one protocol between the UI and the simulation worker. Every message is plain data. */

/** Wall-clock pacing: simulated seconds per wall second, or as fast as possible. */
export type Speed = number | 'max';
export const MIN_SPEED = 0.1;
export const MAX_SPEED = 100;
export const SPEED_ERROR = `speed: expected a number ${MIN_SPEED}–${MAX_SPEED} or "max"`;

/** The one range check for speeds, shared by the worker and the URL parser. */
export function isSpeed(value: unknown): value is Speed {
  return value === 'max' || (typeof value === 'number' && value >= MIN_SPEED && value <= MAX_SPEED);
}

export interface ScenarioSummary {
  id: string;
  title: string;
  description: string;
  seed: number;
  durationSeconds: number;
  /** `rollout`: why a compare's run B cannot take the fix from a moment on (faults/roll-out-fix.ts), or null when it can. */
  fixes: { name: string; description: string; rollout: string | null }[];
  chapters: Chapter[];
  charts: ChartSpec[];
}

export type Command =
  /**
   * `sets`: `path=value` overrides after the fixes, as `--set` gives them (a sweep variant's risky setting); `timeline`:
   * faults added after the scenario's own timeline entries, as `--fault` adds them (a sweep variant's faults);
   * `store: false`: the run's checkpoints are not stored in IndexedDB, though a stored one is still used (a compare's run
   * B, whose checkpoints would take the main run's place when it branches with the same fixes).
   */
  | { type: 'load'; text: string; fileName: string; seed?: number; fixes?: string[]; sets?: string[]; timeline?: TimelineAddition[]; store?: boolean }
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'step' }
  | { type: 'setSpeed'; speed: Speed }
  /** Whether playing pauses by itself at each chapter of the scenario's story (on after every load). */
  | { type: 'pauseAtChapters'; on: boolean }
  | { type: 'reset' }
  | { type: 'applyFault'; fault: FaultRequest }
  /**
   * Moves the clock to `t` (µs) in slices, frames showing progress: forward by running on, backward by a fresh run
   * replayed with the same seed, fixes and recorded faults. `faults` replaces the fault record first (a compare run
   * follows another run's record). `id`: frames from then on carry it as `seekId`, so a follower tells the frames of
   * this seek from earlier ones (frames and replies come by different channels, in no set order between them).
   */
  | { type: 'seek'; t: number; faults?: TimedFault[]; id?: number }
  /** Stores a checkpoint of the run as it is now in IndexedDB, for a compare's run B to branch from. */
  | { type: 'storeCheckpoint' }
  /**
   * The picture, gauges and inspector at `t` (µs) for a scrub, from a side copy of the nearest checkpoint run on
   * towards `t` for a bounded while, leaving the run itself where it is; null ends the scrub and frees the copy.
   */
  | { type: 'preview'; t: number | null }
  | { type: 'report' }
  /** Frames carry the live state of this entity (`kind/name`) from now on; null for none. */
  | { type: 'inspect'; entity: string | null }
  /** The causal chain behind a symptom: a drop reason or error kind, at an entity or where it happened most. */
  | { type: 'why'; kind: string; entity?: string }
  /** The run so far as a file: the run report (JSON), every metric series (CSV), or the latest packets (pcap). */
  | { type: 'export'; what: ExportKind }
  /** What the loader says of a scenario text, without loading it, and its topology outline: the editor's check as you type. */
  | { type: 'check'; text: string; fileName: string }
  /** One of the editor's structural edits, or a new blank scenario; the reply is the new text or why not. */
  | { type: 'edit'; text: string; edit: Edit | { op: 'blank' } }
  /** The single values of the outline item at `path`, typed from the schema, for the editor's properties form. */
  | { type: 'fields'; text: string; path: YamlPath }
  | { type: 'ping' };

// Every run keeps the headers of the latest 200,000 packets that left sockets (about 4 MB), so "Export packets" always
// has something to give; counting, not sampling, leaves the run as it is.
export const RUN_CAPTURE = { every: 1, capacity: 200_000 };

export const EXPORT_KINDS = ['json', 'csv', 'pcap'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The name every export of a run starts with: scenario, seed and the simulated second it was taken at. */
export function exportName(scenarioId: string, seed: number, tUs: number): string {
  return `${scenarioId}-seed${seed}-${Math.floor(tUs / 1e6)}s`;
}

/** What each command gives back when it succeeds; a refusal is the same for all (Answer). */
export interface Replies {
  /** `storedAt`: the simulated µs of this run's checkpoint that IndexedDB kept (from a crashed worker or an earlier tab), or null. */
  load: { scenario: ScenarioSummary; catalog: FaultDescriptor[]; storedAt: number | null };
  play: null;
  pause: null;
  step: null;
  setSpeed: null;
  pauseAtChapters: null;
  reset: null;
  applyFault: null;
  /** Where the run went on from: a checkpoint's simulated µs, 0 for a fresh build, or null when it ran on from where it was. */
  seek: { from: number | null };
  /** The simulated µs of the stored checkpoint, or null when the run takes none (too slow to copy) or there is no storage. */
  storeCheckpoint: { atUs: number | null };
  /** Null when the scrub ended. */
  preview: Preview | null;
  report: RunReport;
  inspect: null;
  why: WhyChain | null;
  export: { fileName: string; mime: string; data: string | Uint8Array };
  /** One `path: problem` line per problem (empty when the text loads), and the outline (error: not YAML). */
  check: { problems: string[]; outline: OutlineItem[]; outlineError: string | null };
  edit: { text: string };
  /** `inText`: keys of the item that hold lists or maps, which only the text edits. */
  fields: { fields: Field[]; inText: string[] };
  /** The simulated time, from a worker that is alive. */
  ping: SimTime;
}

export type CommandType = Command['type'];
export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;
/** A command's reply: its value, or why it was refused (a message that names the field at fault). */
export type Answer<T extends CommandType> = { ok: true; value: Replies[T] } | { ok: false; message: string };

/**
 * Samples appended since the previous frame, row-major: values[i * count + k] is names[i] at sample from+k. `names`
 * comes only when it differs from the previous frame's of the same run (always in a run's first frame); a chunk
 * without it has the rows of the latest names sent.
 */
export type SeriesChunk = Omit<SeriesSlice, 'names'> & { names?: readonly string[] };

/** What the run's own frames show of a moment (the picture, gauges and inspector), as a frame carries them. */
export interface View {
  topology: TopologyView;
  /** Live connections as triples: client pod index, server pod index, ConnState id. */
  connections: Int32Array;
  /** The inspected entity's live state; null when none is inspected or the run has no such entity. */
  inspection: Inspection | null;
  /** Gauges, pool members, ECMP next hops, traffic and drops where they happen: the numbers the topology draws. */
  live: LiveView;
  drops: Record<string, number>;
}

/** A scrub's view of another moment than the run's: a copy of the checkpoint at `fromUs` run on to `t`. */
export interface Preview extends View {
  /** The simulated µs shown: the time asked for once the copy got there, earlier while it is still on its way. */
  t: number;
  /** The time asked for. */
  target: number;
  fromUs: number;
}

export interface Frame extends Omit<View, 'topology'> {
  type: 'frame';
  /** Increments with every load or reset, so the UI knows when to forget the previous run's history. */
  run: number;
  t: SimTime;
  durationUs: number;
  running: boolean;
  done: boolean;
  speed: Speed;
  eventsExecuted: number;
  /** Present only when the structure changed since the previous frame. */
  topology?: TopologyView;
  series: SeriesChunk;
  events: LogEvent[];
  /** The simulated time a seek is heading for, while one runs. */
  seekTarget?: number;
  /** The `id` of the latest seek that gave one. */
  seekId?: number;
  /** Faults the user applied in this run with their times; present only when the record changed. */
  faults?: TimedFault[];
  /** The simulated µs of the checkpoints kept, which jumps and scrubs start from; present only when they changed. */
  checkpoints?: number[];
}

export type WorkerMessage = Frame | { type: 'fatal'; message: string };

/** What the worker exposes through comlink. */
export interface WorkerApi {
  send<T extends CommandType>(cmd: CommandOf<T>): Promise<Answer<T>>;
  subscribe(listener: (message: WorkerMessage) => void): void;
}
