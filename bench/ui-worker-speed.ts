import type { Browser, Page } from 'playwright-core';
import { frameAnswers, printFrameAnswers, type FrameAnswers } from './frame-answers';
import { noteErrorBanner, openItsNotDns } from './open-its-not-dns';
import { simRate, type SimRate } from './sim-rate';
import { markPlay, markPlayEnd, readProbe, type LongTask } from './ui-probe';
import { LONG_TASK_BAR_MS, longTaskStats } from './ui-responsiveness';

/**
 * Plays the shipped "It wasn't DNS" replay at max speed in the built app, untouched, to its end (or a wall-clock cap),
 * and times the simulation in the browser worker from the frames it sends, alongside the main thread's long tasks.
 */

/** The bar for the worker: simulated seconds per wall second at max speed. */
export const WORKER_RATE_BAR = 10;

const VIEWPORT = { width: 1920, height: 1080 };

/** Windows of simulated time whose costs differ tenfold: before the rollout, the rollout with its reconnect storm, the recovery. */
const WINDOWS = [
  { label: 'before the rollout', fromS: 0, toS: 30 },
  { label: 'rollout and storm', fromS: 30, toS: 90 },
  { label: 'recovery', fromS: 90, toS: 210 },
];

/** How long the bench watches after the last frame: the run report is fetched and shown then. */
const AFTER_END_MS = 3_000;
const POLL_MS = 1_000;

export interface WorkerSpeedFigures {
  capSeconds: number;
  loadSeconds: number;
  finished: boolean;
  rate: SimRate;
  /** Long tasks from the press of Play to the last frame of the run. */
  playing: LongTask[];
  /** Long tasks in the few seconds after the run ended, while the report arrives. */
  afterEnd: LongTask[];
  framesPerSecond: number;
  /** Answer times of the frames from Play to the end of the run, by what they carried. */
  answers: FrameAnswers;
  animationFramesPerSecond: number;
  resumes: number;
  problems: string[];
}

async function doneAt(page: Page): Promise<number> {
  return page.evaluate<number>('window.__bench.doneAt');
}

export async function runWorkerSpeed(browser: Browser, appUrl: string, capSeconds: number): Promise<WorkerSpeedFigures> {
  const { context, page, problems, loadSeconds } = await openItsNotDns(browser, appUrl, VIEWPORT);
  try {
    await markPlay(page);
    await page.getByTestId('play-button').click();
    const deadline = Date.now() + capSeconds * 1000;
    let resumes = 0;
    // Polls rarely and touches nothing else: the figure is the worker's pace, and each poll is a task on the main thread.
    while (Date.now() < deadline && (await doneAt(page)) < 0) {
      if (((await page.getByTestId('run-status').textContent()) ?? '').trim() === 'paused') {
        resumes++;
        await page.getByTestId('play-button').click();
      }
      await page.waitForTimeout(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
    const finished = (await doneAt(page)) >= 0;
    if (finished) await page.waitForTimeout(AFTER_END_MS);
    await markPlayEnd(page);
    await noteErrorBanner(page, problems);
    const probe = await readProbe(page);
    const endMs = finished ? probe.doneAt : probe.playEndAt;
    const rate = simRate(probe.frameLog, probe.playAt, endMs, probe.longTasks, WINDOWS);
    const playSeconds = (endMs - probe.playAt) / 1000;
    return {
      capSeconds,
      loadSeconds,
      finished,
      rate,
      playing: probe.longTasks.filter((t) => t.start >= probe.playAt && t.start < endMs),
      afterEnd: probe.longTasks.filter((t) => t.start >= endMs),
      framesPerSecond: rate.frames / playSeconds,
      answers: frameAnswers(probe.frameLog, probe.playAt, endMs),
      // Animation frames counted to the end of the window, after-the-end seconds included.
      animationFramesPerSecond: (probe.animationFrames - probe.animationFramesAtPlay) / ((probe.playEndAt - probe.playAt) / 1000),
      resumes,
      problems,
    };
  } finally {
    await context.close();
  }
}

const verdict = (pass: boolean): string => (pass ? 'PASS' : 'FAIL');
const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US')} ms`;
const count = (v: number): string => Math.round(v).toLocaleString('en-US');

export function printWorkerSpeed(f: WorkerSpeedFigures): void {
  const r = f.rate;
  const end = f.finished ? 'the end' : `stopped by the ${f.capSeconds} s cap`;
  console.log(
    `${VIEWPORT.width}×${VIEWPORT.height}: ${r.simulatedSeconds.toFixed(1)} simulated s (${end}) in ${r.wallS.toFixed(1)} wall s → ` +
      `${r.simSecondsPerWallSecond.toFixed(2)} simulated s per wall s → bar "≥ ${WORKER_RATE_BAR}": ${verdict(r.simSecondsPerWallSecond >= WORKER_RATE_BAR)}` +
      `; ${count(r.events / r.wallS)} events/s; scenario ready ${f.loadSeconds.toFixed(1)} s after opening the page`,
  );
  for (const w of r.windows) {
    const span = `${w.fromS}-${w.toS} s`;
    const covered = w.coveredS < w.toS - w.fromS - 1e-6 ? ` (to ${(w.fromS + w.coveredS).toFixed(1)} s)` : '';
    const tasks = longTaskStats(w.longTasks);
    console.log(
      `  ${w.label.padEnd(19)} ${span.padStart(9)}${covered}: ${w.wallS.toFixed(1).padStart(6)} wall s → ${w.simSecondsPerWallSecond.toFixed(2).padStart(5)} simulated s per wall s ` +
        `(${verdict(w.simSecondsPerWallSecond >= WORKER_RATE_BAR)}), ${count(w.events / w.wallS)} events/s`,
    );
    console.log(
      `    ${count(w.frames)} frames of ${((w.coveredS * 1000) / Math.max(1, w.frames)).toFixed(0)} simulated ms; the main thread answers one in ${w.answerMs.mean.toFixed(1)} ms ` +
        `(longest ${ms(w.answerMs.max)}), the next is handled ${w.nextFrameMs.toFixed(0)} ms after the answer; ` +
        `long tasks ${tasks.count}, longest ${ms(tasks.longestMs)}, total blocking ${ms(tasks.totalBlockingMs)}`,
    );
  }
  printFrameAnswers(f.answers);
  const play = longTaskStats(f.playing);
  console.log(
    `  long tasks while playing: ${play.count}, longest ${ms(play.longestMs)}, p95 ${ms(play.p95Ms)}, total blocking ${ms(play.totalBlockingMs)} ` +
      `(${((play.totalBlockingMs / 1000 / r.wallS) * 100).toFixed(1)}% of the play) → bar "no task over ${LONG_TASK_BAR_MS} ms": ${verdict(play.longestMs <= LONG_TASK_BAR_MS)}`,
  );
  if (f.finished) {
    const after = longTaskStats(f.afterEnd);
    console.log(`  long tasks in the ${AFTER_END_MS / 1000} s after the end (the run report arriving): ${after.count}, longest ${ms(after.longestMs)} (not held to the bar)`);
  }
  console.log(
    `  worker frames received ${f.framesPerSecond.toFixed(1)}/s, animation frames ${f.animationFramesPerSecond.toFixed(1)}/s` +
      `${f.resumes > 0 ? `; ${f.resumes} resumes after a pause` : ''}`,
  );
  for (const p of f.problems) console.log(`  ! ${p}`);
}
