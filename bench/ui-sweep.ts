import type { Browser, Page } from 'playwright-core';
import { diagnose, printDiagnosis } from './long-task-profile';
import { chooseFaults, DEMO_SWEEP_FAULTS, openSweep } from '../test/e2e/sweep-page';
import { mainThreadTasks, watchMainThread, type MainThreadTask } from '../test/e2e/trace';
import { startProfiler, stopProfiler } from './ui-responsiveness';

/**
 * The browser sweep's cost to the page: the demo swept over three faults (as the e2e test does) in the worker pool, with
 * every main-thread long task from the press of Run to the last fix trial.
 */

export interface SweepFigures {
  wallSeconds: number;
  status: string;
  /** Every main-thread task from the press of Run to the last fix run (from Chrome's trace). */
  tasks: MainThreadTask[];
  problems: string[];
}

async function runSweepOnce(page: Page): Promise<{ wallSeconds: number; status: string }> {
  await openSweep(page);
  await page.getByTestId('sweep-at').fill('15');
  await page.getByTestId('sweep-for').fill('45');
  await chooseFaults(page, DEMO_SWEEP_FAULTS);
  const started = Date.now();
  await page.getByTestId('sweep-start').click();
  await page.locator('[data-testid="sweep-progress"][data-phase="done"]').waitFor({ timeout: 300_000 });
  const wallSeconds = (Date.now() - started) / 1000;
  return { wallSeconds, status: ((await page.getByTestId('sweep-status').textContent()) ?? '').trim() };
}

export async function runSweepBench(browser: Browser, appUrl: string, distDir: string, profile: boolean): Promise<SweepFigures> {
  const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1, serviceWorkers: 'block' });
  const problems: string[] = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${appUrl}?scenario=demo.yaml`, { waitUntil: 'load' });
    await page.locator('[data-testid="pod"]').first().waitFor({ state: 'attached', timeout: 60_000 });
    if (!profile) {
      const watched = await watchMainThread(page);
      const run = await runSweepOnce(page);
      return { ...run, tasks: await watched(), problems };
    }
    const cdp = await startProfiler(page);
    const run = await runSweepOnce(page);
    const recorded = await stopProfiler(cdp);
    await cdp.detach();
    printDiagnosis(diagnose(recorded.profile, recorded.trace, distDir, 30));
    const tasks = mainThreadTasks(recorded.trace).map((t) => ({ wallMs: t.dur / 1000, cpuMs: t.tdur / 1000 }));
    return { ...run, tasks, problems };
  } finally {
    await context.close();
  }
}

export function printSweep(f: SweepFigures): void {
  const long = f.tasks.filter((t) => t.wallMs > 50);
  const longest = (key: keyof MainThreadTask): number => Math.round(Math.max(0, ...f.tasks.map((t) => t[key])));
  const busy = f.tasks.reduce((sum, t) => sum + t.cpuMs, 0);
  console.log(`  ${f.status}`);
  console.log(
    `  ${f.wallSeconds.toFixed(1)} s wall; main thread busy ${Math.round(busy).toLocaleString('en-US')} ms of CPU in ${f.tasks.length.toLocaleString('en-US')} tasks, ` +
      `${long.length} over 50 ms; longest ${longest('wallMs')} ms wall, ${longest('cpuMs')} ms CPU` +
      (f.problems.length > 0 ? `; problems: ${f.problems.join('; ')}` : ''),
  );
}
