import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { AppPage } from './browser';
import { appHarness } from './harness';
import { byTestId, clockUs, expectClean, layoutOf, openCompletionsAndSearch, text, untilStatus } from './page';
import { boxOf, clippedWithoutCue, textSmallerThan } from './geometry';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
// The policy the README documents for wiki hosts: the tests serve the app under exactly that line.
const POLICY = /^Content-Security-Policy: (.+)$/m.exec(readFileSync(README, 'utf8'))?.[1];
if (!POLICY) throw new Error('README.md has no "Content-Security-Policy: …" line to test the app under');

const F5 = 'f5-unknown-health.yaml';
const F5_TITLE = 'F5 and unknown health: a new node takes connections it cannot serve';
// The name before the title's colon, which the bar shows when the whole title does not fit on its line.
const shortTitle = (title: string): string => title.slice(0, title.indexOf(': '));
const CHAPTER_2_US = 40e6;

const harness = appHarness({ viewport: { width: 800, height: 500 } }, { headers: { 'content-security-policy': POLICY } });
const { withApp } = harness;

/** Clean, and nothing asked for outside the app's folder. */
function expectCleanServed(app: AppPage): void {
  expectClean(app);
  expect(harness.server().misses, 'requests outside the app folder').toEqual([]);
}

/**
 * The embed view fits: its controls and the way out are inside the frame and nothing scrolls sideways; the scenario's
 * title shows (whole, or its short name whole), the picture has the frame's width and a quarter of its height or more,
 * one chart shows whole above the frame's bottom with a cue to the others, and nothing is cut or set under 11 px.
 */
async function expectFits(page: Page, size: { width: number; height: number }): Promise<void> {
  const at = `${size.width}×${size.height}`;
  await page.setViewportSize(size);
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
  for (const id of ['play-button', 'speed-up', 'sim-clock', 'open-in-netmortem', 'topology', 'timeline', 'embed-title']) {
    const box = await byTestId(page, id).first().boundingBox();
    expect(box, `${id} at ${at}`).not.toBeNull();
    expect(box!.x + box!.width, `${id} right edge at ${at}`).toBeLessThanOrEqual(size.width);
    expect(box!.y + box!.height, `${id} bottom edge at ${at}`).toBeLessThanOrEqual(size.height);
  }
  expect([F5_TITLE, shortTitle(F5_TITLE)], `title at ${at}`).toContain(await text(page, 'embed-title'));
  expect(await clippedWithoutCue(page, '[data-layout="embed"] > header'), `bar at ${at}`).toEqual([]);
  // The other charts are a scroll away, and the timeline says so.
  expect(await clippedWithoutCue(page, '[data-testid="timeline"]'), `timeline at ${at}`).toEqual([]);
  const picture = (await boxOf(page, 'topology'))!;
  expect(picture.width, `picture width at ${at}`).toBeGreaterThanOrEqual(size.width * 0.95);
  expect(picture.height, `picture height at ${at}`).toBeGreaterThanOrEqual(size.height * 0.25);
  const chart = (await boxOf(page, 'chart'))!;
  const charts = (await boxOf(page, 'timeline-charts'))!;
  expect(chart.height, `first chart's height at ${at}`).toBeGreaterThanOrEqual(48);
  expect(chart.y, `first chart's top at ${at}`).toBeGreaterThanOrEqual(charts.y);
  expect(chart.bottom, `first chart's bottom at ${at}`).toBeLessThanOrEqual(Math.min(charts.bottom, size.height));
  expect(await textSmallerThan(page, 11), `text under 11 px at ${at}`).toEqual([]);
}

describe('embedding in a wiki page', () => {
  it('runs under the documented Content-Security-Policy with no violation, and asks only for files in its folder', async () => {
    await withApp('csp', `?scenario=${F5}&speed=max`, async (app) => {
      const { page } = app;
      await page.setViewportSize({ width: 1400, height: 850 });
      await untilStatus(page, 'paused');
      await byTestId(page, 'pause-at-chapters').uncheck();
      await byTestId(page, 'play-button').click();
      expect(await page.evaluate(() => fetch(window.location.href).then((r) => r.headers.get('content-security-policy')))).toBe(POLICY);
      await expect.poll(() => text(page, 'run-status'), { timeout: 60_000 }).toBe('done');
      // Pictures draw an SVG into an image and read it back: the riskiest part under a strict policy.
      for (const what of ['topology-png', 'charts-png']) {
        await byTestId(page, 'export-button').click();
        const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, `export-${what}`).click()]);
        expect(file.suggestedFilename()).toMatch(/\.png$/);
      }
      // Charts scrolled out of the timeline are drawn for the picture too, with their legends.
      await byTestId(page, 'export-button').click();
      const [charts] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'export-charts-svg').click()]);
      const svg = await readFile((await charts.path())!, 'utf8');
      const drawn = await byTestId(page, 'timeline-chart').count();
      expect(drawn).toBeGreaterThan(2);
      expect(svg.match(/<svg [^>]*data-testid="chart"/g)?.length).toBe(drawn);
      expect(svg).not.toContain('Waiting for the first one-second sample');
      await byTestId(page, 'share-button').click();
      await expect.poll(() => byTestId(page, 'embed-snippet').count()).toBe(1);
      expectCleanServed(app);
    });
  }, 120_000);

  it('opens the scenario editor under the policy, with CodeMirror styled, completing and searching', async () => {
    await withApp('csp-editor', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 20_000 }).toBe('demo.yaml');
      await byTestId(page, 'edit-button').click();
      await byTestId(page, 'editor-text').click({ timeout: 20_000 });
      // The editor's own style rules applied: its gutter has the app's colour, not none.
      expect(await page.locator('.cm-gutters').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(248, 250, 252)');
      await openCompletionsAndSearch(page);
      expectCleanServed(app);
    });
  }, 60_000);

  it('shows only the controls, the picture and the timeline, fitting 800×500 and 600×400, starting at the chapter asked for', async () => {
    await withApp('embed', `?scenario=${F5}&embed=1&chapter=2`, async (app) => {
      const { page } = app;
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBe(CHAPTER_2_US);
      await untilStatus(page, 'paused');
      expect(await layoutOf(page)).toBe('embed');
      for (const id of ['fault-palette', 'inspector', 'event-log', 'scenario-picker', 'share-button', 'add-chart', 'compare-toggle']) expect(await byTestId(page, id).count(), id).toBe(0);
      expect(await text(page, 'run-status')).toBe('paused');
      expect(await page.locator('header').textContent()).toContain('2/4');
      await expectFits(page, { width: 800, height: 500 });
      await expectFits(page, { width: 600, height: 400 });
      // The way out carries the run and the moment, and opens the full app.
      await byTestId(page, 'open-in-netmortem').focus();
      const href = (await byTestId(page, 'open-in-netmortem').getAttribute('href'))!;
      const q = new URL(href).searchParams;
      expect([q.get('scenario'), q.get('t'), q.get('embed'), q.get('seed')]).toEqual([F5, '40', null, '5']);
      expect(await byTestId(page, 'open-in-netmortem').getAttribute('target')).toBe('_blank');
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 20_000 }).toBeGreaterThan(CHAPTER_2_US);
      expectCleanServed(app);
    });
  }, 120_000);

  it('writes an iframe snippet for the run (size checked as typed, start chapter, autoplay) that opens as an embed', async () => {
    let src = '';
    await withApp('embed-dialog', `?scenario=${F5}`, async (app) => {
      const { page } = app;
      await page.setViewportSize({ width: 1280, height: 720 });
      await untilStatus(page, 'paused');
      await byTestId(page, 'share-button').click();
      await byTestId(page, 'embed-width').fill('500');
      expect(await text(page, 'embed-problem')).toBe('width: at least 600 pixels, so the controls fit (got 500)');
      expect(await byTestId(page, 'embed-snippet').count()).toBe(0);
      await byTestId(page, 'embed-width').fill('64O');
      expect(await text(page, 'embed-problem')).toBe('width: expected a whole number of pixels, got "64O"');
      await byTestId(page, 'embed-width').fill('640');
      await byTestId(page, 'embed-height').fill('420');
      await byTestId(page, 'embed-start').selectOption('2');
      await byTestId(page, 'embed-autoplay').check();
      const snippet = await byTestId(page, 'embed-snippet').inputValue();
      expect(snippet).toMatch(/^<iframe src="[^"]+" width="640" height="420" title="Netmortem: F5 and unknown health[^"]*" loading="lazy" allow="fullscreen" style="border:0"><\/iframe>$/);
      src = /src="([^"]+)"/.exec(snippet)![1]!.replaceAll('&amp;', '&');
      const q = new URL(src).searchParams;
      expect([q.get('scenario'), q.get('chapter'), q.get('autoplay'), q.get('embed'), q.get('t')]).toEqual([F5, '2', '1', '1', null]);
      expectCleanServed(app);
    });
    await withApp('embed-dialog-opened', src.slice(src.indexOf('?')), async (app) => {
      const { page } = app;
      await expect.poll(() => layoutOf(page)).toBe('embed');
      // It replays to chapter 2 and then plays on by itself.
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBeGreaterThan(CHAPTER_2_US);
      expect(['running', 'paused']).toContain(await text(page, 'run-status'));
      expectCleanServed(app);
    });
  }, 120_000);

  it('names a chapter the scenario lacks, replays nothing and opens the gallery', async () => {
    await withApp('embed-bad-chapter', `?scenario=${F5}&embed=1&chapter=9`, async (app) => {
      const { page } = app;
      await expect.poll(() => text(page, 'gallery-reason'), { timeout: 20_000 }).toBe(`chapter: ${F5} has 4 chapters; the link asks for chapter 9`);
      expect(await clockUs(page)).toBe(0);
      await byTestId(page, 'gallery-item').nth(0).click();
      await expect.poll(() => byTestId(page, 'gallery').count()).toBe(0);
      await untilStatus(page, 'paused');
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);
});
