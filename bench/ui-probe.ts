import type { Page } from 'playwright-core';

/**
 * What the UI benches install in the page before the app's scripts run: a longtask and long-animation-frame observer,
 * an animation-frame counter, and a listener that logs every frame the simulation worker sends, as it arrives.
 */

export interface LongTask {
  start: number;
  duration: number;
}

export interface LongFrame {
  start: number;
  duration: number;
  /** Where style and layout began (0 when the frame did not render). */
  styleAndLayoutStart: number;
  renderStart: number;
  scriptMs: number;
}

export interface Probe {
  longTasks: LongTask[];
  longFrames: LongFrame[];
  frames: number;
  /**
   * Per worker frame, flat: arrival (performance.now() ms), simulated time (µs), events executed so far, the main
   * thread's milliseconds from arrival to its answer to the worker (-1 until answered): the app's synchronous work on the
   * frame; then what the frame carries: log events, series samples, and 1 when it has the topology.
   */
  frameLog: number[];
  /** Arrival of the first frame that says the run is done, or -1. */
  doneAt: number;
  animationFrames: number;
  playAt: number;
  playEndAt: number;
  framesAtPlay: number;
  animationFramesAtPlay: number;
}

/** Fields per entry of `Probe.frameLog`. */
export const FRAME_LOG_STRIDE = 7;

// Plain script text: tsx would wrap a serialized function with helpers that do not exist in the page.
export const PROBE = `(() => {
  const probe = { longTasks: [], longFrames: [], frames: 0, frameLog: [], doneAt: -1, animationFrames: 0, playAt: -1, playEndAt: -1, framesAtPlay: 0, animationFramesAtPlay: 0 };
  window.__bench = probe;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) probe.longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const scriptMs = (e.scripts || []).reduce((sum, s) => sum + s.duration, 0);
        probe.longFrames.push({ start: e.startTime, duration: e.duration, styleAndLayoutStart: e.styleAndLayoutStart, renderStart: e.renderStart, scriptMs });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch {}
  const tick = () => { probe.animationFrames++; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  // Frames reach the page as Comlink calls on a MessagePort; a second listener, added before the app's, logs them
  // as they arrive without touching the app's. The worker sends the next frame only once the call is answered, and the
  // answer is the port's next postMessage, so its time closes the frame's entry.
  const counted = new WeakSet();
  const add = MessagePort.prototype.addEventListener;
  MessagePort.prototype.addEventListener = function (type, listener, options) {
    if (type === 'message' && !counted.has(this)) {
      counted.add(this);
      let open = -1;
      const post = this.postMessage;
      this.postMessage = function (...args) {
        if (open >= 0) probe.frameLog[open + 3] = performance.now() - probe.frameLog[open];
        open = -1;
        return post.apply(this, args);
      };
      add.call(this, 'message', (event) => {
        const arg = event.data && event.data.argumentList && event.data.argumentList[0];
        const frame = arg && arg.value;
        if (!frame || frame.type !== 'frame') return;
        probe.frames++;
        open = probe.frameLog.length;
        probe.frameLog.push(performance.now(), frame.t, frame.eventsExecuted, -1, frame.events.length, frame.series.count, frame.topology ? 1 : 0);
        if (frame.done && probe.doneAt < 0) probe.doneAt = performance.now();
      });
    }
    return add.call(this, type, listener, options);
  };
})();`;

export async function readProbe(page: Page): Promise<Probe> {
  return JSON.parse(await page.evaluate<string>('JSON.stringify(window.__bench)')) as Probe;
}

/** Marks the start of the measured window: now, and the frame counts so far. */
export async function markPlay(page: Page): Promise<void> {
  await page.evaluate('(() => { const p = window.__bench; p.playAt = performance.now(); p.framesAtPlay = p.frames; p.animationFramesAtPlay = p.animationFrames; })()');
}

export async function markPlayEnd(page: Page): Promise<void> {
  await page.evaluate('window.__bench.playEndAt = performance.now()');
}
