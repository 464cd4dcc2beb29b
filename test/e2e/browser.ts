import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

/** Flags for a quiet, offline, sandbox-less headless Chromium (containers and CI have no user namespaces). */
export const CHROME_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const CHROME_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const NO_BROWSER_MESSAGE = [
  'No Chrome/Chromium found for the browser tests.',
  `Looked at: ${CHROME_CANDIDATES.join(', ')}.`,
  'Install one (Debian/Ubuntu: `sudo apt-get install -y chromium`) or point CHROME_PATH at a Chrome or Chromium binary,',
  'e.g. `CHROME_PATH="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" npm test`.',
].join('\n');

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const RESULTS_DIR = join(repoRoot, 'test-results');

/** CHROME_PATH wins; otherwise the first installed candidate. Throws with install advice when none exists. */
export function findChrome(env: NodeJS.ProcessEnv = process.env): string {
  const override = env['CHROME_PATH'];
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) {
      throw new Error(`CHROME_PATH is set to ${JSON.stringify(override)}, but no file exists there.\n${NO_BROWSER_MESSAGE}`);
    }
    return override;
  }
  const found = CHROME_CANDIDATES.find((path) => existsSync(path));
  if (found === undefined) throw new Error(NO_BROWSER_MESSAGE);
  return found;
}

/** Playwright's launch() gives every browser a fresh temporary profile and deletes it on close. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: findChrome(), headless: true, args: CHROME_ARGS, timeout: 30_000 });
}

export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests to any host but 127.0.0.1: the app must work offline. */
  outsideRequests: string[];
}

export interface AppPage {
  page: Page;
  context: BrowserContext;
  problems: PageProblems;
  close(): Promise<void>;
}

export interface PageOptions {
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
}

const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:', 'chrome:', 'chrome-extension:', 'devtools:']);

export function isOutsideRequest(url: string): boolean {
  const parsed = new URL(url);
  if (LOCAL_SCHEMES.has(parsed.protocol)) return false;
  return parsed.hostname !== '127.0.0.1';
}

function describeConsole(message: ConsoleMessage): string {
  const { url, lineNumber } = message.location();
  const where = url ? ` (${url}:${lineNumber})` : '';
  return `${message.text()}${where}`;
}

/** Opens a page in its own context and records console errors, page errors and outside requests from the start. */
export async function openPage(browser: Browser, url: string, options: PageOptions = {}): Promise<AppPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1400, height: 850 },
    colorScheme: options.colorScheme ?? 'light',
    serviceWorkers: 'block',
  });
  const problems: PageProblems = { consoleErrors: [], pageErrors: [], outsideRequests: [] };
  context.on('request', (request) => {
    if (isOutsideRequest(request.url())) problems.outsideRequests.push(request.url());
  });
  // A Content-Security-Policy violation becomes a console error, which every test already fails on.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`));
  });
  const page = await context.newPage();
  // Chromium forwards dedicated-worker console messages and uncaught errors to the page events too.
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(describeConsole(message));
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.stack ?? error.message));
  page.setDefaultTimeout(10_000);
  await page.goto(url, { waitUntil: 'load' });
  return { page, context, problems, close: () => context.close() };
}

/** Writes a full-page screenshot into test-results/ and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-').replace(/^-|-$/g, '')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Runs `body`; if it throws, saves a screenshot for debugging and rethrows with the screenshot's path appended. */
export async function screenshotOnFailure<T>(page: Page, name: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const shot = await saveScreenshot(page, name).catch((shotError: unknown) => `(screenshot failed: ${String(shotError)})`);
    if (error instanceof Error) {
      error.message += `\nScreenshot: ${shot}`;
      throw error;
    }
    throw new Error(`${String(error)}\nScreenshot: ${shot}`);
  }
}
