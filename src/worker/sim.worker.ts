import * as Comlink from 'comlink';
import { type Sim, simTime, loadScenario, type Scenario, createSim, faultCatalog, FAULT_IDS, seriesCsv, applyEdit, blankScenario, outline, fieldsAt } from '../sim';
import { EXPORT_KINDS, exportName, isSpeed, SPEED_ERROR } from './protocol';
import type { Command, ExportKind, Reply, ScenarioSummary, WorkerApi, WorkerMessage } from './protocol';
import { parseFaultRecord } from './fault-record';
import { createRunner } from './runner';

let listener: ((message: WorkerMessage) => unknown) | undefined;
let loaded: { scenario: Scenario; fixes: string[] } | undefined;
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
});

function summarize(s: Scenario): ScenarioSummary {
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    seed: s.seed,
    durationSeconds: s.duration,
    fixes: Object.entries(s.fixes).map(([name, fix]) => ({ name, description: fix.description })),
    chapters: s.chapters,
    charts: s.charts,
  };
}

// Every run keeps the headers of the latest 200,000 packets that left sockets (about 4 MB), so "Export packets" always
// has something to give; counting, not sampling, leaves the run as it is.
const CAPTURE = { every: 1, capacity: 200_000 };

function newSim(scenario: Scenario, fixes: readonly string[]): Sim {
  return createSim(scenario, { fixes, capture: CAPTURE });
}

/** The run so far as a file named after the scenario, seed and simulated time. */
function exportRun(sim: Sim, what: unknown): Reply {
  if (!EXPORT_KINDS.includes(what as ExportKind)) return { type: 'error', message: `what: expected one of ${EXPORT_KINDS.join(', ')}, got ${JSON.stringify(what)}` };
  const base = exportName(sim.scenarioId, sim.seed, sim.now());
  if (what === 'pcap') return { type: 'export', fileName: `${base}.pcap`, mime: 'application/vnd.tcpdump.pcap', data: sim.pcap()! };
  const report = sim.report(runner.wallMs());
  if (what === 'csv') return { type: 'export', fileName: `${base}.csv`, mime: 'text/csv', data: seriesCsv(report) };
  return { type: 'export', fileName: `${base}.json`, mime: 'application/json', data: JSON.stringify(report, null, 2) };
}

function requireSim(): Sim {
  const sim = runner.current();
  if (!sim) throw new Error('no scenario is loaded');
  return sim;
}

function handle(cmd: Command): Reply {
  switch (cmd.type) {
    case 'load': {
      const result = loadScenario(cmd.text, cmd.fileName, { seed: cmd.seed, fixes: cmd.fixes, faultIds: FAULT_IDS, faults: faultCatalog() });
      // On failure the current sim stays loaded and keeps its state.
      if (!result.ok) return { type: 'error', message: result.errors.join('\n') };
      const sim = newSim(result.scenario, result.appliedFixes);
      loaded = { scenario: result.scenario, fixes: result.appliedFixes };
      pauseAtChapters = true;
      applyStops();
      runner.load(sim);
      return { type: 'loaded', scenario: summarize(result.scenario), catalog: sim.faultCatalog() };
    }
    case 'check': {
      const result = loadScenario(cmd.text, cmd.fileName, { faultIds: FAULT_IDS, faults: faultCatalog() });
      const { items, error } = outline(cmd.text);
      return { type: 'checked', problems: result.ok ? [] : result.errors, outline: items, outlineError: error };
    }
    case 'fields':
      return { type: 'fields', ...fieldsAt(cmd.text, cmd.path) };
    case 'edit':
      return { type: 'edited', text: cmd.edit.op === 'blank' ? blankScenario() : applyEdit(cmd.text, cmd.edit).text };
    case 'play':
      requireSim();
      runner.play();
      return { type: 'ok' };
    case 'pause':
      runner.pause();
      return { type: 'ok' };
    case 'step':
      requireSim();
      runner.step();
      return { type: 'ok' };
    case 'setSpeed':
      if (!isSpeed(cmd.speed)) return { type: 'error', message: SPEED_ERROR };
      runner.setSpeed(cmd.speed);
      return { type: 'ok' };
    case 'pauseAtChapters':
      pauseAtChapters = cmd.on === true;
      applyStops();
      return { type: 'ok' };
    case 'reset':
      if (!loaded) throw new Error('no scenario is loaded');
      runner.load(newSim(loaded.scenario, loaded.fixes));
      return { type: 'ok' };
    case 'applyFault':
      requireSim();
      runner.applyFault(cmd.fault);
      return { type: 'ok' };
    case 'seek': {
      const sim = requireSim();
      const current = loaded;
      if (!current) throw new Error('no scenario is loaded');
      if (typeof cmd.t !== 'number' || !Number.isFinite(cmd.t) || cmd.t < 0 || cmd.t > sim.durationUs) {
        return { type: 'error', message: `seek.t: expected a simulated time from 0 to ${sim.durationUs} µs, got ${String(cmd.t)}` };
      }
      const faults = cmd.faults === undefined ? undefined : parseFaultRecord(cmd.faults, sim.durationUs);
      runner.seek(cmd.t, () => newSim(current.scenario, current.fixes), faults);
      return { type: 'ok' };
    }
    case 'report':
      return { type: 'report', report: requireSim().report(runner.wallMs()) };
    case 'why':
      if (typeof cmd.kind !== 'string' || !/^[a-z_]+$/.test(cmd.kind)) return { type: 'error', message: `kind: expected a drop reason or error kind like dns_refused, got ${JSON.stringify(cmd.kind)}` };
      return { type: 'why', chain: requireSim().whyOf(cmd.kind, cmd.entity) };
    case 'inspect':
      if (cmd.entity !== null && (typeof cmd.entity !== 'string' || !/^[a-z]+\/.+/.test(cmd.entity))) {
        return { type: 'error', message: `entity: expected kind/name (like pod/web-0), got ${JSON.stringify(cmd.entity)}` };
      }
      runner.inspect(cmd.entity);
      return { type: 'ok' };
    case 'export':
      return exportRun(requireSim(), cmd.what);
    case 'ping':
      return { type: 'pong', t: runner.current()?.now() ?? simTime(0) };
    default: {
      const unknown: never = cmd;
      return { type: 'error', message: `unknown command ${JSON.stringify(unknown)}` };
    }
  }
}

const api: WorkerApi = {
  async send(cmd) {
    try {
      return handle(cmd);
    } catch (error) {
      return { type: 'error', message: messageOf(error) };
    }
  },
  subscribe(next) {
    listener = next;
  },
};

globalThis.addEventListener('error', (event) => fatal((event as ErrorEvent).error ?? (event as ErrorEvent).message));
globalThis.addEventListener('unhandledrejection', (event) => fatal((event as PromiseRejectionEvent).reason));

Comlink.expose(api);
