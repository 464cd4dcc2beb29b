import type { Browser, CDPSession, Page } from 'playwright-core';
import { frameAnswers, printFrameAnswers, type FrameAnswers } from './frame-answers';
import { endTrace, startTrace, type TraceEvent } from '../test/e2e/trace';
import type { CpuProfile } from './long-task-profile';
import { noteErrorBanner, openItsNotDns } from './open-its-not-dns';
import { markPlay, markPlayEnd, readProbe, type LongTask } from './ui-probe';

/**
 * Plays the shipped "It wasn't DNS" replay at max speed in the built app and records, from before the app's scripts
 * run, every long task the main thread reports, while the bench hovers, zooms, clicks and presses keys like a user.
 */

/** The bar: no main-thread task longer than this while the replay plays. */
export const LONG_TASK_BAR_MS = 100;

export interface ResponsivenessFigures {
  viewport: { width: number; height: number };
  wallSeconds: number;
  loadSeconds: number;
  simulatedSeconds: number;
  finished: boolean;
  /** Long tasks from the press of Play to the end of the window: what the bar is about. */
  playing: LongTask[];
  /** Long tasks before Play: parsing, the first render, the scenario arriving. */
  loading: LongTask[];
  framesPerSecond: number;
  answers: FrameAnswers;
  animationFramesPerSecond: number;
  longFrames: { count: number; scriptMs: number; styleLayoutMs: number; otherMs: number };
  interactions: number;
  resumes: number;
  /** Elements in the document and in the topology picture at the end of the window. */
  elements: { document: number; topology: number };
  problems: string[];
  profile?: CpuProfile;
  trace?: TraceEvent[];
}

export interface RunOptions {
  viewport: { width: number; height: number };
  seconds: number;
  /** Record a CPU profile of the main thread during play (costs a little; figures of such a run are not the bench's). */
  profile?: boolean;
}

async function statusText(page: Page): Promise<string> {
  return ((await page.getByTestId('run-status').textContent()) ?? '').trim();
}

async function simSeconds(page: Page): Promise<number> {
  return Number(await page.getByTestId('sim-clock').getAttribute('data-us')) / 1e6;
}

/** Centres of up to `limit` pods on screen, spread over the picture. */
export async function podPoints(page: Page, limit: number): Promise<{ x: number; y: number }[]> {
  const json = await page.evaluate<string>(`(() => {
    const pods = [...document.querySelectorAll('[data-testid="pod"]')];
    const step = Math.max(1, Math.floor(pods.length / ${limit}));
    const out = [];
    for (let i = 0; i < pods.length && out.length < ${limit}; i += step) {
      const r = pods[i].getBoundingClientRect();
      if (r.width > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth) out.push({ x: r.x + r.width / 2, y: r.y + r.height / 2 });
    }
    return JSON.stringify(out);
  })()`);
  return JSON.parse(json) as { x: number; y: number }[];
}

/** One user gesture per call, cycling through hover, zoom, selection, speed keys, the event filter and the timeline crosshair. */
export async function interact(page: Page, round: number, pods: { x: number; y: number }[]): Promise<void> {
  const topology = await page.getByTestId('topology').boundingBox();
  switch (round % 6) {
    case 0:
      for (const p of pods.slice(0, 6)) await page.mouse.move(p.x, p.y, { steps: 4 });
      break;
    case 1:
      if (topology) {
        await page.mouse.move(topology.x + topology.width / 2, topology.y + topology.height / 2);
        for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -120);
        for (let i = 0; i < 3; i++) await page.mouse.wheel(0, 120);
      }
      break;
    case 2: {
      const p = pods[round % Math.max(1, pods.length)];
      if (p) await page.mouse.click(p.x, p.y);
      break;
    }
    case 3:
      await page.keyboard.press('Escape');
      // Down a rung and back up to max: the worker gets two setSpeed commands and the header re-renders.
      await page.keyboard.press('-');
      await page.keyboard.press('+');
      break;
    case 4: {
      // The event log's filter: typing re-filters the list on every key.
      const filter = page.getByPlaceholder('entity, e.g. pod/web');
      if ((await filter.count()) > 0) {
        await filter.fill('node/');
        await filter.fill('');
      }
      break;
    }
    default: {
      // In a narrow window the timeline may sit in a dock tab that is not open.
      const charts = page.getByTestId('chart');
      const chart = (await charts.count()) > 0 ? await charts.first().boundingBox() : null;
      if (chart) {
        for (let i = 0; i <= 8; i++) await page.mouse.move(chart.x + (chart.width * i) / 8, chart.y + chart.height / 2, { steps: 2 });
      }
    }
  }
}

// Timeline events name the rendering phases the JS profiler lumps together as "(program)"; the stack category adds the JS
// that forced a style or layout update.
const TRACE_CATEGORIES = ['-*', 'toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.stack'];

export async function startProfiler(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await startTrace(cdp, TRACE_CATEGORIES);
  await cdp.send('Profiler.start');
  return cdp;
}

export async function stopProfiler(cdp: CDPSession): Promise<{ profile: CpuProfile; trace: TraceEvent[] }> {
  const { profile } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
  return { profile, trace: await endTrace(cdp) };
}

export async function runResponsiveness(browser: Browser, appUrl: string, options: RunOptions): Promise<ResponsivenessFigures> {
  const { context, page, problems, loadSeconds } = await openItsNotDns(browser, appUrl, options.viewport);
  try {
    const cdp = options.profile ? await startProfiler(page) : undefined;
    await markPlay(page);
    await page.getByTestId('play-button').click();
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    let interactions = 0;
    let resumes = 0;
    let finished = false;
    let pods: { x: number; y: number }[] = [];
    while (Date.now() < deadline) {
      const status = await statusText(page);
      if (status === 'done') {
        finished = true;
        break;
      }
      // Something paused the run (a chapter stop, a stray key): play on so the window measures playing.
      if (status === 'paused') {
        resumes++;
        await page.getByTestId('play-button').click();
      }
      // Reading pod positions forces a layout, so it happens once per cycle of gestures rather than before each.
      if (interactions % 6 === 0) pods = await podPoints(page, 12);
      await interact(page, interactions++, pods);
      await page.waitForTimeout(400);
    }
    await markPlayEnd(page);
    const wallSeconds = (Date.now() - started) / 1000;
    const simulatedSeconds = await simSeconds(page);
    const recorded = cdp ? await stopProfiler(cdp) : undefined;
    await cdp?.detach();
    await noteErrorBanner(page, problems);
    const probe = await readProbe(page);
    const elements = JSON.parse(
      await page.evaluate<string>(`JSON.stringify({ document: document.getElementsByTagName('*').length, topology: document.querySelectorAll('[data-testid="topology"] *').length })`),
    ) as { document: number; topology: number };
    const playWindow = (start: number): boolean => start >= probe.playAt && start <= probe.playEndAt;
    const seconds = (probe.playEndAt - probe.playAt) / 1000;
    let scriptMs = 0;
    let styleLayoutMs = 0;
    let otherMs = 0;
    const frames = probe.longFrames.filter((f) => playWindow(f.start));
    for (const f of frames) {
      const styleLayout = f.styleAndLayoutStart > 0 ? f.start + f.duration - f.styleAndLayoutStart : 0;
      scriptMs += f.scriptMs;
      styleLayoutMs += styleLayout;
      otherMs += Math.max(0, f.duration - f.scriptMs - styleLayout);
    }
    const figures: ResponsivenessFigures = {
      viewport: options.viewport,
      wallSeconds,
      loadSeconds,
      simulatedSeconds,
      finished,
      playing: probe.longTasks.filter((t) => playWindow(t.start)),
      loading: probe.longTasks.filter((t) => t.start < probe.playAt),
      framesPerSecond: (probe.frames - probe.framesAtPlay) / seconds,
      answers: frameAnswers(probe.frameLog, probe.playAt, probe.playEndAt),
      animationFramesPerSecond: (probe.animationFrames - probe.animationFramesAtPlay) / seconds,
      longFrames: { count: frames.length, scriptMs, styleLayoutMs, otherMs },
      interactions,
      resumes,
      elements,
      problems,
    };
    if (recorded) Object.assign(figures, recorded);
    return figures;
  } finally {
    await context.close();
  }
}

export interface LongTaskStats {
  count: number;
  longestMs: number;
  p95Ms: number;
  totalBlockingMs: number;
}

export function longTaskStats(tasks: readonly LongTask[]): LongTaskStats {
  const durations = tasks.map((t) => t.duration).sort((a, b) => a - b);
  // Nearest-rank p95.
  const p95 = durations.length === 0 ? 0 : durations[Math.ceil(0.95 * durations.length) - 1]!;
  return {
    count: durations.length,
    longestMs: durations.at(-1) ?? 0,
    p95Ms: p95,
    totalBlockingMs: durations.reduce((sum, d) => sum + Math.max(0, d - 50), 0),
  };
}

export function printResponsiveness(f: ResponsivenessFigures): void {
  const play = longTaskStats(f.playing);
  const load = longTaskStats(f.loading);
  const verdict = play.longestMs <= LONG_TASK_BAR_MS ? 'PASS' : 'FAIL';
  const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US')} ms`;
  console.log(
    `${f.viewport.width}×${f.viewport.height}: ${f.wallSeconds.toFixed(1)} s playing at max → ${f.simulatedSeconds.toFixed(1)} simulated s` +
      `${f.finished ? ' (the end)' : ''}; scenario ready ${f.loadSeconds.toFixed(1)} s after opening the page`,
  );
  console.log(
    `  long tasks while playing: ${play.count}, longest ${ms(play.longestMs)}, p95 ${ms(play.p95Ms)}, total blocking ${ms(play.totalBlockingMs)} ` +
      `(${((play.totalBlockingMs / 1000 / f.wallSeconds) * 100).toFixed(1)}% of the window) → bar "no task over ${LONG_TASK_BAR_MS} ms": ${verdict}`,
  );
  console.log(`  long tasks while loading: ${load.count}, longest ${ms(load.longestMs)}, total blocking ${ms(load.totalBlockingMs)} (not held to the bar)`);
  const lf = f.longFrames;
  const lfTotal = lf.scriptMs + lf.styleLayoutMs + lf.otherMs;
  const share = (v: number): string => (lfTotal > 0 ? `${((v / lfTotal) * 100).toFixed(0)}%` : '-');
  console.log(
    `  worker frames received ${f.framesPerSecond.toFixed(1)}/s, animation frames ${f.animationFramesPerSecond.toFixed(1)}/s; ` +
      `long animation frames ${lf.count}: scripts ${share(lf.scriptMs)}, style+layout ${share(lf.styleLayoutMs)}, other ${share(lf.otherMs)} of their time`,
  );
  printFrameAnswers(f.answers);
  console.log(
    `  ${f.interactions} interactions (hover, wheel zoom, pod click, Escape, −/+, event filter, crosshair)${f.resumes > 0 ? `, ${f.resumes} resumes after a pause` : ''}; ` +
      `${f.elements.document.toLocaleString('en-US')} elements in the page, ${f.elements.topology.toLocaleString('en-US')} of them in the topology picture`,
  );
  for (const p of f.problems) console.log(`  ! ${p}`);
}
