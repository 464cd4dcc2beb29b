import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PROBE } from './ui-probe';

/** The built app opened on the shipped "It wasn't DNS" replay at max speed, loaded, chapter stops off, ready for Play. */

export interface OpenedApp {
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors and (added by the caller at the end) an error banner: what makes a run's figures suspect. */
  problems: string[];
  /** Wall seconds from opening the page to the scenario's pods on screen. */
  loadSeconds: number;
}

const SCENARIO_URL_QUERY = '?scenario=its-not-dns.yaml&speed=max';

/** Opens `appUrl` in a fresh context with the bench probe installed; the caller closes `context` (this does when it throws). */
export async function openItsNotDns(browser: Browser, appUrl: string, viewport: { width: number; height: number }): Promise<OpenedApp> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, serviceWorkers: 'block' });
  const problems: string[] = [];
  try {
    await context.addInitScript({ content: PROBE });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.setDefaultTimeout(30_000);
    const opened = Date.now();
    await page.goto(appUrl + SCENARIO_URL_QUERY, { waitUntil: 'load' });
    // A narrow window keeps the scenario's details (and its chapter switch) in a tab of the dock.
    const details = page.getByRole('tab', { name: 'Details' });
    if (await details.isVisible()) await details.click();
    // The worker builds 2,000 clients before it answers the load; the chapter switch appears with the scenario.
    await page.getByTestId('pause-at-chapters').waitFor({ state: 'visible', timeout: 120_000 });
    await page.locator('[data-testid="pod"]').first().waitFor({ state: 'attached', timeout: 60_000 });
    const loadSeconds = (Date.now() - opened) / 1000;
    await page.getByTestId('pause-at-chapters').uncheck();
    const speed = ((await page.getByTestId('speed-display').textContent()) ?? '').trim();
    if (speed !== 'max') throw new Error(`expected speed max from the URL, the app shows ${JSON.stringify(speed)}`);
    return { context, page, problems, loadSeconds };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** Adds the app's error banner, if it shows one, to `problems`. */
export async function noteErrorBanner(page: Page, problems: string[]): Promise<void> {
  const banner = page.getByTestId('error-banner');
  if (await banner.isVisible()) problems.push(`error banner: ${((await banner.textContent()) ?? '').trim()}`);
}
