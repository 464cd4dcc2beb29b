import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { findChrome, launchBrowser } from '../test/e2e/browser';
import { serveDist } from '../test/e2e/server';
import { measureBundle, printBundle } from './bundle-size';
import { diagnose, printDiagnosis } from './long-task-profile';
import { LONG_TASK_BAR_MS, longTaskStats, printResponsiveness, runResponsiveness } from './ui-responsiveness';
import { printSweep, runSweepBench } from './ui-sweep';
import { printWorkerSpeed, runWorkerSpeed, WORKER_RATE_BAR } from './ui-worker-speed';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
/** The bench's own build: the same config as `npm run build` plus hidden source maps, so the JS is byte-identical. */
const BENCH_DIST = join(repoRoot, 'node_modules/.cache/bench-dist');

function seconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of seconds ≥ 0, got ${JSON.stringify(raw)}`);
  return n;
}

/** Builds into BENCH_DIST; three seconds, and it never disturbs the dist/ the browser tests use. */
export async function buildForBench(): Promise<string> {
  await build({
    root: repoRoot,
    configFile: join(repoRoot, 'vite.config.ts'),
    // Errors only: the bench's output is its figures, not the bundler's timing notes.
    logLevel: 'error',
    build: { outDir: BENCH_DIST, emptyOutDir: true, sourcemap: 'hidden' },
  });
  return BENCH_DIST;
}

export function runBundleBench(distDir: string): void {
  printBundle(measureBundle(distDir));
}

/** Serves `distDir` and opens Chromium for `run`; false, with the reason printed, when there is no browser to open. */
async function withBrowser(distDir: string, run: (browser: Browser, appUrl: string) => Promise<void>): Promise<boolean> {
  try {
    findChrome();
  } catch (error) {
    console.log(`cannot run the UI bench: ${(error as Error).message}`);
    return false;
  }
  const server = await serveDist({ distDir });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    await run(browser, server.url);
    return true;
  } finally {
    await browser?.close();
    await server.close();
  }
}

/**
 * `BENCH_UI_SECONDS` (45) of play at 1920×1080, `BENCH_UI_SMALL_SECONDS` (20, 0 skips) at 800×500, then — when the
 * large run breaks the bar, or always with `BENCH_UI_PROFILE=1` (never with 0) — a profiled run naming what the long tasks do.
 */
export async function runResponsivenessBench(distDir: string): Promise<boolean> {
  const large = seconds('BENCH_UI_SECONDS', 45);
  const small = seconds('BENCH_UI_SMALL_SECONDS', 20);
  const profileMode = process.env['BENCH_UI_PROFILE'] ?? 'auto';
  return withBrowser(distDir, async (browser, url) => {
    const big = await runResponsiveness(browser, url, { viewport: { width: 1920, height: 1080 }, seconds: large });
    printResponsiveness(big);
    if (small > 0) printResponsiveness(await runResponsiveness(browser, url, { viewport: { width: 800, height: 500 }, seconds: small }));
    const failed = longTaskStats(big.playing).longestMs > LONG_TASK_BAR_MS;
    if (profileMode === '1' || (profileMode === 'auto' && failed)) {
      console.log(`\n== Where the long tasks go: a second 1920×1080 run traced and under the CDP sampling profiler (250 µs; its timings are not the figures above) ==`);
      const profiled = await runResponsiveness(browser, url, { viewport: { width: 1920, height: 1080 }, seconds: large, profile: true });
      printResponsiveness(profiled);
      if (profiled.profile && profiled.trace) printDiagnosis(diagnose(profiled.profile, profiled.trace, distDir, 50));
    }
  });
}

/** The replay played untouched to its end at max speed, or for at most `BENCH_UI_WORKER_CAP_SECONDS` (600) of wall time. */
export async function runWorkerSpeedBench(distDir: string): Promise<boolean> {
  const cap = seconds('BENCH_UI_WORKER_CAP_SECONDS', 600);
  return withBrowser(distDir, async (browser, url) => printWorkerSpeed(await runWorkerSpeed(browser, url, cap)));
}

/** The demo swept in the page's worker pool; with `BENCH_UI_PROFILE=1`, a second traced run names what its long tasks do. */
export async function runSweepUiBench(distDir: string): Promise<boolean> {
  return withBrowser(distDir, async (browser, url) => {
    printSweep(await runSweepBench(browser, url, distDir, false));
    if (process.env['BENCH_UI_PROFILE'] === '1') {
      console.log('\n  traced and profiled (its timings are not the figures above):');
      printSweep(await runSweepBench(browser, url, distDir, true));
    }
  });
}

const SECTIONS = ['bundle', 'responsiveness', 'worker', 'sweep'] as const;
type Section = (typeof SECTIONS)[number];

/** `BENCH_UI_ONLY=worker` (or a comma-separated list of sections) runs only those; unset runs them all. */
function sectionsToRun(): Set<Section> {
  const raw = process.env['BENCH_UI_ONLY'];
  if (raw === undefined || raw === '') return new Set(SECTIONS);
  const names = raw.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_UI_ONLY: unknown section ${unknown.map((n) => JSON.stringify(n)).join(', ')}; the sections are ${SECTIONS.join(', ')}`);
  return new Set(names as Section[]);
}

/** The UI sections, as `npm run bench` and `npm run bench:ui` print them; false when a browser section could not run. */
export async function runUiBenches(): Promise<boolean> {
  const sections = sectionsToRun();
  const distDir = await buildForBench();
  let ran = true;
  if (sections.has('bundle')) {
    console.log('== Initial JavaScript (script tags and modulepreloads of index.html and their static imports, gzip level 6; bar ≤ 300 kB) ==');
    runBundleBench(distDir);
  }
  if (sections.has('responsiveness')) {
    console.log(
      `\n== Main thread while "It wasn't DNS" plays at max speed (built app in headless Chromium, longtask observer from before the app's scripts; bar: no task over ${LONG_TASK_BAR_MS} ms) ==`,
    );
    ran = (await runResponsivenessBench(distDir)) && ran;
  }
  if (sections.has('worker')) {
    console.log(
      `\n== its-not-dns in the browser worker (played untouched to the end at max speed, timed from the worker's frames; ` +
        `bars: ≥ ${WORKER_RATE_BAR} simulated s per wall s, no main-thread task over ${LONG_TASK_BAR_MS} ms) ==`,
    );
    ran = (await runWorkerSpeedBench(distDir)) && ran;
  }
  if (sections.has('sweep')) {
    console.log(`\n== Main thread while the demo is swept over three faults in the page's worker pool (bar: no task over ${LONG_TASK_BAR_MS} ms) ==`);
    ran = (await runSweepUiBench(distDir)) && ran;
  }
  return ran;
}
