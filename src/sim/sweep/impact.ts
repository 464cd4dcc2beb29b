import type { FaultRequest } from '../api';
import type { SweepPlan, VariantRun } from './plan';
import type { SettingUse } from './settings';
import { whyBeyond, type RowWhy } from './why';
import { slowerThan, windowQuantile, type ClientWindow } from './window';

/** A count in the unfaulted run and in the variant's, over the same window, and what the faults added. */
export interface Delta {
  baseline: number;
  variant: number;
  extra: number;
}

/** One variant against the unfaulted run: what clients saw from the fault's step to the window's end */
export interface VariantImpact {
  index: number;
  faults: FaultRequest[];
  /** The risky setting the variant's run had from time 0, if any. */
  setting?: SettingUse;
  /** Why a fault could not land; nothing else is measured then. */
  refused?: string;
  /** The variant run's report digest, which its replay reproduces. */
  digest?: string;
  /** Client requests that failed: HTTP and mesh requests and gRPC calls. */
  failedRequests?: Delta;
  /** HTTP clients' connections never established or ended by a reset. */
  failedConnections?: Delta;
  /** Requests slower than the unfaulted run's p99 (to its bucket's bound), per latency histogram with observations. */
  slowRequests?: Record<string, Delta>;
  /** p99 latency in ms over the window, per latency histogram with observations in either run. */
  p99Ms?: Record<string, { baseline: number | null; variant: number | null }>;
  /**
   * Seconds after the fault from which every step's failure rate is back within the unfaulted run's worst step in the
   * window: 0 when it never left it, null when it had not come back when the window ended.
   */
  recoveredAfterS?: number | null;
  /** What clients suffered beyond the unfaulted run: failedRequests.extra + failedConnections.extra + the slowRequests' extra. */
  score?: number;
  /** The why chains of the variant's run that the unfaulted run lacks or has far less of, the biggest first. */
  why?: RowWhy[];
  /** Requests answered and failed, and connections failed, in each metrics step of the window, as in ClientWindow. */
  perStep?: PerStep;
}

/** What clients saw in each metrics step of a window: requests answered and failed, and HTTP connections that failed. */
export interface PerStep {
  ok: number[];
  failed: number[];
  failedConnections: number[];
}

export const perStep = ({ ok, failed, failedConnections }: ClientWindow): PerStep => ({ ok, failed, failedConnections });

const delta = (baseline: number, variant: number): Delta => ({ baseline, variant, extra: variant - baseline });
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Failed over completed requests in each step; a step in which nothing completed while the unfaulted run's did counts as all failed. */
function failureRates(w: ClientWindow, reference: ClientWindow): number[] {
  return w.ok.map((ok, k) => {
    const done = ok + w.failed[k]!;
    if (done > 0) return w.failed[k]! / done;
    return (reference.ok[k] ?? 0) + (reference.failed[k] ?? 0) > 0 ? 1 : 0;
  });
}

function recovery(plan: Pick<SweepPlan, 'baseline' | 'options'>, w: ClientWindow): number | null {
  const { stepSeconds } = w;
  // The window's first step ends at the first whole step after the fault (or at it, when the fault lands on one).
  const firstStepEnd = Math.ceil(plan.options.at / stepSeconds) * stepSeconds || stepSeconds;
  const base = plan.baseline.window;
  const tolerated = Math.max(0, ...failureRates(base, base));
  const rates = failureRates(w, base);
  let lastBad = -1;
  rates.forEach((r, k) => {
    if (r > tolerated) lastBad = k;
  });
  if (lastBad < 0) return 0;
  if (lastBad === rates.length - 1) return null;
  return Math.max(0, Math.round((firstStepEnd + lastBad * stepSeconds - plan.options.at) * 1e6) / 1e6);
}

/** Measures a variant's run against the plan's unfaulted run. */
export function impactOf(plan: Pick<SweepPlan, 'variants' | 'baseline' | 'options'>, run: VariantRun): VariantImpact {
  const { faults, setting } = plan.variants[run.index]!;
  const what = { index: run.index, faults, ...(setting ? { setting } : {}) };
  if ('refused' in run) return { ...what, refused: run.refused };
  const base = plan.baseline.window;
  const w = run.window;
  const failedRequests = delta(sum(base.failed), sum(w.failed));
  const slowRequests: Record<string, Delta> = {};
  const p99Ms: Record<string, { baseline: number | null; variant: number | null }> = {};
  for (const name of [...new Set([...Object.keys(base.latency), ...Object.keys(w.latency)])].sort()) {
    const b = base.latency[name];
    const v = w.latency[name];
    p99Ms[name] = { baseline: b ? round3(windowQuantile(0.99, b)) : null, variant: v ? round3(windowQuantile(0.99, v)) : null };
    if (!b) continue;
    const p99 = windowQuantile(0.99, b);
    slowRequests[name] = delta(slowerThan(p99, b), v ? slowerThan(p99, v) : 0);
  }
  const failedConnections = delta(sum(base.failedConnections), sum(w.failedConnections));
  return {
    ...what,
    digest: run.digest,
    failedRequests,
    failedConnections,
    slowRequests,
    p99Ms,
    recoveredAfterS: recovery(plan, w),
    score: failedRequests.extra + failedConnections.extra + sum(Object.values(slowRequests).map((d) => d.extra)),
    why: whyBeyond(plan.baseline.why, run.why),
    perStep: perStep(w),
  };
}

/**
 * The ranking: highest score first; then not recovered, then the longest recovery; then the most extra failed
 * requests; then the variant's index (catalog order, targets in scenario order, singles before pairs). Refused
 * variants come last, by index.
 */
export function compareImpacts(a: VariantImpact, b: VariantImpact): number {
  const refused = Number(a.refused !== undefined) - Number(b.refused !== undefined);
  if (refused !== 0 || a.refused !== undefined) return refused || a.index - b.index;
  const recovery = (i: VariantImpact): number => (i.recoveredAfterS === null ? Infinity : i.recoveredAfterS!);
  return b.score! - a.score! || (recovery(b) === recovery(a) ? 0 : recovery(b) > recovery(a) ? 1 : -1) || b.failedRequests!.extra - a.failedRequests!.extra || a.index - b.index;
}
