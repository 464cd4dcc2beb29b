import * as Comlink from 'comlink';
import { type Sim, simTime, loadScenario, type Scenario, createSim, faultCatalog, FAULT_IDS, fixRolloutProblem, seriesCsv, applyEdit, blankScenario, outline, fieldsAt } from '../sim';
import { EXPORT_KINDS, exportName, isSpeed, RUN_CAPTURE, SPEED_ERROR } from './protocol';
import type { Answer, CommandOf, CommandType, ExportKind, Replies, ScenarioSummary, WorkerApi, WorkerMessage } from './protocol';
import { parseFaultRecord } from './fault-record';
import { loadWithAdditions } from './load-with-additions';
import { createRunner } from './runner';
import type { Kept } from './checkpoints';
import { runKey, StoredCheckpoints } from './stored-checkpoints';

let listener: ((message: WorkerMessage) => unknown) | undefined;
let loaded: { scenario: Scenario; fixes: string[]; store: boolean; key?: string } | undefined;
let pauseAtChapters = true;

function applyStops(): void {
  runner.setStops(pauseAtChapters && loaded ? loaded.scenario.chapters.map((c) => Math.round(c.at * 1e6)) : []);
}

function deliver(message: WorkerMessage, transfer: ArrayBuffer[] = []): Promise<unknown> | undefined {
  if (!listener) return undefined;
  // The UI may be gone or reloading; a failed delivery must not become an unhandled rejection here.
  return Promise.resolve(listener(Comlink.transfer(message, transfer))).catch(() => undefined);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function fatal(error: unknown): void {
  runner.pause();
  void deliver({ type: 'fatal', message: messageOf(error) });
}

// Without IndexedDB (some private windows) nothing is stored and every recovery replays from 0.
const stored = typeof indexedDB === 'undefined' ? undefined : new StoredCheckpoints();
// How long a load waits for IndexedDB to say whether it has a checkpoint of the run, before going on without one.
const STORED_WAIT_MS = 2_000;

const runner = createRunner({
  clock: { now: () => performance.now() },
  timer: {
    schedule(callback, delayMs) {
      const id = setTimeout(callback, delayMs);
      return () => clearTimeout(id);
    },
  },
  post: deliver,
  onError: fatal,
  onCheckpoint: (kept) => {
    if (loaded?.key !== undefined && loaded.store) stored?.offer(loaded.key, kept);
  },
});

/** The stored checkpoint of the run just loaded, adopted by the runner; undefined when there is none or storage is slow or broken. */
async function adoptStored(run: NonNullable<typeof loaded>): Promise<Kept | undefined> {
  if (!stored) return undefined;
  try {
    const key = await runKey(run.scenario, run.fixes);
    if (loaded !== run) return undefined;
    run.key = key;
    const kept = await Promise.race([stored.load(key), new Promise<undefined>((resolve) => setTimeout(resolve, STORED_WAIT_MS))]);
    if (!kept || loaded !== run) return undefined;
    runner.adopt(kept);
    return kept;
  } catch {
    return undefined;
  }
}

function summarize(s: Scenario): ScenarioSummary {
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    seed: s.seed,
    durationSeconds: s.duration,
    fixes: Object.entries(s.fixes).map(([name, fix]) => ({ name, description: fix.description, rollout: fixRolloutProblem(s, name) })),
    chapters: s.chapters,
    charts: s.charts,
  };
}

function newSim(scenario: Scenario, fixes: readonly string[]): Sim {
  return createSim(scenario, { fixes, capture: RUN_CAPTURE });
}

/** The run so far as a file named after the scenario, seed and simulated time. */
function exportRun(sim: Sim, what: unknown): Replies['export'] {
  if (!EXPORT_KINDS.includes(what as ExportKind)) throw new Error(`what: expected one of ${EXPORT_KINDS.join(', ')}, got ${JSON.stringify(what)}`);
  const base = exportName(sim.scenarioId, sim.seed, sim.now());
  if (what === 'pcap') return { fileName: `${base}.pcap`, mime: 'application/vnd.tcpdump.pcap', data: sim.pcap()! };
  const report = sim.report(runner.wallMs());
  if (what === 'csv') return { fileName: `${base}.csv`, mime: 'text/csv', data: seriesCsv(report) };
  return { fileName: `${base}.json`, mime: 'application/json', data: JSON.stringify(report, null, 2) };
}

function requireSim(): Sim {
  const sim = runner.current();
  if (!sim) throw new Error('no scenario is loaded');
  return sim;
}

/** `value` as a simulated time (µs) within the run; throws naming `field`. */
function timeIn(sim: Sim, value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > sim.durationUs) {
    throw new Error(`${field}: expected a simulated time from 0 to ${sim.durationUs} µs, got ${String(value)}`);
  }
  return value;
}

function requireLoaded(): { scenario: Scenario; fixes: string[] } {
  if (!loaded) throw new Error('no scenario is loaded');
  return loaded;
}

/** One handler per command, answering with that command's reply or throwing an Error whose message names the field. */
const handlers: { [T in CommandType]: (cmd: CommandOf<T>) => Replies[T] | Promise<Replies[T]> } = {
  async load(cmd) {
    const result = loadWithAdditions(cmd.text, cmd.fileName, cmd, 'load.timeline');
    // On failure the current sim stays loaded and keeps its state.
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const sim = newSim(result.scenario, result.appliedFixes);
    const run = (loaded = { scenario: result.scenario, fixes: result.appliedFixes, store: cmd.store !== false });
    pauseAtChapters = true;
    stored?.withdraw();
    applyStops();
    runner.load(sim);
    const kept = await adoptStored(run);
    return { scenario: summarize(result.scenario), catalog: sim.faultCatalog(), storedAt: kept?.checkpoint.atUs ?? null };
  },
  check(cmd) {
    const result = loadScenario(cmd.text, cmd.fileName, { faultIds: FAULT_IDS, faults: faultCatalog() });
    const { items, error } = outline(cmd.text);
    return { problems: result.ok ? [] : result.errors, outline: items, outlineError: error };
  },
  fields: (cmd) => fieldsAt(cmd.text, cmd.path),
  edit: (cmd) => ({ text: cmd.edit.op === 'blank' ? blankScenario() : applyEdit(cmd.text, cmd.edit).text }),
  play() {
    requireSim();
    runner.play();
    return null;
  },
  pause() {
    runner.pause();
    return null;
  },
  step() {
    requireSim();
    runner.step();
    return null;
  },
  setSpeed(cmd) {
    if (!isSpeed(cmd.speed)) throw new Error(SPEED_ERROR);
    runner.setSpeed(cmd.speed);
    return null;
  },
  pauseAtChapters(cmd) {
    pauseAtChapters = cmd.on === true;
    applyStops();
    return null;
  },
  reset() {
    const current = requireLoaded();
    runner.load(newSim(current.scenario, current.fixes));
    return null;
  },
  applyFault(cmd) {
    requireSim();
    runner.applyFault(cmd.fault);
    return null;
  },
  seek(cmd) {
    const sim = requireSim();
    const current = requireLoaded();
    const t = timeIn(sim, cmd.t, 'seek.t');
    const faults = cmd.faults === undefined ? undefined : parseFaultRecord(cmd.faults, sim.durationUs);
    if (cmd.id !== undefined && !Number.isSafeInteger(cmd.id)) throw new Error(`seek.id: expected an integer, got ${String(cmd.id)}`);
    return { from: runner.seek(t, () => newSim(current.scenario, current.fixes), faults, cmd.id) };
  },
  preview(cmd) {
    return runner.preview(cmd.t === null ? null : timeIn(requireSim(), cmd.t, 'preview.t'));
  },
  async storeCheckpoint() {
    requireSim();
    const key = loaded?.key;
    const kept = runner.checkpointNow();
    if (!stored || key === undefined || !kept) return { atUs: null };
    try {
      await stored.saveNow(key, kept);
    } catch {
      // Storage full or refused: run B replays to the moment instead.
      return { atUs: null };
    }
    return { atUs: kept.checkpoint.atUs };
  },
  report: () => requireSim().report(runner.wallMs()),
  why(cmd) {
    if (typeof cmd.kind !== 'string' || !/^[a-z_]+$/.test(cmd.kind)) throw new Error(`kind: expected a drop reason or error kind like dns_refused, got ${JSON.stringify(cmd.kind)}`);
    return requireSim().whyOf(cmd.kind, cmd.entity);
  },
  inspect(cmd) {
    if (cmd.entity !== null && (typeof cmd.entity !== 'string' || !/^[a-z]+\/.+/.test(cmd.entity))) {
      throw new Error(`entity: expected kind/name (like pod/web-0), got ${JSON.stringify(cmd.entity)}`);
    }
    runner.inspect(cmd.entity);
    return null;
  },
  export: (cmd) => exportRun(requireSim(), cmd.what),
  ping: () => runner.current()?.now() ?? simTime(0),
};

const api: WorkerApi = {
  async send<T extends CommandType>(cmd: CommandOf<T>): Promise<Answer<T>> {
    // Commands arrive as data from another thread: one the protocol does not name is refused, not trusted.
    const type: unknown = (cmd as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !Object.hasOwn(handlers, type)) return { ok: false, message: `unknown command ${JSON.stringify(type)}` };
    try {
      return { ok: true, value: await (handlers[cmd.type] as (c: CommandOf<T>) => Replies[T] | Promise<Replies[T]>)(cmd) };
    } catch (error) {
      return { ok: false, message: messageOf(error) };
    }
  },
  subscribe(next) {
    listener = next;
  },
};

globalThis.addEventListener('error', (event) => fatal((event as ErrorEvent).error ?? (event as ErrorEvent).message));
globalThis.addEventListener('unhandledrejection', (event) => fatal((event as PromiseRejectionEvent).reason));

Comlink.expose(api);
