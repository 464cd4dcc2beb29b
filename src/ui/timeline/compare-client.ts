import { appStore } from '../../state/app-store';
import { compareStore, resetCompare } from '../../state/compare';
import { fixesForB } from '../../state/fix-selection';
import { frameStore } from '../../state/frame-store';
import type { Frame, TimedFault } from '../../worker/protocol';
import { currentLoad, storeCheckpoint } from '../services/sim-client';
import { openSideWorker, type SideWorker } from '../services/side-worker';

/**
 * Run B of an A/B comparison: the main run's scenario, seed and recorded faults with one fix toggled, or the main run
 * itself with a fix rolled out from a moment on (a branch), in a second worker that only ever seeks to the main run's
 * latest clock, so it trails it by at most one frame. A branch starts from the main run's checkpoint at that moment,
 * which the main worker stores and B's worker finds on load, as a worker replacing a crashed one does.
 */

let side: SideWorker | undefined;
let stopFollowing: (() => void) | undefined;
// Bumped per B worker so answers from a terminated one are ignored.
let generation = 0;
let busy = false;
let sentRecord: readonly TimedFault[] | undefined;
// True from sending a seek until its answer: frames before the answer may predate the seek.
let awaitingReply = false;

function ingestB(gen: number, frame: Frame): void {
  if (gen !== generation) return;
  const s = compareStore.getState();
  if (frame.run !== s.run) s.series.clear();
  const next: Partial<typeof s> = { run: frame.run, t: frame.t };
  if (frame.series.count > 0 || frame.series.names) {
    s.series.append(frame.series);
    next.seriesVersion = s.seriesVersion + 1;
  }
  if (frame.run !== s.run) next.seriesVersion = s.seriesVersion + 1;
  compareStore.setState(next);
  if (frame.seekTarget === undefined && busy && !awaitingReply) {
    busy = false;
    follow();
  }
}

/** Sends B to the main run's clock (and fault record) unless a seek is already on its way. */
function follow(): void {
  const worker = side;
  if (!worker || busy) return;
  const a = frameStore.getState();
  const b = compareStore.getState();
  if (a.run < 0) return;
  const recordChanged = a.faultRecord !== sentRecord;
  if (!recordChanged && b.t === a.t && b.status === 'following') return;
  busy = true;
  awaitingReply = true;
  const gen = generation;
  sentRecord = a.faultRecord;
  void worker.send({ type: 'seek', t: a.t, faults: recordForB(a.faultRecord) }).then((reply) => {
    if (gen !== generation) return;
    awaitingReply = false;
    if (!reply.ok) {
      busy = false;
      compareStore.setState({ status: 'error', message: `Run B: ${reply.message}` });
      return;
    }
    if (compareStore.getState().status === 'starting') compareStore.setState({ status: 'following' });
  });
}

/** The main run's record with, for a branch, the fix's rollout at the branch moment (after the faults due then). */
function recordForB(record: readonly TimedFault[]): TimedFault[] {
  const { fix, branchAt } = compareStore.getState();
  if (branchAt === null || fix === null) return [...record];
  const later = record.findIndex((f) => f.at > branchAt);
  const at = later < 0 ? record.length : later;
  return [...record.slice(0, at), { at: branchAt, fault: { fault: 'roll-out-fix', target: `fix/${fix}` } }, ...record.slice(at)];
}

/**
 * Starts run B with `fix` toggled from the start, or, given `branchAt` (µs), as the main run with `fix` rolled out at
 * that moment; replaces a running B.
 */
export async function startCompare(fix: string, branchAt: number | null = null): Promise<void> {
  stopCompare(true);
  const request = currentLoad();
  const { summary, fixes, seed } = appStore.getState();
  if (!request || !summary) {
    compareStore.setState({ status: 'error', message: 'Load a scenario first.' });
    return;
  }
  const known = summary.fixes.find((f) => f.name === fix);
  if (!known) {
    compareStore.setState({ status: 'error', message: `fix: "${fix}" is not a fix of scenario ${summary.id}` });
    return;
  }
  if (branchAt !== null && (fixes.includes(fix) || known.rollout !== null)) {
    const why = known.rollout ?? `run A has it already`;
    compareStore.setState({ status: 'error', message: `fix: ${fix} cannot be rolled out while the run goes on: ${why}` });
    return;
  }
  const b = branchAt !== null ? { fixes: [...fixes], on: true } : fixesForB(summary.fixes, fixes, fix);
  const gen = ++generation;
  compareStore.setState({ fix, fixOn: b.on, branchAt, status: 'starting', message: '' });
  // Stored before B's worker loads, which looks for it; a run too slow to copy stores none, and B replays to the moment.
  if (branchAt !== null && branchAt === frameStore.getState().t) await storeCheckpoint();
  if (gen !== generation) return;
  side = openSideWorker(
    (message) => {
      if (message.type === 'frame') ingestB(gen, message);
    },
    (message) => {
      if (gen === generation) compareStore.setState({ status: 'error', message: `Run B stopped: ${message}` });
    },
  );
  const reply = await side.send({
    type: 'load',
    store: false,
    text: request.text,
    fileName: request.fileName,
    ...(seed === null ? {} : { seed }),
    fixes: b.fixes,
    // A run opened from a sweep row keeps its setting's overrides and its faults, so B differs from A by the fix alone.
    ...(request.sets ? { sets: request.sets } : {}),
    ...(request.timeline ? { timeline: request.timeline } : {}),
  });
  if (gen !== generation) return;
  if (!reply.ok) {
    compareStore.setState({ status: 'error', message: `Run B: ${reply.message}` });
    return;
  }
  busy = false;
  awaitingReply = false;
  sentRecord = undefined;
  const unsubscribeFrames = frameStore.subscribe((s, prev) => {
    if (s.t !== prev.t || s.faultRecord !== prev.faultRecord || s.run !== prev.run) follow();
  });
  // A new load of the main run (a scenario, a fix switched) gets a new B for the same comparison.
  const unsubscribeApp = appStore.subscribe((s, prev) => {
    if (s.summary !== prev.summary) {
      const stillThere = s.summary?.fixes.some((f) => f.name === fix);
      if (stillThere) void startCompare(fix, compareStore.getState().branchAt === null ? null : frameStore.getState().t);
      else stopCompare(true);
    }
  });
  stopFollowing = () => {
    unsubscribeFrames();
    unsubscribeApp();
  };
  follow();
}

/** Terminates run B; `keepOpen` leaves the Compare panel showing. */
export function stopCompare(keepOpen = false): void {
  generation++;
  stopFollowing?.();
  stopFollowing = undefined;
  side?.terminate();
  side = undefined;
  busy = false;
  awaitingReply = false;
  const open = keepOpen && compareStore.getState().open;
  resetCompare(open);
}

export function openCompare(): void {
  compareStore.setState({ open: true });
}

export function closeCompare(): void {
  stopCompare(false);
}

export function toggleCompare(): void {
  if (compareStore.getState().open) closeCompare();
  else if ((appStore.getState().summary?.fixes.length ?? 0) === 0) return;
  else openCompare();
}

/** Whether a B worker exists now (for tests and the summary). */
export function compareRunning(): boolean {
  return side !== undefined;
}
