import * as Comlink from 'comlink';
import type { FaultRequest, RunReport, YamlPath } from '../../sim';
import { appStore, dismissError, notify, showError } from '../../state/app-store';
import { orderFixes } from '../../state/fix-selection';
import { clearFrames, frameStore, ingestFrame } from '../../state/frame-store';
import { whyStore } from '../../state/why';
import { nextSpeed } from '../../state/speed';
import type { Answer, CommandOf, CommandType, ExportKind, Replies, Speed, TimedFault, TimelineAddition, WorkerApi, WorkerMessage } from '../../worker/protocol';
import { download } from './download';
import { counted } from '../components/format';

/** The module that talks to the simulation worker (side-worker.ts opens the compare run's). Components call these functions; results land in the stores. */

export interface LoadRequest {
  text: string;
  fileName: string;
  seed?: number;
  /** Names of the scenario's fixes to apply, in the order the scenario lists them. */
  fixes?: string[];
  /** `path=value` overrides after the fixes (a sweep variant's risky setting); kept by every reload of this run. */
  sets?: string[];
  /** Faults added after the scenario's own timeline entries (a sweep's variant); kept by every reload of this run. */
  timeline?: TimelineAddition[];
  /** Shipped file name for the picker, or '' for a file opened from disk. */
  pickerValue: string;
}

/** A running worker gets this long to answer a ping before it is declared hung. */
const HANG_MS = 3_000;
const PING_EVERY_MS = 1_000;

let worker: Worker | undefined;
let api: Comlink.Remote<WorkerApi> | undefined;
// Bumped per worker so late messages from a terminated one are ignored.
let generation = 0;
let lastGood: LoadRequest | undefined;
let reportRequested = false;
let pingSentAt: number | undefined;
let watchdog: ReturnType<typeof setInterval> | undefined;
// Whether the run was playing when the worker died, so a restart picks up where the user left it.
let resumeAfterRestart = false;

function onMessage(gen: number, message: WorkerMessage): void {
  if (gen !== generation) return;
  if (message.type === 'fatal') {
    crashed(`The simulation worker failed: ${message.message}`);
    return;
  }
  ingestFrame(message);
  // Speed is not taken from frames: the UI owns it, and a frame sent before a setSpeed arrived would undo a key press.
  // A frame sent before the worker saw the pause keeps the status at 'pausing' until the worker confirms it.
  const pausing = appStore.getState().status === 'pausing';
  const status = message.done ? 'done' : message.running ? (pausing ? 'pausing' : 'running') : 'paused';
  appStore.setState({ status });
  if (message.done && !reportRequested) {
    reportRequested = true;
    void fetchReport();
  }
}

// A worker that fails again this soon after coming back by itself waits for the user, rather than failing in a loop.
const AUTO_RESTART_QUIET_MS = 30_000;
let autoRestartedAt = -Infinity;

function crashed(message: string): void {
  // The worker's own report comes first and says more than the Worker error event that may follow it.
  if (appStore.getState().error?.kind === 'worker-crash') return;
  resumeAfterRestart ||= appStore.getState().status === 'running';
  appStore.setState({ status: 'paused' });
  if (performance.now() - autoRestartedAt > AUTO_RESTART_QUIET_MS) {
    autoRestartedAt = performance.now();
    void restartWorker(message);
    return;
  }
  showError({ title: 'Simulation stopped', message, restartable: true, kind: 'worker-crash' });
}

function spawn(): void {
  const gen = ++generation;
  worker = new Worker(new URL('../../worker/sim.worker.ts', import.meta.url), { type: 'module' });
  worker.addEventListener('error', (event) => {
    if (gen !== generation) return;
    event.preventDefault();
    crashed(`The simulation worker crashed: ${event.message || 'the worker script failed to run'}`);
  });
  worker.addEventListener('messageerror', () => {
    if (gen === generation) crashed('The simulation worker sent a message that could not be read.');
  });
  api = Comlink.wrap<WorkerApi>(worker);
  void api.subscribe(Comlink.proxy((message: WorkerMessage) => onMessage(gen, message)));
  // A new worker knows nothing of the selection; tell it which entity the inspector shows.
  void api.send({ type: 'inspect', entity: appStore.getState().selected });
  pingSentAt = undefined;
  watchdog ??= setInterval(checkAlive, PING_EVERY_MS);
}

function checkAlive(): void {
  const remote = api;
  if (!remote) return;
  if (pingSentAt !== undefined) {
    const { error } = appStore.getState();
    if (performance.now() - pingSentAt > HANG_MS && error?.kind !== 'worker-hang' && error?.kind !== 'worker-crash') {
      showError({
        title: 'Simulation not responding',
        message: `The simulation worker has not answered for more than ${HANG_MS / 1000} s.`,
        restartable: true,
        kind: 'worker-hang',
      });
    }
    return;
  }
  if (appStore.getState().status !== 'running') return;
  const gen = generation;
  pingSentAt = performance.now();
  void remote.send({ type: 'ping' }).then(() => {
    if (gen !== generation) return;
    pingSentAt = undefined;
    // A worker that was only slow recovers on its own: withdraw the warning.
    if (appStore.getState().error?.kind === 'worker-hang') appStore.setState({ error: null });
  });
}

/** Asks the simulation why a symptom happened; the chain lands in the why store. */
export async function askWhy(kind: string, entity?: string): Promise<void> {
  if (!loaded()) return;
  const asked = entity === undefined ? { kind } : { kind, entity };
  whyStore.setState({ asked, chain: undefined });
  const reply = await send({ type: 'why', ...asked }, 'Could not explain');
  if (whyStore.getState().asked !== asked) return;
  whyStore.setState({ chain: reply.ok ? reply.value : null });
}

/** The loader's problems with a scenario text (none when it loads) and its outline; the running simulation is not touched. */
export async function checkScenario(text: string, fileName: string): Promise<Replies['check']> {
  const reply = await send({ type: 'check', text, fileName });
  return reply.ok ? reply.value : { problems: [reply.message], outline: [], outlineError: null };
}

/** The text after one of the editor's edits, or the reason it was refused. */
export async function editScenario(text: string, edit: CommandOf<'edit'>['edit']): Promise<{ text: string } | { refused: string }> {
  const reply = await send({ type: 'edit', text, edit });
  return reply.ok ? reply.value : { refused: reply.message };
}

/** The single values of the editor's selected item, or why they cannot be listed. */
export function scenarioFields(text: string, path: YamlPath): Promise<Answer<'fields'>> {
  return send({ type: 'fields', text, path });
}

/** Downloads the run so far as a file: its report, its metric series, or its latest packets. */
export async function exportRun(what: ExportKind): Promise<boolean> {
  if (!loaded()) return false;
  const reply = await send({ type: 'export', what }, 'Could not export');
  if (!reply.ok) return false;
  download(reply.value.fileName, reply.value.mime, reply.value.data);
  return true;
}

/** Keeps the worker's inspected entity equal to the selection. Returns the unsubscribe function. */
export function followSelection(): () => void {
  return appStore.subscribe((s, prev) => {
    if (s.selected !== prev.selected && api) void send({ type: 'inspect', entity: s.selected });
  });
}

async function send<T extends CommandType>(cmd: CommandOf<T>, errorTitle = `Could not ${cmd.type}`): Promise<Answer<T>> {
  if (!api) spawn();
  const reply = (await api!.send(cmd)) as Answer<T>;
  // Errors about the text being edited: their callers show them where it is.
  if (!reply.ok && !['load', 'check', 'edit', 'fields', 'preview'].includes(cmd.type)) {
    showError({ title: errorTitle, message: reply.message, restartable: false, kind: 'input' });
  }
  return reply;
}

/** Loads a scenario; on failure the banner lists each `path: problem` and the current run carries on untouched. */
export async function loadScenario(request: LoadRequest): Promise<boolean> {
  appStore.setState({ busy: true });
  try {
    const cmd: CommandOf<'load'> = { type: 'load', text: request.text, fileName: request.fileName };
    if (request.seed !== undefined) cmd.seed = request.seed;
    if (request.fixes !== undefined && request.fixes.length > 0) cmd.fixes = request.fixes;
    if (request.sets !== undefined && request.sets.length > 0) cmd.sets = request.sets;
    if (request.timeline !== undefined && request.timeline.length > 0) cmd.timeline = request.timeline;
    const reply = await send(cmd);
    if (!reply.ok) {
      showError({ title: `Could not load ${request.fileName}`, message: reply.message, restartable: false, kind: 'input' });
      return false;
    }
    const { scenario, catalog } = reply.value;
    lastGood = request;
    reportRequested = false;
    appStore.setState({
      summary: scenario,
      catalog,
      seed: scenario.seed,
      fixes: request.fixes ?? [],
      loadedFile: request.fileName,
      selectedFile: request.pickerValue,
      report: null,
      status: 'paused',
      pauseAtChapters: true,
    });
    return true;
  } finally {
    appStore.setState({ busy: false });
  }
}

/**
 * Reloads the current scenario (same text, file name and seed) with `fixes` applied in the scenario's order.
 * The run starts again from 0, playing if it was playing. The selection shows at once and reverts if the load fails.
 */
export async function setFixes(fixes: readonly string[]): Promise<boolean> {
  const request = lastGood;
  const { summary, status, seed, fixes: previous } = appStore.getState();
  if (!request || !summary) return false;
  const ordered = orderFixes(summary.fixes, fixes);
  const wasRunning = status === 'running';
  appStore.setState({ fixes: ordered });
  const ok = await loadScenario({ ...request, ...(seed === null ? {} : { seed }), fixes: ordered });
  if (!ok) {
    if (appStore.getState().fixes === ordered) appStore.setState({ fixes: previous });
    return false;
  }
  if (wasRunning) play();
  return true;
}

/** Reloads the scenario with another seed (and the same fixes); the text is checked here so the message names the field. */
export async function reseed(text: string): Promise<boolean> {
  const request = lastGood;
  const { fixes } = appStore.getState();
  const seed = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(seed) || seed > 0xffffffff) {
    showError({ title: 'Could not change the seed', message: `seed: expected a whole number from 0 to 4294967295, got "${text}"`, restartable: false, kind: 'input' });
    return false;
  }
  if (!request) return false;
  return loadScenario({ ...request, seed, fixes });
}

/** Playback commands before the first scenario is in are ignored rather than reported as errors. */
const loaded = (): boolean => appStore.getState().summary !== null;

export function play(): void {
  if (!loaded()) return;
  const { status } = appStore.getState();
  if (status === 'done') {
    void reset().then(() => send({ type: 'play' }));
    return;
  }
  appStore.setState({ status: 'running' });
  void send({ type: 'play' });
}

export function pause(): void {
  if (appStore.getState().status !== 'running') return;
  appStore.setState({ status: 'pausing' });
  void send({ type: 'pause' });
}

export function togglePlay(): void {
  if (appStore.getState().status === 'running') pause();
  else play();
}

/** Whether playing pauses by itself at each chapter start (the worker turns it back on with every load). */
export function setPauseAtChapters(on: boolean): void {
  if (!loaded()) return;
  appStore.setState({ pauseAtChapters: on });
  void send({ type: 'pauseAtChapters', on });
}

export function step(): void {
  if (!loaded()) return;
  void send({ type: 'step' });
}

/**
 * Applies a catalog fault now. The simulation validates it; its message (which names the bad field, e.g.
 * `params.gracePeriodSeconds: must be at least 0`) goes to the error banner. Success shows in the event log only.
 */
export async function applyFault(request: FaultRequest, label: string): Promise<boolean> {
  if (!loaded()) return false;
  const title = `Could not apply ${label}`;
  const reply = await send({ type: 'applyFault', fault: request }, title);
  if (!reply.ok) return false;
  // An earlier rejection of this same fault is no longer true once it has gone through.
  if (appStore.getState().error?.title === title) dismissError();
  return true;
}

export function setSpeed(speed: Speed): void {
  appStore.setState({ speed });
  void send({ type: 'setSpeed', speed });
}

export function changeSpeed(direction: 1 | -1): void {
  setSpeed(nextSpeed(appStore.getState().speed, direction));
}

/**
 * Replays the loaded run to `us` with `faults` applied at their times, as a shared link asks; it stays paused there.
 * Null when it could not, else where the replay went on from (Replies['seek']).
 */
export async function replay(us: number, faults: TimedFault[]): Promise<Replies['seek'] | null> {
  if (!loaded()) return null;
  const reply = await send({ type: 'seek', t: Math.round(us), faults }, 'Could not replay the link');
  return reply.ok ? reply.value : null;
}

/**
 * Moves the run's clock to `us`: forward by running on, backward by a replay of the same run (seed, fixes and the
 * faults applied so far, each at its time). Frames show the progress; the play state carries on afterwards.
 */
export async function seek(us: number): Promise<boolean> {
  if (!loaded()) return false;
  const back = us < frameStore.getState().t;
  const reply = await send({ type: 'seek', t: us }, 'Could not jump');
  if (!reply.ok) return false;
  // A run taken back is no longer done; its report comes again when it is.
  if (back) {
    reportRequested = false;
    appStore.setState({ report: null });
  }
  return true;
}

export async function reset(): Promise<void> {
  reportRequested = false;
  clearFrames();
  appStore.setState({ report: null, status: 'paused' });
  await send({ type: 'reset' });
}

/** The run's report as it stands now (its digest included), or null when it could not be had. */
export async function currentReport(): Promise<RunReport | null> {
  if (!loaded()) return null;
  const reply = await send({ type: 'report' });
  return reply.ok ? reply.value : null;
}

async function fetchReport(): Promise<void> {
  const report = await currentReport();
  // A load or reset may have started a new run meanwhile; a report then belongs to nothing on screen.
  if (report && appStore.getState().status === 'done') appStore.setState({ report });
}

/**
 * Replaces a dead or hung worker: the last good scenario again with the same seed, fixes and speed, replayed with the
 * faults applied by hand to the moment the last frame showed. `cause` is set when this happens without being asked.
 */
export async function restartWorker(cause?: string): Promise<void> {
  const wasRunning = resumeAfterRestart || appStore.getState().status === 'running';
  resumeAfterRestart = false;
  const { t, faultRecord } = frameStore.getState();
  worker?.terminate();
  worker = undefined;
  api = undefined;
  appStore.setState({ error: null, status: 'paused', report: null });
  clearFrames();
  spawn();
  const { speed } = appStore.getState();
  await send({ type: 'setSpeed', speed });
  if (!lastGood) return;
  const request = lastGood;
  const seed = appStore.getState().seed ?? request.seed;
  let ok = await loadScenario(seed === undefined ? request : { ...request, seed, fixes: appStore.getState().fixes });
  let from: number | null = 0;
  if (ok && (t > 0 || faultRecord.length > 0)) {
    const replayed = await replay(t, faultRecord);
    ok = replayed !== null;
    from = replayed?.from ?? null;
  }
  if (ok && cause !== undefined) {
    const faults = faultRecord.length === 0 ? '' : ` with the ${counted(faultRecord.length, 'fault')} you applied`;
    const at = (us: number): string => `${(us / 1e6).toFixed(1)} s`;
    const how =
      from === null || from === 0
        ? `replayed the run to ${at(t)}`
        : from === t
          ? `restored the run's checkpoint at ${at(t)}`
          : `went on from the run's checkpoint at ${at(from)} to ${at(t)}`;
    notify({ message: `${cause.replace(/\.?$/, '.')} A new worker took over and ${how}${faults}.` });
  }
  if (ok && wasRunning) play();
}

/** A scrub's preview of the run at `us` (the worker's preview command), or null to end it; a refusal is the caller's to show. */
export async function preview(us: number | null): Promise<Answer<'preview'> | null> {
  if (!loaded()) return null;
  return send({ type: 'preview', t: us === null ? null : Math.round(us) });
}

/** Has the worker store a checkpoint of the run as it is now, for a compare's branch; its time, or null when it stores none. */
export async function storeCheckpoint(): Promise<number | null> {
  if (!loaded()) return null;
  const reply = await send({ type: 'storeCheckpoint' });
  return reply.ok ? reply.value.atUs : null;
}

/** What the main run was loaded from, for a second run of the same scenario; undefined before the first load. */
export function currentLoad(): LoadRequest | undefined {
  return lastGood;
}

/** Starts the worker ahead of the first command so its module is parsed while the scenario list downloads. */
export function startWorker(): void {
  if (!api) spawn();
}
