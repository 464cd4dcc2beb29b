import { FRAME_LOG_STRIDE, type LongTask } from './ui-probe';

/**
 * Simulated time against wall time, from the worker's frames as they reached the page: overall and in windows of
 * simulated time, each with the frames and the main-thread long tasks that fell in it.
 */

interface Point {
  wallMs: number;
  simUs: number;
  events: number;
  /** Main-thread milliseconds from the frame's arrival to the answer the worker waits for; -1 when none was seen. */
  answerMs: number;
}

export interface RateWindow {
  label: string;
  fromS: number;
  toS: number;
  /** Simulated seconds of the window the run got through (less than `toS - fromS` when the cap stopped it). */
  coveredS: number;
  wallS: number;
  simSecondsPerWallSecond: number;
  events: number;
  frames: number;
  /** Mean and longest main-thread answer to a frame: the app's synchronous work on it. */
  answerMs: { mean: number; max: number };
  /** Mean time from an answer to the page handling the next frame: the worker's tick and frame, then the wait behind other main-thread tasks. */
  nextFrameMs: number;
  longTasks: LongTask[];
}

export interface SimRate {
  simulatedSeconds: number;
  /** From Play to the frame that said "done", or to the last frame when the cap came first. */
  wallS: number;
  simSecondsPerWallSecond: number;
  events: number;
  frames: number;
  windows: RateWindow[];
}

/** The frames that arrived from `playAt` to `untilMs`, after a point for the moment Play was pressed. */
function pointsBetween(frameLog: readonly number[], playAt: number, untilMs: number): Point[] {
  const points: Point[] = [];
  let before: Point = { wallMs: playAt, simUs: 0, events: 0, answerMs: -1 };
  for (let i = 0; i + FRAME_LOG_STRIDE <= frameLog.length; i += FRAME_LOG_STRIDE) {
    const point = { wallMs: frameLog[i]!, simUs: frameLog[i + 1]!, events: frameLog[i + 2]!, answerMs: frameLog[i + 3]! };
    if (point.wallMs < playAt) before = point;
    else if (point.wallMs <= untilMs) points.push(point);
  }
  // The run starts from where the last frame before Play left it, at the moment Play was pressed.
  return [{ ...before, wallMs: playAt }, ...points];
}

/** The point where the simulated clock passed `simUs`, interpolated between the frames either side; undefined if it never did. */
function crossing(points: readonly Point[], simUs: number): Point | undefined {
  const first = points[0];
  if (!first || first.simUs >= simUs) return first;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    if (b.simUs < simUs) continue;
    const f = (simUs - a.simUs) / (b.simUs - a.simUs);
    return { wallMs: a.wallMs + f * (b.wallMs - a.wallMs), simUs, events: a.events + f * (b.events - a.events), answerMs: -1 };
  }
  return undefined;
}

/** How long the main thread took to answer the frames arriving in (fromMs, toMs], and how long the next frame took after each answer. */
function answers(points: readonly Point[], fromMs: number, toMs: number): Pick<RateWindow, 'frames' | 'answerMs' | 'nextFrameMs'> {
  let frames = 0;
  let answered = 0;
  let answerTotal = 0;
  let answerMax = 0;
  let waits = 0;
  let waitTotal = 0;
  for (let i = 1; i < points.length; i++) {
    const p = points[i]!;
    if (p.wallMs <= fromMs || p.wallMs > toMs) continue;
    frames++;
    if (p.answerMs < 0) continue;
    answered++;
    answerTotal += p.answerMs;
    answerMax = Math.max(answerMax, p.answerMs);
    const next = points[i + 1];
    if (next) {
      waits++;
      waitTotal += next.wallMs - (p.wallMs + p.answerMs);
    }
  }
  return {
    frames,
    answerMs: { mean: answered > 0 ? answerTotal / answered : 0, max: answerMax },
    nextFrameMs: waits > 0 ? waitTotal / waits : 0,
  };
}

/** The rate between `playAt` and `untilMs` (page clock, ms): the arrival of the last frame of the run, or the end of the window. */
export function simRate(
  frameLog: readonly number[],
  playAt: number,
  untilMs: number,
  longTasks: readonly LongTask[],
  bounds: readonly { label: string; fromS: number; toS: number }[],
): SimRate {
  const points = pointsBetween(frameLog, playAt, untilMs);
  const start = points[0]!;
  const last = points.at(-1)!;
  const windows: RateWindow[] = [];
  for (const { label, fromS, toS } of bounds) {
    const from = crossing(points, fromS * 1e6);
    if (!from || from.simUs >= last.simUs) continue;
    const to = crossing(points, toS * 1e6) ?? last;
    const wallS = (to.wallMs - from.wallMs) / 1000;
    const coveredS = (to.simUs - from.simUs) / 1e6;
    windows.push({
      label,
      fromS,
      toS,
      coveredS,
      wallS,
      simSecondsPerWallSecond: coveredS / wallS,
      events: to.events - from.events,
      ...answers(points, from.wallMs, to.wallMs),
      longTasks: longTasks.filter((t) => t.start >= from.wallMs && t.start < to.wallMs),
    });
  }
  const wallS = (last.wallMs - start.wallMs) / 1000;
  const simulatedSeconds = last.simUs / 1e6;
  return {
    simulatedSeconds,
    wallS,
    simSecondsPerWallSecond: (simulatedSeconds - start.simUs / 1e6) / wallS,
    events: last.events - start.events,
    frames: points.length - 1,
    windows,
  };
}
