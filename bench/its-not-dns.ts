import { loadShipped } from './shipped';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { atSeconds } from '../src/sim/core/time';
import { createSim } from '../src/sim/sim';

/**
 * The shipped "It wasn't DNS" replay run the way the CLI runs it, timed as a whole and in three windows: before the
 * rollout, the rollout with its reconnect storm, and the recovery. Their costs differ tenfold, so the whole-run figure
 * alone would hide where the time goes. The heap is read once a simulated second, so its peak is the run's, not the
 * end's.
 */

setFlagsFromString('--expose-gc');
/** A full collection before each run, so its peak heap is its own and not the garbage of the bench before it. */
const collect = runInNewContext('gc') as () => void;

export interface WindowFigures {
  label: string;
  from: number;
  to: number;
  wallMs: number;
  events: number;
  simSecondsPerWallSecond: number;
}

export interface ReplayFigures {
  sets: string[];
  simulatedSeconds: number;
  wallMs: number;
  events: number;
  simSecondsPerWallSecond: number;
  windows: WindowFigures[];
  synsSent: number;
  peakHeapMb: number;
  /** Memory outside the JavaScript heap (typed arrays' buffers: the conntrack tables, the packet pool), at its peak. */
  peakExternalMb: number;
}

/** Seconds at which the scenario's rollout starts: its first timeline entry. */
function rolloutAt(timeline: { at: number }[]): number {
  const first = timeline[0];
  if (!first) throw new Error('its-not-dns has no timeline: nothing rolls');
  return first.at;
}

/** Loads the shipped scenario with `sets` and runs it to the end, timing each window; `untilS` cuts the run short. */
export function runItsNotDnsBench(sets: string[] = [], untilS?: number): ReplayFigures {
  const scenario = loadShipped('its-not-dns', sets);
  const end = Math.min(untilS ?? Infinity, scenario.duration);
  const roll = rolloutAt(scenario.timeline);
  const bounds: [string, number, number][] = [
    ['before the rollout', 0, Math.min(roll, end)],
    ['rollout and storm', Math.min(roll, end), Math.min(roll + 60, end)],
    ['recovery', Math.min(roll + 60, end), end],
  ];
  collect();
  let peakHeap = process.memoryUsage().heapUsed;
  let peakExternal = process.memoryUsage().external;
  const started = performance.now();
  const sim = createSim(scenario);
  const windows: WindowFigures[] = [];
  for (const [label, from, to] of bounds) {
    if (to <= from) continue;
    const events = sim.eventsExecuted();
    const t0 = performance.now();
    for (let t = from + 1; t <= to; t++) {
      sim.runUntil(atSeconds(t));
      const memory = process.memoryUsage();
      peakHeap = Math.max(peakHeap, memory.heapUsed);
      peakExternal = Math.max(peakExternal, memory.external);
    }
    const wallMs = performance.now() - t0;
    windows.push({ label, from, to, wallMs, events: sim.eventsExecuted() - events, simSecondsPerWallSecond: (to - from) / (wallMs / 1000) });
  }
  const wallMs = performance.now() - started;
  const report = sim.report(wallMs);
  return {
    sets,
    simulatedSeconds: end,
    wallMs,
    events: sim.eventsExecuted(),
    simSecondsPerWallSecond: end / (wallMs / 1000),
    windows,
    synsSent: report.totals['tcp.syn.sent'] ?? 0,
    peakHeapMb: peakHeap / 2 ** 20,
    peakExternalMb: peakExternal / 2 ** 20,
  };
}

export function printReplay(f: ReplayFigures): void {
  const variant = f.sets.length > 0 ? `--set ${f.sets.join(' --set ')}` : 'as shipped';
  console.log(
    `${variant}: ${f.simulatedSeconds} simulated s in ${(f.wallMs / 1000).toFixed(1)} s → ${f.simSecondsPerWallSecond.toFixed(2)} simulated s per wall s ` +
      `(${f.events.toLocaleString('en-US')} events, ${f.synsSent.toLocaleString('en-US')} SYNs, peak heap ${f.peakHeapMb.toFixed(0)} MB + ${f.peakExternalMb.toFixed(0)} MB outside it)`,
  );
  for (const w of f.windows) {
    console.log(
      `  ${w.label.padEnd(20)} ${String(w.from).padStart(3)}-${String(w.to).padEnd(3)} s: ${w.events.toLocaleString('en-US').padStart(11)} events in ` +
        `${(w.wallMs / 1000).toFixed(1).padStart(5)} s → ${w.simSecondsPerWallSecond.toFixed(2)} simulated s per wall s`,
    );
  }
}

/**
 * One row per client count, each run to `untilS` (the storm's peak is inside the first 90 s): if the cost of a
 * simulated second grows no faster than the clients, the last column stays flat or falls.
 */
export function printScaling(clients: number[], untilS: number): void {
  console.log(`clients | simulated s | wall s | simulated s per wall s | events | peak heap MB | wall ms per simulated s per 1,000 clients`);
  for (const n of clients) {
    const f = runItsNotDnsBench([`params.alerting.replicas=${n}`], untilS);
    const perSecond = f.wallMs / f.simulatedSeconds;
    console.log(
      `${String(n).padStart(7)} | ${String(f.simulatedSeconds).padStart(11)} | ${(f.wallMs / 1000).toFixed(1).padStart(6)} | ` +
        `${f.simSecondsPerWallSecond.toFixed(2).padStart(22)} | ${f.events.toLocaleString('en-US').padStart(11)} | ${f.peakHeapMb.toFixed(0).padStart(12)} | ` +
        `${((perSecond * 1000) / n).toFixed(1).padStart(8)}`,
    );
  }
}
