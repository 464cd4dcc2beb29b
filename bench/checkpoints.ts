import { loadShipped } from './shipped';
import { performance } from 'node:perf_hooks';
import { atSeconds } from '../src/sim/core/time';
import type { Sim } from '../src/sim/api';
import { createSim } from '../src/sim/sim';
import { RUN_CAPTURE } from '../src/worker/protocol';
import { createRunner, type Runner } from '../src/worker/runner';

/**
 * Issue 25's check, on the worker's own runner in Node: a scenario played at max speed to a time, then jumps back and
 * forth, each timed from the seek to the run standing at its target; then the digest a little later, against a run
 * straight from 0. The runner keeps its checkpoints as it plays, as it does in the browser's worker.
 */

export interface Jump {
  toS: number;
  wallMs: number;
  /** Where the run went on from: a checkpoint's time, or 0 for a fresh build. */
  fromS: number;
}

/** A scrub's preview of a moment: its first answer (a restore and up to 40 ms of running), and the call that reached it. */
export interface PreviewFigure {
  toS: number;
  firstMs: number;
  firstS: number;
  reachedMs: number;
}

export interface CheckpointFigures {
  scenario: string;
  playedToS: number;
  playWallMs: number;
  checkpoints: number;
  checkpointMb: number;
  jumps: Jump[];
  previews: PreviewFigure[];
  /** Why the run gives no previews (it keeps no checkpoints), if it does not. */
  noPreview?: string;
  checkS: number;
  sameDigest: boolean;
}

/** Ticks the runner (as the worker's timer would) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** The check for its-not-dns; for the others the same shape, scaled to each run's length. */
export function jumpsFor(id: string, durationS: number): { playToS: number; jumpsS: number[]; checkS: number } {
  if (id === 'its-not-dns') return { playToS: 200, jumpsS: [50, 150, 60], checkS: 210 };
  const at = (share: number) => Math.round(durationS * share);
  return { playToS: at(0.9), jumpsS: [at(0.25), at(0.7), at(0.3)], checkS: durationS };
}

export function shippedDuration(id: string): number {
  return loadShipped(id).duration;
}

export async function measureCheckpoints(id: string, playToS: number, jumpsS: readonly number[], checkS: number): Promise<CheckpointFigures> {
  const scenario = loadShipped(id);
  const fresh = (): Sim => createSim(scenario, { capture: RUN_CAPTURE });
  const runner: Runner = createRunner({
    clock: { now: () => performance.now() },
    timer: {
      schedule(callback, delayMs) {
        const handle = setTimeout(callback, delayMs);
        return () => clearTimeout(handle);
      },
    },
    post: () => undefined,
    onError: (error) => {
      throw error;
    },
  });
  runner.load(fresh());
  runner.setSpeed('max');
  runner.setStops([atSeconds(playToS)]);
  const started = performance.now();
  runner.play();
  await until(() => !runner.running());
  const playWallMs = performance.now() - started;
  // Scrubs first, from the run standing where it was played to, as a drag over the lane would ask.
  const previews: PreviewFigure[] = [];
  let noPreview: string | undefined;
  try {
    for (const toS of jumpsS) {
      const t0 = performance.now();
      const first = runner.preview(atSeconds(toS))!;
      const firstMs = performance.now() - t0;
      while (runner.preview(atSeconds(toS))!.t < atSeconds(toS));
      previews.push({ toS, firstMs, firstS: first.t / 1e6, reachedMs: performance.now() - t0 });
    }
  } catch (error) {
    noPreview = (error as Error).message;
  }
  runner.preview(null);
  const jumps: Jump[] = [];
  for (const toS of jumpsS) {
    const t0 = performance.now();
    let built = false;
    runner.seek(atSeconds(toS), () => {
      built = true;
      return fresh();
    });
    const fromS = built ? 0 : runner.current()!.now() / 1e6;
    await until(() => !runner.seeking());
    jumps.push({ toS, wallMs: performance.now() - t0, fromS });
  }
  runner.seek(atSeconds(checkS), fresh);
  await until(() => !runner.seeking());
  const straight = fresh();
  straight.runUntil(atSeconds(checkS));
  const sameDigest = runner.current()!.report(0).digest === straight.report(0).digest;
  const kept = runner.checkpoints();
  const figures = {
    scenario: id,
    playedToS: playToS,
    playWallMs,
    checkpoints: kept.count,
    checkpointMb: kept.bytes / 1e6,
    jumps,
    previews,
    ...(noPreview === undefined ? {} : { noPreview }),
    checkS,
    sameDigest,
  };
  runner.dispose();
  return figures;
}

export function printCheckpoints(f: CheckpointFigures): void {
  console.log(`${f.scenario}: played to ${f.playedToS} s in ${(f.playWallMs / 1000).toFixed(1)} s wall, keeping ${f.checkpoints} checkpoints (${f.checkpointMb.toFixed(0)} MB, estimated)`);
  for (const j of f.jumps) console.log(`  jump to ${String(j.toS).padStart(4)} s: ${Math.round(j.wallMs).toLocaleString('en-US').padStart(6)} ms, from ${j.fromS.toFixed(1)} s`);
  for (const p of f.previews) {
    console.log(
      `  preview of ${String(p.toS).padStart(4)} s: first ${Math.round(p.firstMs).toLocaleString('en-US').padStart(6)} ms (at ${p.firstS.toFixed(1)} s), there in ${Math.round(p.reachedMs).toLocaleString('en-US')} ms`,
    );
  }
  if (f.noPreview !== undefined) console.log(`  no previews: ${f.noPreview}`);
  console.log(`  digest at ${f.checkS} s ${f.sameDigest ? 'the same as' : 'DIFFERENT from'} a straight run's`);
}
