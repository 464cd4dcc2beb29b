import { createStore } from 'zustand/vanilla';
import { useStore } from 'zustand';
import {
  FIX_TOP,
  rankRows,
  sweepCsv,
  sweepHeader,
  sweepReportHtml,
  sweepRow,
  variantLoad,
  type RunReport,
  type SweepBase,
  type SweepHeader,
  type SweepOptions,
  type SweepRow,
  type VariantImpact,
} from '../../sim';
import { appStore, notify } from '../../state/app-store';
import { frameStore } from '../../state/frame-store';
import { shareQuery, type SharedRun } from '../../state/share-link';
import { whyStore } from '../../state/why';
import type { SweepReply, SweepRequest } from '../../worker/sweep-protocol';
import { download } from '../services/download';
import { appUrl } from '../services/run-link';
import { askWhy, currentLoad, currentReport, loadScenario, replay, type LoadRequest } from '../services/sim-client';
import { droppedReasons } from '../drops/drops-panel';
import { closeSweep } from './sweep-open';
import { startSweepPool, type SpawnSweepWorker, type SweepPool } from './pool';
import { variantName } from './rows';

export type SweepPhase = 'idle' | 'planning' | 'running' | 'fixing' | 'done' | 'cancelled' | 'refused';

export interface SweepState {
  phase: SweepPhase;
  /** Workers the pool runs variants on. */
  workers: number;
  /** Variants in the plan; 0 until it is made. */
  total: number;
  /** Variants measured or failed. */
  done: number;
  /** Runs that try the scenario's fixes on the worst rows, once the variants are done, and how many of them are done. */
  fixRuns: number;
  fixRunsDone: number;
  /** Measured variants, ranked (refused ones last). */
  rows: SweepRow[];
  /** Variants whose run failed in its worker, each message naming the variant. */
  failures: { index: number; message: string }[];
  /** Why the sweep did not start: the option or scenario field at fault. */
  error: string | null;
  /** Catalog faults with nothing to land on in this scenario. */
  untargeted: string[];
  /** Risky settings the scenario already has, on these targets (not variants). */
  settingsInEffect: { id: string; target: string }[];
  startedAt: number;
  endedAt: number | null;
  /** What the rows replay. */
  run: SweepBase | null;
  /** The row opened in the app and the digest the app's run reached, once it has. */
  opened: { index: number; digest?: string; problem?: string } | null;
}

const initial: SweepState = {
  phase: 'idle',
  workers: 0,
  total: 0,
  done: 0,
  fixRuns: 0,
  fixRunsDone: 0,
  rows: [],
  failures: [],
  error: null,
  untargeted: [],
  settingsInEffect: [],
  startedAt: 0,
  endedAt: null,
  run: null,
  opened: null,
};

export const sweepStore = createStore<SweepState>(() => initial);

export function useSweep<T>(selector: (s: SweepState) => T): T {
  return useStore(sweepStore, selector);
}

/** The pool's size: one worker per logical core the browser reports, at least one. */
export function poolSize(): number {
  return Math.max(1, Math.floor(navigator.hardwareConcurrency) || 1);
}

const spawnBrowserWorker: SpawnSweepWorker = (listen, crashed) => {
  const worker = new Worker(new URL('../../worker/sweep.worker.ts', import.meta.url), { type: 'module', name: 'sweep' });
  worker.addEventListener('message', (event: MessageEvent<SweepReply>) => listen(event.data));
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    crashed(event.message || 'the worker script failed to run');
  });
  worker.addEventListener('messageerror', () => crashed('it sent a message that could not be read'));
  return { post: (request: SweepRequest) => worker.postMessage(request), terminate: () => worker.terminate() };
};

// Results are gathered here and go to the table at most this often, so a fast pool does not re-render it per variant.
const FLUSH_MS = 250;

let pool: SweepPool | undefined;
/** The table's header once the sweep is planned, for the report. */
let header: SweepHeader | undefined;
let source: { load: LoadRequest; scenario: SharedRun['scenario'] } | undefined;
let measured: SweepRow[] = [];
let pending: { impacts: VariantImpact[]; failures: SweepState['failures'] } = { impacts: [], failures: [] };
let timer: ReturnType<typeof setTimeout> | undefined;

function flush(): void {
  clearTimeout(timer);
  timer = undefined;
  const { impacts, failures } = pending;
  if (impacts.length === 0 && failures.length === 0) return;
  pending = { impacts: [], failures: [] };
  const { run, rows: shown } = sweepStore.getState();
  measured = [...measured, ...impacts.map((impact) => sweepRow(run!, impact))];
  // A row whose rank did not move stays the same object, so the table redraws only the rows that did.
  const before = new Map(shown.map((row) => [row.index, row]));
  const rows = rankRows(measured).map((row) => {
    const same = before.get(row.index);
    return same !== undefined && same.rank === row.rank ? same : row;
  });
  sweepStore.setState((s) => ({
    done: s.done + impacts.length + failures.length,
    rows,
    failures: [...s.failures, ...failures].sort((a, b) => a.index - b.index),
  }));
}

const later = (): void => {
  timer ??= setTimeout(flush, FLUSH_MS);
};

/**
 * Starts a sweep of the scenario as it is loaded now (its text, seed, fixes and any faults it added to the timeline),
 * then tries the scenario's other fixes on the `fixTop` worst rows.
 */
export function startSweep(options: SweepOptions, fixTop = FIX_TOP, size = poolSize(), spawn: SpawnSweepWorker = spawnBrowserWorker): boolean {
  const load = currentLoad();
  const { seed, fixes, summary, selectedFile } = appStore.getState();
  if (!load || seed === null || !summary) return false;
  pool?.cancel();
  clearTimeout(timer);
  timer = undefined;
  measured = [];
  header = undefined;
  pending = { impacts: [], failures: [] };
  const timeline = load.timeline ?? [];
  const sets = load.sets ?? [];
  source = { load: { ...load, seed, fixes }, scenario: selectedFile !== '' ? { file: selectedFile } : { name: load.fileName, text: load.text } };
  const run: SweepBase = { scenario: selectedFile !== '' ? summary.id : load.fileName, seed, fixes, sets, timeline, at: options.at, for: options.for };
  sweepStore.setState({ ...initial, phase: 'planning', workers: size, startedAt: performance.now(), run });
  const finish = (phase: SweepPhase, extra: Partial<SweepState> = {}): void => {
    flush();
    sweepStore.setState({ phase, endedAt: performance.now(), ...extra });
  };
  pool = startSweepPool(
    size,
    spawn,
    { text: load.text, fileName: load.fileName, seed, fixes, ...(sets.length > 0 ? { sets } : {}), ...(timeline.length > 0 ? { timeline } : {}) },
    options,
    {
      planned: (plan) => {
        // No fix has been tried until the fix runs are done; a sweep cancelled before then reports none.
        header = { ...sweepHeader(plan, { scenario: summary.id, source: run.scenario, seed, sets }), fixTop: 0 };
        sweepStore.setState({
          phase: 'running',
          total: plan.variants.length,
          untargeted: [...plan.untargeted, ...plan.settings.untargeted],
          settingsInEffect: plan.settings.inEffect,
          workers: Math.min(size, Math.max(1, plan.variants.length)),
        });
      },
      measured: (impact) => {
        pending.impacts.push(impact);
        later();
      },
      failed: (index, message) => {
        pending.failures.push({ index, message });
        later();
      },
      refused: (message) => finish('refused', { error: message }),
      fixing: (runs) => {
        flush();
        sweepStore.setState({ phase: 'fixing', fixRuns: runs, fixRunsDone: 0 });
      },
      fixRun: () => sweepStore.setState((s) => ({ fixRunsDone: s.fixRunsDone + 1 })),
      fixed: (effects) => {
        measured = measured.map((row) => (effects.has(row.index) ? { ...row, fixEffects: effects.get(row.index)! } : row));
        header = { ...header!, fixTop };
        sweepStore.setState({ rows: rankRows(measured) });
      },
      finished: () => finish('done'),
    },
    fixTop,
  );
  return true;
}

/** Stops every worker at once; the rows already measured stay. */
export function cancelSweep(): void {
  const { phase } = sweepStore.getState();
  if (phase !== 'planning' && phase !== 'running' && phase !== 'fixing') return;
  pool?.cancel();
  flush();
  sweepStore.setState({ phase: 'cancelled', endedAt: performance.now() });
}

/** The run a row replays, as a share link carries it: the sweep's scenario, seed and fixes, its faults in the timeline, at the window's end. */
export function rowRun(row: SweepRow): SharedRun | null {
  const { run } = sweepStore.getState();
  if (!run || !source) return null;
  return { scenario: source.scenario, seed: run.seed, fixes: run.fixes, faults: [], ...variantLoad(run, row), t: Math.round((run.at + run.for) * 1e6) };
}

export function rowLink(row: SweepRow): string | null {
  const shared = rowRun(row);
  return shared && appUrl(shareQuery(shared));
}

/** Resolves once the run's frames show it paused at `us` (a replay runs in slices after the command is taken). */
function reached(us: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const { t, seekTarget } = frameStore.getState();
      return seekTarget === null && t >= us;
    };
    if (check()) return resolve();
    const stop = frameStore.subscribe(() => {
      if (!check()) return;
      stop();
      resolve();
    });
  });
}

/**
 * The why panel on the run's main symptom, asked of the app's run: the fact the row's first why chain starts from (the
 * biggest the faults added), else the report's first chain, else the reason most packets were dropped for.
 */
function explain(row: SweepRow, report: RunReport): void {
  const cause = row.why?.[0]?.cause;
  if (cause) {
    void askWhy(cause.kind, cause.entity);
    return;
  }
  const [chain] = report.why;
  if (chain) {
    whyStore.setState({ asked: { kind: chain.cause.kind, entity: chain.cause.entity }, chain });
    return;
  }
  const [top] = droppedReasons(report.drops);
  if (top) void askWhy(top[0]);
  else notify({ message: 'This variant dropped no packets and recorded no causal chain, so there is no why to show.' });
}

/** Loads a row's variant into the app's run (same scenario, seed and fixes, its faults in the timeline), replays it to the window's end and shows its why. */
export async function openRow(row: SweepRow): Promise<void> {
  const { run } = sweepStore.getState();
  if (!run || !source) return;
  closeSweep();
  sweepStore.setState({ opened: { index: row.index } });
  const end = Math.round((run.at + run.for) * 1e6);
  const ok = (await loadScenario({ ...source.load, ...variantLoad(run, row) })) && (await replay(end, [])) !== null;
  if (!ok) {
    sweepStore.setState({ opened: { index: row.index, problem: 'the app could not load this variant; the banner says why' } });
    return;
  }
  await reached(end);
  const report = await currentReport();
  if (!report) return;
  sweepStore.setState({ opened: { index: row.index, digest: report.digest } });
  const same = report.digest === row.digest ? 'the same as its row' : `not its row's ${row.digest}`;
  notify({
    message: `Sweep variant ${row.index + 1} (${variantName(row)}) replayed to ${run.at + run.for} s: digest ${report.digest}, ${same}.`,
  });
  explain(row, report);
}

const fileStem = (): string => sweepStore.getState().run?.scenario.replace(/\.(ya?ml|json)$/, '') ?? 'sweep';

export function downloadCsv(rows: readonly SweepRow[]): void {
  download(`${fileStem()}-sweep.csv`, 'text/csv', sweepCsv(rows));
}

/** The report the CLI's --html writes, of the rows measured so far: one file that reads offline. */
export function downloadReport(rows: readonly SweepRow[]): void {
  if (header) download(`${fileStem()}-sweep.html`, 'text/html', sweepReportHtml(header, rows));
}
