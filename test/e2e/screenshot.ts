import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage } from './browser';
import { serveDist } from './server';

/** README screenshots: serve the built app, play the demo past the pod deletion, capture light and dark. */

const VIEWPORT = { width: 1400, height: 850 };
const SCENARIO = 'demo.yaml';
const SPEED = 10;
const AT_SECONDS = 25;

const screenshotDir = fileURLToPath(new URL('../../public/screenshots/', import.meta.url));

async function clockUs(page: Page): Promise<number> {
  return Number(await page.getByTestId('sim-clock').getAttribute('data-us'));
}

async function statusText(page: Page): Promise<string> {
  return ((await page.getByTestId('run-status').textContent()) ?? '').trim();
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}

async function capture(browser: Browser, url: string, colorScheme: 'light' | 'dark', path: string): Promise<void> {
  const app = await openPage(browser, url, { colorScheme, viewport: VIEWPORT });
  try {
    const { page } = app;
    await waitFor(`the demo to start playing (${colorScheme})`, 15_000, async () => ['running', 'done'].includes(await statusText(page)));
    const targetUs = AT_SECONDS * 1_000_000;
    const wallBudgetMs = (AT_SECONDS / SPEED) * 1_000 * 4 + 10_000;
    // Pause a little early and finish with 0.1 s steps, so both captures land within 0.1 s of the target.
    const pauseAtUs = targetUs - 2_000_000;
    await waitFor(`simulated ${AT_SECONDS - 2} s`, wallBudgetMs, async () => (await clockUs(page)) >= pauseAtUs || (await statusText(page)) === 'done');
    if ((await statusText(page)) === 'running') await page.getByTestId('play-button').click();
    await waitFor('the worker to confirm the pause', 5_000, async () => ['paused', 'done'].includes(await statusText(page)));
    await page.waitForTimeout(200);
    let now = await clockUs(page);
    while (now < targetUs && (await statusText(page)) !== 'done') {
      const before = now;
      await page.getByTestId('step-button').click();
      await waitFor('a 0.1 s step', 5_000, async () => (await clockUs(page)) > before);
      now = await clockUs(page);
    }
    await page.mouse.move(0, 0);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // Let the last frame, the chart and hover/focus transitions settle before capturing.
    await page.waitForTimeout(500);
    await page.screenshot({ path });
    const problems = [...app.problems.pageErrors, ...app.problems.consoleErrors, ...app.problems.outsideRequests];
    if (problems.length > 0) console.warn(`Warnings while capturing ${path}:\n  ${problems.join('\n  ')}`);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const server = await serveDist();
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    await mkdir(screenshotDir, { recursive: true });
    const url = `${server.url}?scenario=${SCENARIO}&speed=${SPEED}&autoplay=1`;
    const light = join(screenshotDir, 'light.png');
    const dark = join(screenshotDir, 'dark.png');
    await capture(browser, url, 'light', light);
    await capture(browser, url, 'dark', dark);
    console.log(`Wrote ${light}`);
    console.log(`Wrote ${dark}`);
  } finally {
    await browser?.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
