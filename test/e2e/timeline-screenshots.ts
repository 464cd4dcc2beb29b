import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage } from './browser';
import { serveDist } from './server';

/**
 * Pictures of the timeline (the demo, played through, crosshair at 0:22) and of the A/B view ('It wasn't DNS' with
 * default-backoff toggled, both runs to 65 s) at three screen sizes, light and dark, for review.
 */

const SIZES = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
  { width: 800, height: 500 },
];
const SCHEMES = ['light', 'dark'] as const;
const AB_UNTIL_US = 65_000_000;
const outDir = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

const text = async (page: Page, id: string): Promise<string> => ((await page.getByTestId(id).first().textContent()) ?? '').trim();
const clockUs = async (page: Page): Promise<number> => Number(await page.getByTestId('sim-clock').getAttribute('data-us'));

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
}

/** Hovers chart `index` at simulated second `t` of a run `durationS` long, scrolling it into view first. */
async function hover(page: Page, index: number, t: number, durationS: number): Promise<void> {
  const chart = page.getByTestId('chart').nth(index);
  // The whole row, title and legend included, not just its plot.
  await page.getByTestId('timeline-chart').nth(index).evaluate((row) => row.scrollIntoView({ block: 'nearest' }));
  const box = await chart.boundingBox();
  if (!box) return;
  await page.mouse.move(box.x + 56 + ((box.width - 82) * t) / durationS, box.y + box.height / 2);
}

/** The fault palette starts open only on wide screens; a resized page shows it as a page loaded at that width would. */
async function showPaletteAsLoaded(page: Page, width: number): Promise<void> {
  const name = width >= 1100 ? 'Show the fault palette' : 'Hide the fault palette';
  const toggle = page.getByRole('button', { name });
  if ((await toggle.count()) > 0) await toggle.click();
}

async function captureAll(page: Page, name: string, chart: number, t: number, durationS: number): Promise<void> {
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await showPaletteAsLoaded(page, size.width);
      // The A/B figures start folded on short screens; set them as a page opened at this height would.
      await page.evaluate((open) => {
        const summary = document.querySelector<HTMLDetailsElement>('[data-testid="compare-summary"]');
        if (summary) summary.open = open;
      }, size.height >= 800);
      await page.waitForTimeout(400);
      await hover(page, chart, t, durationS);
      await page.waitForTimeout(300);
      const path = join(outDir, `${name}-${size.width}x${size.height}-${scheme}.png`);
      await page.screenshot({ path });
      console.log(`Wrote ${path}`);
    }
  }
}

async function timeline(browser: Browser, url: string): Promise<void> {
  const app = await openPage(browser, `${url}?scenario=demo.yaml&speed=max&autoplay=1`);
  try {
    const { page } = app;
    await waitFor('the demo to finish', 60_000, async () => (await text(page, 'run-status')) === 'done');
    await captureAll(page, 'timeline', 0, 22, 60);
  } finally {
    await app.close();
  }
}

async function compare(browser: Browser, url: string): Promise<void> {
  const app = await openPage(browser, `${url}?scenario=its-not-dns.yaml&speed=max`);
  try {
    const { page } = app;
    await waitFor('the scenario to load', 30_000, async () => (await text(page, 'run-status')) === 'paused' && (await page.getByTestId('scenario-picker').inputValue()) === 'its-not-dns.yaml');
    await page.getByTestId('pause-at-chapters').uncheck();
    await page.getByTestId('compare-toggle').click();
    await page.getByTestId('compare-fix').selectOption('default-backoff');
    await page.getByTestId('play-button').click();
    await waitFor('run A to reach 65 s', 900_000, async () => (await clockUs(page)) >= AB_UNTIL_US);
    await page.getByTestId('play-button').click();
    await waitFor('run A to pause', 10_000, async () => (await text(page, 'run-status')) === 'paused');
    const aUs = String(await clockUs(page));
    await waitFor('run B to catch up', 300_000, async () => (await page.getByTestId('compare-clock').getAttribute('data-us')) === aUs);
    await page.waitForTimeout(1_000);
    await captureAll(page, 'compare', 1, 58, 210);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  const server = await serveDist();
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    await mkdir(outDir, { recursive: true });
    const only = process.argv[2];
    if (only !== 'compare') await timeline(browser, server.url);
    if (only !== 'timeline') await compare(browser, server.url);
  } finally {
    await browser?.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
