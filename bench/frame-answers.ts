import { FRAME_LOG_STRIDE } from './ui-probe';

/**
 * The main thread's answer time to each worker frame, grouped by what the frame carried (log events, a series sample,
 * the topology), so a cost that grows with the simulated time per frame shows as a column that grows.
 */

const EVENT_BUCKETS = [
  { label: '0 events', min: 0, max: 0 },
  { label: '1-49', min: 1, max: 49 },
  { label: '50-149', min: 50, max: 149 },
  { label: '150-499', min: 150, max: 499 },
  { label: '500+', min: 500, max: Infinity },
];

export interface AnswerStats {
  n: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

export interface FrameAnswers {
  /** Frames without the topology, by events (rows) and without / with a series sample (columns). */
  byEvents: { label: string; noSample: AnswerStats; withSample: AnswerStats }[];
  topology: AnswerStats;
}

function stats(values: number[]): AnswerStats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { n: sorted.length, medianMs: at(0.5), p95Ms: at(0.95), maxMs: sorted.at(-1) ?? 0 };
}

/** Answered frames arriving in [fromMs, toMs] of the probe's log. */
export function frameAnswers(frameLog: readonly number[], fromMs: number, toMs: number): FrameAnswers {
  const cells = EVENT_BUCKETS.map(() => ({ noSample: [] as number[], withSample: [] as number[] }));
  const topology: number[] = [];
  for (let i = 0; i + FRAME_LOG_STRIDE <= frameLog.length; i += FRAME_LOG_STRIDE) {
    const [at, , , answer, events, samples, hasTopology] = frameLog.slice(i, i + FRAME_LOG_STRIDE) as number[];
    if (at! < fromMs || at! > toMs || answer! < 0) continue;
    if (hasTopology) {
      topology.push(answer!);
      continue;
    }
    const cell = cells[EVENT_BUCKETS.findIndex((b) => events! >= b.min && events! <= b.max)]!;
    (samples! > 0 ? cell.withSample : cell.noSample).push(answer!);
  }
  return {
    byEvents: EVENT_BUCKETS.map((b, i) => ({ label: b.label, noSample: stats(cells[i]!.noSample), withSample: stats(cells[i]!.withSample) })),
    topology: stats(topology),
  };
}

const cell = (s: AnswerStats): string => (s.n === 0 ? '-'.padEnd(26) : `${s.medianMs.toFixed(1)} / ${s.p95Ms.toFixed(1)} / ${s.maxMs.toFixed(0)} (${s.n})`.padEnd(26));

export function printFrameAnswers(a: FrameAnswers, indent = '  '): void {
  console.log(`${indent}answer to a frame by what it carries, ms median / p95 / max (frames):`);
  console.log(`${indent}  ${''.padEnd(9)} ${'no series sample'.padEnd(26)} with a series sample`);
  for (const row of a.byEvents) {
    if (row.noSample.n + row.withSample.n === 0) continue;
    console.log(`${indent}  ${row.label.padEnd(9)} ${cell(row.noSample)} ${cell(row.withSample).trimEnd()}`);
  }
  if (a.topology.n > 0) console.log(`${indent}  with the topology: ${cell(a.topology).trimEnd()}`);
}
