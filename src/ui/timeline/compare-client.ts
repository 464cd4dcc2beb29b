import { appStore } from '../../state/app-store';
import { compareStore, resetCompare, type CompareState } from '../../state/compare';
import { fixesForB } from '../../state/fix-selection';
import { frameStore } from '../../state/frame-store';
import type { FaultRequest } from '../../sim';
import type { Frame, TimedFault } from '../../worker/protocol';
import { currentLoad, storeCheckpoint } from '../services/sim-client';
import { openSideWorker, type SideWorker } from '../services/side-worker';

/**
 * Run B of an A/B comparison: the main run's scenario, seed and recorded faults with one fix toggled, or the main run
 * itself with a fix rolled out or a fault applied from a moment on (a branch), in a second worker that only ever seeks to the main run's
 * latest clock, so it trails it by at most one frame. A branch starts from the main run's checkpoint at that moment,
 * which the main worker stores and B's worker finds on load, as a worker replacing a crashed one does.
 */

let side: SideWorker | undefined;
let stopFollowing: (() => void) | undefined;
// Bumped per B worker so answers from a terminated one are ignored.
let generation = 0;
let busy = false;
let sentRecord: readonly TimedFault[] | undefined;
// The id of the latest seek sent: B's frames carry it once B has taken that seek, so a frame that settles is known to be
// its end and not an earlier seek's, whatever the order of frames and replies.
let seekId = 0;

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
  if (frame.seekTarget === undefined && busy && frame.seekId === seekId) {
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
  const gen = generation;
  sentRecord = a.faultRecord;
  void worker.send({ type: 'seek', t: a.t, faults: recordForB(a.faultRecord), id: ++seekId }).then((reply) => {
    if (gen !== generation) return;
    if (!reply.ok) {
      busy = false;
      compareStore.setState({ status: 'error', message: `Run B: ${reply.message}` });
      return;
    }
    if (compareStore.getState().status === 'starting') compareStore.setState({ status: 'following' });
  });
}

/** The main run's record with, for a branch, B's fault or the fix's rollout at the branch moment (after the faults due then). */
function recordForB(record: readonly TimedFault[]): TimedFault[] {
  const { fix, fault, branchAt } = compareStore.getState();
  const change: FaultRequest | null = fault ? fault.request : fix === null ? null : { fault: 'roll-out-fix', target: `fix/${fix}` };
  if (branchAt === null || change === null) return [...record];
  const later = record.findIndex((f) => f.at > branchAt);
  const at = later < 0 ? record.length : later;
  return [...record.slice(0, at), { at: branchAt, fault: change }, ...record.slice(at)];
}

/**
 * Starts run B with `fix` toggled from the start, or, given `branchAt` (µs), as the main run with `fix` rolled out at
 * that moment; replaces a running B.
 */
export async function startCompare(fix: string, branchAt: number | null = null): Promise<void> {
  stopCompare(true);
  const { summary, fixes } = appStore.getState();
  if (!currentLoad() || !summary) {
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
  await openB(b.fixes, { fix, fixOn: b.on, branchAt, fault: null });
}

/**
 * Starts run B as the main run until `branchAt` (µs; now unless a link says), then with `request` applied (a fault from
 * the palette, in B only); replaces a running B.
 */
export async function startFaultBranch(request: FaultRequest, label: string, branchAt = frameStore.getState().t): Promise<void> {
  stopCompare(true);
  if (!currentLoad()) {
    compareStore.setState({ status: 'error', message: 'Load a scenario first.' });
    return;
  }
  await openB([...appStore.getState().fixes], { fix: null, fixOn: true, branchAt, fault: { request, label } });
}

/** Opens B's worker on the main run's scenario with `fixes`, as `change` describes it, and has it follow the main run. */
async function openB(fixes: string[], change: Pick<CompareState, 'fix' | 'fixOn' | 'branchAt' | 'fault'>): Promise<void> {
  const request = currentLoad()!;
  const { seed } = appStore.getState();
  const { branchAt } = change;
  const gen = ++generation;
  compareStore.setState({ ...change, open: true, status: 'starting', message: '' });
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
    fixes,
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
  sentRecord = undefined;
  const unsubscribeFrames = frameStore.subscribe((s, prev) => {
    if (s.t !== prev.t || s.faultRecord !== prev.faultRecord || s.run !== prev.run) follow();
  });
  // A new load of the main run (a scenario, a fix switched) gets a new B for the same fix; a fault's branch ends with its run.
  const { fix } = change;
  const unsubscribeApp = appStore.subscribe((s, prev) => {
    if (s.summary !== prev.summary) {
      const stillThere = fix !== null && s.summary?.fixes.some((f) => f.name === fix);
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
