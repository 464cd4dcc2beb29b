import { restoreSim, type Checkpoint, type Sim, type SimTime, type FaultRequest } from '../sim';
import { Checkpoints, type Kept } from './checkpoints';
import { dueCount, recordFault, seekNeedsRestart, sharedPrefix, type TimedFault } from './fault-record';
import type { Frame, Preview, Speed, View, WorkerMessage } from './protocol';

/** Paces a Sim against wall time and turns its state into Frames. Knows nothing about Workers or comlink. */

export interface WallClock {
  /** Wall time in milliseconds (any origin). */
  now(): number;
}

export interface TickTimer {
  /** Calls `callback` once after about `delayMs`; returns a function that cancels it. */
  schedule(callback: () => void, delayMs: number): () => void;
}

export interface RunnerOptions {
  clock: WallClock;
  timer: TickTimer;
  /** Delivers a message; a returned promise means "in flight" and holds back the next frame until it settles. */
  post(message: WorkerMessage, transfer: ArrayBuffer[]): void | Promise<unknown>;
  /** Called when the sim throws while running; the runner has already paused. */
  onError(error: unknown): void;
  /** Wall milliseconds between ticks: one display frame. */
  tickMs?: number;
  /** Wall milliseconds of simulation work allowed per tick, so commands are still answered promptly. */
  budgetMs?: number;
  /** Longest wall gap counted as elapsed (a throttled tab would otherwise ask for minutes of sim at once). */
  maxElapsedMs?: number;
  /** Newest events kept per frame; the UI shows fewer than this. */
  maxEventsPerFrame?: number;
  /** Simulated microseconds advanced by one `step()`: the clock display's resolution (0.1 s). */
  stepUs?: number;
  /** Memory the run's checkpoints may take (Checkpoints' default: 200 MB). */
  checkpointBudgetBytes?: number;
  /** A sim that goes on from a checkpoint (restoreSim unless a test's fake sim needs its own). */
  restore?: (checkpoint: Checkpoint) => Sim;
  /** Told of each checkpoint kept after the run's start, e.g. to store the newest outside the worker. */
  onCheckpoint?: (kept: Kept) => void;
}

export interface Runner {
  /** Replaces the current sim (paused) and publishes a full first frame; `faults` are replayed at their times. */
  load(sim: Sim, faults?: readonly TimedFault[]): void;
  current(): Sim | undefined;
  play(): void;
  pause(): void;
  step(): void;
  setSpeed(speed: Speed): void;
  speed(): Speed;
  /** The entity whose live state frames carry (`kind/name`), or null. */
  inspect(entity: string | null): void;
  /** Simulated times (µs) where playing pauses by itself: a workshop host's chapter starts. Empty for none. */
  setStops(stops: readonly number[]): void;
  running(): boolean;
  /** Wall milliseconds spent inside the sim since load, for the run report. */
  wallMs(): number;
  /** Applies a fault now and records it with the time, so replays apply it again at that time; throws if invalid. */
  applyFault(fault: FaultRequest): void;
  /** The faults applied by request in this run, in time order. */
  faults(): readonly TimedFault[];
  /**
   * Moves the clock to `target` in budget-sized slices. Going back (or a `faults` record with a fault this sim has
   * passed unapplied) starts again from the nearest checkpoint before `target` that fits the record, or on `fresh()`
   * when there is none; a checkpoint between now and `target` is a shortcut forward too. The play state is kept and
   * applies again once the target is reached. Returns where the run goes on from: a checkpoint's simulated µs, 0 for a
   * fresh build, or null when the present sim runs on. Frames from then on carry `id` (when given) as `seekId`.
   */
  seek(target: number, fresh: () => Sim, faults?: readonly TimedFault[], id?: number): number | null;
  seeking(): boolean;
  /** The checkpoints kept so far. */
  checkpoints(): Checkpoints;
  /** Keeps a checkpoint of this run made elsewhere (a stored one, after the load), for seeks to land on. */
  adopt(kept: Kept): void;
  /** A checkpoint of the run as it is now (the one there, or a new one); undefined when the run takes none (too slow to copy). */
  checkpointNow(): Kept | undefined;
  /**
   * What the run shows at `target` (µs), from a copy of the nearest checkpoint before it run on towards it for at most
   * PREVIEW_RUN_MS; the copy is kept for the next call, which goes on from it when it can. The run itself is untouched.
   * Null ends the preview and frees the copy. Throws when no checkpoint fits (the run keeps none).
   */
  preview(target: number | null): Preview | null;
  /** Posts a frame now (or as soon as the previous one is acknowledged). */
  publish(): void;
  dispose(): void;
}

const MIN_CHUNK_US = 1_000;
const MAX_CHUNK_US = 60_000_000;
/**
 * Checkpoints come about every this many wall milliseconds of running, so landing anywhere played costs a restore and
 * at most this much running; and at least this many times a checkpoint's own cost apart, so taking them costs at most
 * an eighth of the running.
 */
const CHECKPOINT_EVERY_MS = 300;
const CHECKPOINT_COST_SHARE = 8;
/**
 * A checkpoint that held the worker longer than this (no frame goes out meanwhile) is dropped and the run takes no more:
 * its state has outgrown what copying keeps up with (its-not-dns from the start), and a restored copy runs slower than
 * a fresh build (other object shapes), so a replay from a fresh build lands sooner. One over half the budget is the last.
 */
const CHECKPOINT_MAX_MS = 250;
/** Wall milliseconds one preview runs its copy on: a scrub that rests asks again until the copy is there. */
const PREVIEW_RUN_MS = 40;

/** A scrub's side copy of the run: how many record entries it has applied, and the record it follows. */
interface PreviewRun {
  sim: Sim;
  applied: number;
  recordVersion: number;
}

export function createRunner(options: RunnerOptions): Runner {
  const { clock, timer, post, onError } = options;
  const restore = options.restore ?? restoreSim;
  const tickMs = options.tickMs ?? 16;
  const budgetMs = options.budgetMs ?? 12;
  const maxElapsedMs = options.maxElapsedMs ?? 250;
  const maxEvents = options.maxEventsPerFrame ?? 500;
  const stepUs = options.stepUs ?? 100_000;

  let sim: Sim | undefined;
  let stops: number[] = [];
  let inspected: string | null = null;
  let isRunning = false;
  let speed: Speed = 1;
  let cancelTick: (() => void) | undefined;
  let lastWall = 0;
  let spentMs = 0;
  // Simulated span run between wall-clock checks; adapted so one chunk costs a fraction of the budget.
  let chunkUs = 10_000;

  let seriesCursor = 0;
  // The series names the UI last got: 1,251 strings in its-not-dns, which rarely change, so frames leave them out.
  let sentNames: readonly string[] | undefined;
  let nextSeq = 0;
  let topologyVersion = -1;
  let run = 0;
  let inFlight = false;
  let publishPending = false;
  let record: readonly TimedFault[] = [];
  let applied = 0;
  let recordVersion = 0;
  let sentRecordVersion = -1;
  let seekTarget: number | undefined;
  let seekId: number | undefined;
  const checkpoints = new Checkpoints(options.checkpointBudgetBytes);
  // Simulated µs one wall ms of running covers (measured on chunks), and what the last checkpoint took.
  let usPerMs = 0;
  let checkpointMs = 0;
  let checkpointsOff = false;
  let sentCheckpoints = -1;
  let previewRun: PreviewRun | undefined;

  function schedule(delayMs: number): void {
    cancelTick?.();
    cancelTick = timer.schedule(tick, Math.max(0, delayMs));
  }

  function stopTicking(): void {
    cancelTick?.();
    cancelTick = undefined;
  }

  /** Applies the record's entries due at `s`'s present time after the first `count`, which it has; returns how many it has now. */
  function applyRecord(s: Sim, count: number): number {
    const due = dueCount(record, count, s.now());
    for (let i = count; i < due; i++) s.applyFault(record[i]!.fault);
    return due;
  }

  function applyDue(s: Sim): void {
    applied = applyRecord(s, applied);
  }

  /**
   * Runs `s`, which has applied the record's first `count` entries, towards `target` in chunks until reached, done, or
   * the wall clock passes `deadline`; returns how many entries it has applied then. `onChunk` is told of each chunk.
   */
  function runTowards(s: Sim, count: number, target: number, deadline: number, onChunk?: (spanUs: number, costMs: number, count: number) => void): number {
    let n = applyRecord(s, count);
    while (s.now() < target && !s.done()) {
      // Recorded faults go in exactly at their time, as they did when first applied.
      const from = s.now();
      const to = Math.min(target, from + chunkUs, record[n]?.at ?? Infinity);
      const t0 = clock.now();
      s.runUntil(to as SimTime);
      n = applyRecord(s, n);
      onChunk?.(to - from, clock.now() - t0, n);
      if (clock.now() >= deadline) break;
    }
    return n;
  }

  /** Runs the sim towards `target` in adaptive chunks, taking checkpoints on the way, until reached, done, or the wall budget is spent. */
  function advance(s: Sim, target: number, startedAt: number): void {
    applied = runTowards(s, applied, target, startedAt + budgetMs, (spanUs, cost, count) => {
      applied = count;
      if (cost > 1) usPerMs = spanUs / cost;
      if (cost < budgetMs / 8) chunkUs = Math.min(MAX_CHUNK_US, chunkUs * 2);
      else if (cost > budgetMs / 2) chunkUs = Math.max(MIN_CHUNK_US, Math.floor(chunkUs / 2));
      maybeCheckpoint(s);
    });
  }

  /** The record's entries the present sim has applied: what a checkpoint of it stands for. */
  function appliedFaults(): TimedFault[] {
    return record.slice(0, applied);
  }

  /** Takes a checkpoint once the run has gone a checkpoint interval past the latest one it could land on. */
  function maybeCheckpoint(s: Sim): void {
    if (usPerMs <= 0 || checkpointsOff) return;
    const intervalUs = usPerMs * Math.max(CHECKPOINT_EVERY_MS, CHECKPOINT_COST_SHARE * checkpointMs);
    const now = s.now();
    const latest = checkpoints.nearest(now, appliedFaults())?.checkpoint.atUs ?? -Infinity;
    if (now - latest < intervalUs) return;
    takeCheckpoint(s);
  }

  /**
   * The checkpoint of `s` as it is now, taken unless one is there; undefined when the run takes none (too slow to copy).
   * Taken where the run comes to rest (a pause, its end, a chapter) so that a reload or crash lands there; not where a
   * seek lands: a compare's run B rests after every step it follows, each a frame of run A apart.
   */
  function checkpointHere(s: Sim): Kept | undefined {
    const faults = appliedFaults();
    const here = (): Kept | undefined => {
      const kept = checkpoints.nearest(s.now(), faults);
      return kept?.checkpoint.atUs === s.now() && kept.faults.length === faults.length ? kept : undefined;
    };
    if (checkpointsOff) return undefined;
    if (!here()) takeCheckpoint(s, faults);
    return here();
  }

  /** Keeps a checkpoint of `s`, which has applied `faults` (the record's first entries). */
  function takeCheckpoint(s: Sim, faults = appliedFaults()): void {
    const t0 = clock.now();
    const checkpoint = s.checkpoint();
    checkpointMs = clock.now() - t0;
    checkpointsOff = checkpointMs > CHECKPOINT_MAX_MS || checkpoint.state.bytes > checkpoints.budget / 2;
    if (checkpointMs > CHECKPOINT_MAX_MS) return;
    checkpoints.add(checkpoint, faults);
    if (checkpoint.atUs > 0) options.onCheckpoint?.({ checkpoint, faults });
  }

  /** One slice of a seek; true once the target is reached. */
  function seekSlice(s: Sim, target: number, startedAt: number): boolean {
    advance(s, target, startedAt);
    return s.now() >= target || s.done();
  }

  function tick(): void {
    cancelTick = undefined;
    const s = sim;
    if (!s || (!isRunning && seekTarget === undefined)) return;
    const startedAt = clock.now();
    if (seekTarget !== undefined) {
      let reached: boolean;
      try {
        reached = seekSlice(s, seekTarget, startedAt);
      } catch (error) {
        seekTarget = undefined;
        isRunning = false;
        spentMs += clock.now() - startedAt;
        publish();
        onError(error);
        return;
      }
      spentMs += clock.now() - startedAt;
      if (reached) {
        seekTarget = undefined;
        lastWall = clock.now();
        if (s.done()) isRunning = false;
      }
      publish();
      if (seekTarget !== undefined) schedule(0);
      else if (isRunning) schedule(tickMs);
      return;
    }
    const elapsed = Math.min(Math.max(0, startedAt - lastWall), maxElapsedMs);
    lastWall = startedAt;
    const stop = stops.find((t) => t > s.now()) ?? Infinity;
    try {
      const target = speed === 'max' ? s.durationUs : Math.min(s.durationUs, s.now() + Math.round(elapsed * 1000 * speed));
      advance(s, Math.min(target, stop), startedAt);
    } catch (error) {
      isRunning = false;
      spentMs += clock.now() - startedAt;
      publish();
      onError(error);
      return;
    }
    const finishedAt = clock.now();
    spentMs += finishedAt - startedAt;
    if (s.done() || s.now() === stop) isRunning = false;
    publish();
    if (isRunning) schedule(speed === 'max' ? tickMs - (finishedAt - startedAt) : tickMs);
    else checkpointHere(s);
  }

  /** What a frame shows of `s` now, in copies: the sim may hand out views of its own buffers, which a transfer would detach. */
  function viewOf(s: Sim): { view: Omit<View, 'topology'>; transfer: ArrayBuffer[] } {
    const connections = new Int32Array(s.connections());
    const own = s.live();
    const live = {
      ...own,
      conntrackUsed: new Float64Array(own.conntrackUsed),
      instanceTracked: new Float64Array(own.instanceTracked),
      dnsInFlight: new Float64Array(own.dnsInFlight),
      traffic: new Float64Array(own.traffic),
      drops: new Float64Array(own.drops),
    };
    const buffers = [connections, live.conntrackUsed, live.instanceTracked, live.dnsInFlight, live.traffic, live.drops].map((a) => a.buffer as ArrayBuffer);
    return { view: { connections, live, inspection: inspected === null ? null : s.inspect(inspected), drops: s.drops() }, transfer: buffers };
  }

  function buildFrame(s: Sim): { frame: Frame; transfer: ArrayBuffer[] } {
    const slice = s.seriesSince(seriesCursor);
    seriesCursor = slice.from + slice.count;
    const names = sameNames(slice.names, sentNames) ? undefined : slice.names;
    if (names) sentNames = names;
    const values = new Float64Array(slice.values);
    const { view, transfer } = viewOf(s);

    const fresh = s.eventsSince(nextSeq).filter((e) => e.seq >= nextSeq);
    const last = fresh[fresh.length - 1];
    if (last) nextSeq = last.seq + 1;
    // Fault events are kept even in a long frame: the timeline marks every one.
    const events = fresh.length > maxEvents ? fresh.filter((e, i) => i >= fresh.length - maxEvents || e.kind.startsWith('fault.')) : fresh;

    const frame: Frame = {
      type: 'frame',
      run,
      t: s.now(),
      durationUs: s.durationUs,
      running: isRunning,
      done: s.done(),
      speed,
      eventsExecuted: s.eventsExecuted(),
      ...view,
      series: { ...(names && { names }), stepSeconds: slice.stepSeconds, from: slice.from, count: slice.count, values },
      events,
    };
    if (seekTarget !== undefined) frame.seekTarget = seekTarget;
    if (seekId !== undefined) frame.seekId = seekId;
    if (recordVersion !== sentRecordVersion) {
      sentRecordVersion = recordVersion;
      frame.faults = [...record];
    }
    if (checkpoints.version !== sentCheckpoints) {
      sentCheckpoints = checkpoints.version;
      frame.checkpoints = checkpoints.times();
    }
    if (s.topologyVersion() !== topologyVersion) {
      const topology = s.topology();
      topologyVersion = topology.version;
      frame.topology = topology;
    }
    return { frame, transfer: [values.buffer, ...transfer] };
  }

  function publish(): void {
    const s = sim;
    if (!s) return;
    if (inFlight) {
      publishPending = true;
      return;
    }
    publishPending = false;
    const { frame, transfer } = buildFrame(s);
    const ack = post(frame, transfer);
    if (!ack) return;
    inFlight = true;
    const settle = (): void => {
      inFlight = false;
      if (publishPending) publish();
    };
    ack.then(settle, settle);
  }

  /**
   * Replaces the current sim with `faults` to replay, of which it has applied the first `replay.applied` (a sim
   * restored from a checkpoint), and publishes a full first frame: paused, or as a seek says (its target and whether
   * it plays on), so the first frame of the new run already shows where it is going.
   */
  function loadSim(next: Sim, faults: readonly TimedFault[] = [], replay: { applied: number; seekTo: number; running: boolean } = { applied: 0, seekTo: -1, running: false }): void {
    stopTicking();
    sim = next;
    record = [...faults];
    applied = replay.applied;
    recordVersion++;
    seekTarget = replay.seekTo >= 0 ? replay.seekTo : undefined;
    run++;
    isRunning = replay.running;
    spentMs = 0;
    chunkUs = 10_000;
    seriesCursor = 0;
    sentNames = undefined;
    nextSeq = 0;
    topologyVersion = -1;
    sentCheckpoints = -1;
    publishPending = false;
    // The first frame of a new run goes out even if an old frame is unacknowledged, so the UI resets promptly.
    inFlight = false;
    applyDue(next);
    publish();
  }

  return {
    load(next, faults) {
      checkpoints.clear();
      previewRun = undefined;
      usPerMs = 0;
      // The run's start, before its first frame, so a load answers at once after it: building a large scenario's world
      // costs more than restoring it. A fault recorded at 0 is applied on restore, as on a fresh build.
      takeCheckpoint(next, []);
      loadSim(next, faults);
    },
    current: () => sim,
    play() {
      if (!sim || isRunning || sim.done()) return;
      isRunning = true;
      lastWall = clock.now();
      publish();
      if (seekTarget === undefined) schedule(tickMs);
    },
    pause() {
      if (!isRunning) return;
      isRunning = false;
      if (seekTarget === undefined) stopTicking();
      publish();
      if (sim && seekTarget === undefined) checkpointHere(sim);
    },
    step() {
      const s = sim;
      if (!s || seekTarget !== undefined) return;
      isRunning = false;
      stopTicking();
      if (!s.done()) {
        const startedAt = clock.now();
        try {
          // No wall budget (a start time at infinity): a step always runs its whole 0.1 s.
          advance(s, Math.min(s.durationUs, s.now() + stepUs), Infinity);
        } finally {
          spentMs += clock.now() - startedAt;
        }
      }
      publish();
    },
    setSpeed(next) {
      speed = next;
      lastWall = clock.now();
      if (isRunning) schedule(0);
      publish();
    },
    speed: () => speed,
    inspect(entity) {
      inspected = entity;
      publish();
    },
    setStops(next) {
      stops = [...next].sort((a, b) => a - b);
    },
    running: () => isRunning,
    applyFault(fault) {
      const s = sim;
      if (!s) throw new Error('no scenario is loaded');
      applyDue(s);
      s.applyFault(fault);
      record = recordFault(record, s.now(), fault);
      applied++;
      recordVersion++;
      publish();
    },
    faults: () => record,
    seek(target, fresh, faults, id) {
      const s = sim;
      if (!s) throw new Error('no scenario is loaded');
      if (id !== undefined) seekId = id;
      const to = Math.min(Math.max(0, Math.round(target)), s.durationUs);
      let lostApplied = false;
      if (faults) {
        // Entries this sim applied stay applied only if the new record still starts with them.
        const kept = sharedPrefix(record, faults, applied);
        lostApplied = kept < applied;
        record = [...faults];
        recordVersion++;
        applied = kept;
      }
      const restart = lostApplied || seekNeedsRestart(s.now(), to, record, applied);
      const kept = checkpoints.nearest(to, record);
      let from: number | null = null;
      if (restart || (kept && kept.checkpoint.atUs > s.now())) {
        const replay = { applied: kept?.faults.length ?? 0, seekTo: to, running: isRunning && to < s.durationUs };
        loadSim(kept ? restore(kept.checkpoint) : fresh(), record, replay);
        from = kept?.checkpoint.atUs ?? 0;
      }
      seekTarget = to;
      lastWall = clock.now();
      publish();
      schedule(0);
      return from;
    },
    seeking: () => seekTarget !== undefined,
    checkpoints: () => checkpoints,
    adopt(kept) {
      checkpoints.add(kept.checkpoint, kept.faults);
    },
    checkpointNow: () => (sim ? checkpointHere(sim) : undefined),
    preview(target) {
      if (target === null) {
        previewRun = undefined;
        return null;
      }
      const s = sim;
      if (!s) throw new Error('no scenario is loaded');
      const to = Math.min(Math.max(0, Math.round(target)), s.durationUs);
      const kept = checkpoints.nearest(to, record);
      if (!kept) throw new Error(`preview: this run keeps no checkpoints${checkpointsOff ? ': its state takes too long to copy' : ''}`);
      let p = previewRun;
      // The copy goes on from where the last preview left it if that is on the way, which a scrub forward mostly is.
      const onTheWay = p !== undefined && p.recordVersion === recordVersion && p.sim.now() <= to && p.sim.now() >= kept.checkpoint.atUs;
      if (!p || !onTheWay) p = previewRun = { sim: restore(kept.checkpoint), applied: kept.faults.length, recordVersion };
      p.applied = runTowards(p.sim, p.applied, to, clock.now() + PREVIEW_RUN_MS);
      return { ...viewOf(p.sim).view, topology: p.sim.topology(), t: p.sim.now(), target: to, fromUs: kept.checkpoint.atUs };
    },
    wallMs: () => spentMs,
    publish,
    dispose() {
      stopTicking();
      isRunning = false;
      sim = undefined;
      previewRun = undefined;
    },
  };
}

function sameNames(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
