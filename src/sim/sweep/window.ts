import type { SeriesSlice } from '../api';
import { bucketQuantile } from '../core/metrics';

/** What clients saw during a run's window, read from its own metric series. */
export interface ClientWindow {
  stepSeconds: number;
  /** Requests answered and failed in each metrics step of the window: HTTP and mesh clients' plus gRPC calls. */
  ok: number[];
  failed: number[];
  /** HTTP clients' connections that never got established or that a reset ended, in each step. */
  failedConnections: number[];
  /** The client latency histograms with observations in the window, by name. */
  latency: Record<string, LatencyWindow>;
}

export interface LatencyWindow {
  bounds: number[];
  /** Observations per bucket, the last one above every bound. */
  counts: number[];
  total: number;
}

// Counters both kinds of request client add to: HTTP and mesh clients share `requests.*` (apps/http-client.ts,
// discovery/mesh-client.ts); gRPC calls count once each, retries included (apps/grpc-client.ts).
const REQUESTS_OK = ['requests.ok', 'grpc.client.ok'];
const REQUESTS_FAILED = ['requests.failed', 'grpc.client.failed'];
const CONNECTIONS_FAILED = ['client.connections.failed', 'client.connections.reset'];
/** The histograms of latency as clients measure it; proxies' upstream requests have their own prefix and are not in it. */
export const CLIENT_LATENCY = ['requests.latency_ms', 'grpc.client.latency_ms'];

/** The first sample whose step holds the fault's time: effects at the very instant count in the step that ends then. */
export function windowStart(at: number, stepSeconds: number): number {
  return Math.max(0, Math.ceil(at / stepSeconds) - 1);
}

/** The window of a slice that starts at the window's first sample and ends where the run stopped. */
export function clientWindow(slice: SeriesSlice): ClientWindow {
  const row = (name: string): Float64Array | null => {
    const i = slice.names.indexOf(name);
    return i < 0 ? null : slice.values.subarray(i * slice.count, (i + 1) * slice.count);
  };
  const perStep = (names: string[]): number[] => {
    const out = new Array<number>(slice.count).fill(0);
    for (const values of names.map(row)) values?.forEach((v, k) => (out[k]! += v));
    return out;
  };
  const sum = (values: Float64Array | null): number => (values ? values.reduce((a, b) => a + b, 0) : 0);
  const latency: Record<string, LatencyWindow> = {};
  for (const name of CLIENT_LATENCY) {
    const total = sum(row(`${name}.count`));
    if (total === 0) continue;
    const prefix = `${name}.le_`;
    const bounds = slice.names
      .filter((n) => n.startsWith(prefix) && !n.includes('{'))
      .map((n) => Number(n.slice(prefix.length)))
      .sort((a, b) => a - b);
    // The `le_` series are cumulative within each step; the bucket counts are their differences.
    const cumulative = bounds.map((b) => sum(row(`${prefix}${b}`)));
    const counts = cumulative.map((c, i) => c - (i === 0 ? 0 : cumulative[i - 1]!));
    counts.push(total - (cumulative[cumulative.length - 1] ?? 0));
    latency[name] = { bounds, counts, total };
  }
  return {
    stepSeconds: slice.stepSeconds,
    ok: perStep(REQUESTS_OK),
    failed: perStep(REQUESTS_FAILED),
    failedConnections: perStep(CONNECTIONS_FAILED),
    latency,
  };
}

/** A quantile of the window's observations, interpolated within its bucket as the live `.p99` series are. */
export function windowQuantile(q: number, h: LatencyWindow): number {
  return bucketQuantile(q, h.bounds, Float64Array.from(h.counts), h.total);
}

/** Observations above the first bucket bound at or above `ms` (all that are certainly slower than it). */
export function slowerThan(ms: number, h: LatencyWindow): number {
  const b = h.bounds.findIndex((bound) => bound >= ms);
  if (b < 0) return h.counts[h.counts.length - 1]!;
  return h.counts.slice(b + 1).reduce((a, c) => a + c, 0);
}
