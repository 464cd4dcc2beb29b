import { appStore } from '../../state/app-store';

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

/**
 * Paced redraws share each animation frame's task: once they have spent this much of one, the rest wait for the next
 * frame, so a relayout of the topology and a redraw of every chart do not land in one long task with their rendering.
 */
const FRAME_BUDGET_MS = 12;
let frameStamp = -1;
let spentInFrame = 0;

appStore.subscribe((s, prev) => {
  if (prev.status === 'running' && s.status !== 'running') for (const flush of [...waiting]) flush();
});

export function createPacer(redraw: () => void, options: PaceOptions): Pacer {
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastAt = -Infinity;
  let lastCost = 0;
  // Asked for by the user: runs in the coming frame whatever the others spent.
  let urgent = false;

  function run(stamp: number): void {
    raf = 0;
    // Every callback of one animation frame gets the same timestamp.
    if (stamp !== frameStamp) {
      frameStamp = stamp;
      spentInFrame = 0;
    }
    if (!urgent && spentInFrame >= FRAME_BUDGET_MS) {
      raf = requestAnimationFrame(run);
      return;
    }
    urgent = false;
    const started = performance.now();
    redraw();
    lastAt = started;
    lastCost = performance.now() - started;
    spentInFrame += lastCost;
  }

  function wake(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
      waiting.delete(wake);
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
      waiting.add(wake);
      timer = setTimeout(wake, wait);
    },
    now() {
      urgent = true;
      wake();
    },
    cancel() {
      cancelAnimationFrame(raf);
      raf = 0;
      urgent = false;
      clearTimeout(timer);
      timer = undefined;
      waiting.delete(wake);
    },
  };
}
