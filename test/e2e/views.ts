import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage } from './browser';
import { serveDist } from './server';

/**
 * Screenshots of each view of the sandbox at the three sizes it must work at (a desktop, a projector, a wiki iframe),
 * light and dark, into test/e2e/__screenshots__/ for review in a diff. Run `npm run build` first.
 */

const OUT = fileURLToPath(new URL('./__screenshots__/', import.meta.url));
const SIZES = { desktop: { width: 1920, height: 1080 }, projector: { width: 1280, height: 720 }, iframe: { width: 800, height: 500 } };

interface View {
  name: string;
  scenario: string;
  size: keyof typeof SIZES;
  dark?: boolean;
  until: number;
  speed: string;
  /** What to do once paused at `until`, before the picture is taken. */
  then?: (page: Page) => Promise<void>;
}

const clockUs = async (page: Page): Promise<number> => Number(await page.getByTestId('sim-clock').getAttribute('data-us'));
const status = async (page: Page): Promise<string> => ((await page.getByTestId('run-status').textContent()) ?? '').trim();

async function until(page: Page, seconds: number): Promise<void> {
  await page.getByTestId('pause-at-chapters').uncheck().catch(() => {});
  await page.getByTestId('play-button').click();
  const deadline = Date.now() + 240_000;
  while ((await clockUs(page)) < seconds * 1e6 && (await status(page)) !== 'done') {
    if (Date.now() > deadline) throw new Error(`timed out playing to ${seconds} s`);
    await page.waitForTimeout(200);
  }
  if ((await status(page)) === 'running') await page.getByTestId('play-button').click();
  await page.waitForTimeout(600);
}

const VIEWS: View[] = [
  { name: 'incident-far', scenario: 'its-not-dns.yaml', size: 'desktop', until: 62, speed: 'max' },
  {
    name: 'incident-node-why',
    scenario: 'its-not-dns.yaml',
    size: 'desktop',
    dark: true,
    until: 80,
    speed: 'max',
    then: async (page) => {
      await page.locator('[data-testid="why-button"][data-reason="dns_refused"]').click();
      await page.getByTestId('why-step').first().waitFor();
      await page.getByTestId('why-step').first().getByRole('button').click();
    },
  },
  {
    name: 'palette-popover',
    scenario: 'demo.yaml',
    size: 'desktop',
    until: 21,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-testid="fault-card"][data-fault="delete-pod"]').dragTo(page.locator('[data-testid="pod"][data-pod="web-1"]'));
    },
  },
  {
    name: 'bare-metal-router',
    scenario: 'bare-metal-sandbox.yaml',
    size: 'desktop',
    dark: true,
    until: 10,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-entity="router/tor"]').click();
    },
  },
  { name: 'projector-incident', scenario: 'its-not-dns.yaml', size: 'projector', until: 40, speed: 'max' },
  {
    name: 'projector-demo-menu',
    scenario: 'demo.yaml',
    size: 'projector',
    dark: true,
    until: 22,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-testid="pod"][data-pod="web-2"]').click({ button: 'right' });
    },
  },
  { name: 'iframe-demo', scenario: 'demo.yaml', size: 'iframe', until: 22, speed: '5' },
  { name: 'iframe-bare-metal', scenario: 'bare-metal-sandbox.yaml', size: 'iframe', dark: true, until: 10, speed: '5' },
];

async function capture(browser: Browser, url: string, view: View): Promise<void> {
  const app = await openPage(browser, `${url}?scenario=${view.scenario}&speed=${view.speed}`, {
    colorScheme: view.dark ? 'dark' : 'light',
    viewport: SIZES[view.size],
  });
  try {
    const { page } = app;
    const deadline = Date.now() + 30_000;
    while ((await status(page)) !== 'paused') {
      if (Date.now() > deadline) throw new Error(`${view.name}: the scenario did not load`);
      await page.waitForTimeout(100);
    }
    await until(page, view.until);
    await view.then?.(page);
    await page.waitForTimeout(400);
    const path = `${OUT}${view.name}-${SIZES[view.size].width}x${SIZES[view.size].height}${view.dark ? '-dark' : ''}.png`;
    await page.screenshot({ path });
    const problems = [...app.problems.pageErrors, ...app.problems.consoleErrors];
    console.log(`${path}${problems.length ? ` — problems: ${problems.join('; ')}` : ''}`);
  } finally {
    await app.close();
  }
}

await mkdir(OUT, { recursive: true });
const server = await serveDist();
const browser = await launchBrowser();
try {
  const only = process.argv[2];
  for (const view of VIEWS) if (!only || view.name.includes(only)) await capture(browser, server.url, view);
} finally {
  await browser.close();
  await server.close();
}
