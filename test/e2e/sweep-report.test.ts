import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sim } from '../fixtures/cli';
import { launchBrowser, openPage, saveScreenshot, screenshotOnFailure } from './browser';

/** The report `sweep --html` writes, opened as a file would be: from its text alone, in Chromium. */
const tmp = mkdtempSync(join(tmpdir(), 'netmortem-report-'));
// A file name may hold anything but a slash.
const SOURCE = `demo "<b>bold<b>" & 'more'.yaml`;
let browser: Browser | undefined;
let html = '';

beforeAll(async () => {
  const path = join(tmp, SOURCE);
  copyFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), path);
  const exit = await sim(['sweep', path, '--jobs', '2', '--html', join(tmp, 'report.html')]);
  expect(exit.code, exit.stderr).toBe(0);
  html = readFileSync(join(tmp, 'report.html'), 'utf8');
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the sweep report in Chromium', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`reads offline in ${colorScheme}: well-formed, no script, no request, names shown as they are`, async () => {
      const app = await openPage(browser!, 'about:blank', { colorScheme, viewport: { width: 1280, height: 720 } });
      const requests: string[] = [];
      app.page.on('request', (r) => requests.push(r.url()));
      try {
        await screenshotOnFailure(app.page, `sweep-report-${colorScheme}-failed`, async () => {
          await app.page.setContent(html, { waitUntil: 'load' });
          const seen = await app.page.evaluate((text) => {
            const strict = new DOMParser().parseFromString(text, 'application/xhtml+xml');
            return {
              parseErrors: strict.getElementsByTagName('parsererror').length,
              scripts: document.scripts.length,
              title: document.title,
              summary: document.querySelector('.summary')!.textContent,
              risks: document.querySelectorAll('section.risk').length,
              charts: document.querySelectorAll('svg.chart').length,
              background: getComputedStyle(document.body).backgroundColor,
              bars: document.querySelectorAll('svg.chart rect.bar').length,
            };
          }, html);
          expect(seen.parseErrors).toBe(0);
          expect(seen.scripts).toBe(0);
          expect(seen.title).toBe('Sweep of demo');
          expect(seen.summary).toContain(SOURCE);
          expect(seen.risks).toBe(5);
          expect(seen.charts).toBe(6);
          expect(seen.bars).toBeGreaterThanOrEqual(5);
          expect(seen.background).toBe(colorScheme === 'dark' ? 'rgb(20, 23, 28)' : 'rgb(255, 255, 255)');
          expect(requests).toEqual([]);
          expect(app.problems).toEqual({ consoleErrors: [], pageErrors: [], outsideRequests: [] });
          await saveScreenshot(app.page, `sweep-report-${colorScheme}`);
        });
      } finally {
        await app.close();
      }
    });
  }
});
