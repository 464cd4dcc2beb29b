import { appStore } from '../state/app-store';

/**
 * Runs a redraw on the next animation frame after it is requested, at most once per frame. While the run plays, a
 * paced redraw also waits until `minMs` have passed since its last run, and `costFactor` times what that run took
 * (a heavy redraw runs less often at max speed, so it cannot take the main thread); nothing is lost, as the redraw
 * reads the latest state when it runs. Once the run stops playing, a waiting redraw runs on the next frame.
 */

export interface PaceOptions {
  minMs: number;
  costFactor?: number;
}

export interface Pacer {
  /** A redraw for data the run brought: paced while playing. */
  request(): void;
  /** A redraw for the user (a hover, a zoom, a resize): on the next animation frame. */
  now(): void;
  cancel(): void;
}

const waiting = new Set<() => void>();

appStore.subscribe((s, prev) => {
  if (prev.status === 'running' && s.status !== 'running') for (const flush of [...waiting]) flush();
});

export function createPacer(redraw: () => void, options: PaceOptions): Pacer {
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastAt = -Infinity;
  let lastCost = 0;

  function run(): void {
    raf = 0;
    const started = performance.now();
    redraw();
    lastAt = started;
    lastCost = performance.now() - started;
  }

  function now(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
      waiting.delete(now);
    }
    raf ||= requestAnimationFrame(run);
  }

  return {
    request() {
      if (raf || timer !== undefined) return;
      const gap = Math.max(options.minMs, lastCost * (options.costFactor ?? 0));
      const wait = appStore.getState().status === 'running' ? lastAt + gap - performance.now() : 0;
      if (wait <= 0) {
        raf = requestAnimationFrame(run);
        return;
      }
      waiting.add(now);
      timer = setTimeout(now, wait);
    },
    now,
    cancel() {
      cancelAnimationFrame(raf);
      raf = 0;
      clearTimeout(timer);
      timer = undefined;
      waiting.delete(now);
    },
  };
}
