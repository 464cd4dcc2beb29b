import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parse } from 'yaml';
import { appHarness } from './harness';
import { byTestId, clockUs, expectClean, layoutOf, text, untilStatus } from './page';
import { boxOf, clippedWithoutCue, settled, textSmallerThan } from './geometry';

const INCIDENT = 'its-not-dns.yaml';
interface Chapter {
  at: number;
  title: string;
  question?: string;
}
const { chapters, title } = parse(readFileSync(fileURLToPath(new URL(`../../public/scenarios/${INCIDENT}`, import.meta.url)), 'utf8')) as { chapters: Chapter[]; title: string };

const { withApp } = appHarness({ viewport: { width: 1280, height: 720 } });

const narration = (page: Page) => byTestId(page, 'presenter-narration');
const stage = async (page: Page) => [await narration(page).getAttribute('data-stage'), Number(await narration(page).getAttribute('data-chapter'))];

/**
 * A projector's 1280×720 in presenter mode: the picture has at least half of it, the title and the chapter are whole
 * (the story's text at 16 px or more, fitted rather than scrolled), nothing is cut or under 11 px, the desktop's chart
 * tools and mouse hints are gone, and a Drops tab shows only with drops in it.
 */
async function expectProjectorFit(page: Page, when: string): Promise<void> {
  await settled(page);
  const picture = (await boxOf(page, 'topology'))!;
  expect((picture.width * picture.height) / (1280 * 720), `picture's share of the screen, ${when}`).toBeGreaterThanOrEqual(0.5);
  expect(await text(page, 'presenter-scenario-title'), `the scenario's title, whole, ${when}`).toBe(title);
  expect(await clippedWithoutCue(page, '[data-layout="presenter"] > header'), `bar, ${when}`).toEqual([]);
  expect(await clippedWithoutCue(page, '[data-testid="presenter-column"]'), `story column, ${when}`).toEqual([]);
  const story = await byTestId(page, 'presenter-story').evaluate((el) => ({
    px: parseFloat(getComputedStyle(el).fontSize),
    hidden: el.closest('[data-scroll-area]')!.scrollHeight - el.closest('[data-scroll-area]')!.clientHeight,
  }));
  expect(story.px, `story's type size, ${when}`).toBeGreaterThanOrEqual(16);
  expect(story.hidden, `story's text below its box, ${when}`).toBeLessThanOrEqual(1);
  expect(await textSmallerThan(page, 11), `text under 11 px, ${when}`).toEqual([]);
  for (const id of ['add-chart', 'compare-toggle']) expect(await byTestId(page, id).count(), `${id}, ${when}`).toBe(0);
  expect(await page.getByText('Hover a chart').count(), `mouse hint, ${when}`).toBe(0);
  const tabs = await byTestId(page, 'dock-tab').allTextContents();
  if (tabs.includes('Drops')) {
    await page.getByRole('tab', { name: 'Drops' }).click();
    expect(await byTestId(page, 'presenter-drops').locator('[data-testid="why-button"]').count(), `a Drops tab has drops, ${when}`).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Story' }).click();
  }
}

/** The run has stopped at `us`: a chapter start after a reveal played to it, or a question's seek. */
async function pausedAt(page: Page, us: number): Promise<void> {
  await expect.poll(() => clockUs(page), { timeout: 180_000 }).toBe(us);
  await untilStatus(page, 'paused');
}

describe('presenter mode', () => {
  it("steps through the first incident's chapters by keyboard: a question, then the chapter told and played to the next", async () => {
    await withApp('presenter', `?scenario=${INCIDENT}&speed=max`, async (app) => {
      const { page } = app;
      await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 30_000 }).toBe(INCIDENT);
      await untilStatus(page, 'paused');
      await page.keyboard.press('p');
      await expect.poll(() => layoutOf(page)).toBe('presenter');
      expect(await page.evaluate(() => document.documentElement.classList.contains('presenting'))).toBe(true);
      expect(await stage(page)).toEqual(['ask', 1]);
      expect(await text(page, 'presenter-question')).toBe(chapters[0]!.question);
      await expectProjectorFit(page, 'asking chapter 1');

      // A clicker's PageDown: chapter 1 is told and plays until chapter 2 starts.
      await page.keyboard.press('PageDown');
      expect(await stage(page)).toEqual(['reveal', 1]);
      expect(await text(page, 'presenter-title')).toBe(chapters[0]!.title);
      await pausedAt(page, chapters[1]!.at * 1e6);
      await expectProjectorFit(page, 'chapter 1 told');
      await page.keyboard.press('PageDown');
      expect(await stage(page)).toEqual(['ask', 2]);
      expect(await text(page, 'presenter-question')).toBe(chapters[1]!.question);
      // The arrow key does the same as PageDown here (not a 0.1 s step).
      await page.keyboard.press('ArrowRight');
      expect(await stage(page)).toEqual(['reveal', 2]);
      await pausedAt(page, chapters[2]!.at * 1e6);
      await expectProjectorFit(page, 'chapter 2 told');

      // Back a step: chapter 2's question again, the run replayed to its start; r does it from anywhere.
      await page.keyboard.press('PageUp');
      expect(await stage(page)).toEqual(['ask', 2]);
      await pausedAt(page, chapters[1]!.at * 1e6);
      await page.keyboard.press('PageDown');
      // Only once the reveal has played on does the replay to the chapter's start show on the clock.
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBeGreaterThan(chapters[1]!.at * 1e6);
      await page.keyboard.press('r');
      expect(await stage(page)).toEqual(['ask', 2]);
      await pausedAt(page, chapters[1]!.at * 1e6);

      // The laser pointer follows the mouse above everything.
      await page.keyboard.press('l');
      await page.mouse.move(400, 300);
      await expect.poll(() => byTestId(page, 'laser').evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
      const dot = (await byTestId(page, 'laser').boundingBox())!;
      expect([dot.x + dot.width / 2, dot.y + dot.height / 2]).toEqual([400, 300]);
      // Its tail stays on the way it came and fades once the pointer rests.
      await page.mouse.move(600, 300, { steps: 5 });
      const tail = await byTestId(page, 'laser-trail').first().boundingBox();
      expect(tail!.x + tail!.width / 2).toBeGreaterThan(400);
      expect(tail!.x + tail!.width / 2).toBeLessThan(600);
      await expect.poll(() => byTestId(page, 'laser-trail').evaluateAll((els) => els.map((el) => getComputedStyle(el).opacity))).toEqual(Array(8).fill('0'));

      await page.keyboard.press('Escape');
      await expect.poll(() => layoutOf(page)).not.toBe('presenter');
      expect(await page.evaluate(() => document.documentElement.classList.contains('presenting'))).toBe(false);
      expect(await clockUs(page)).toBe(chapters[1]!.at * 1e6);
      expectClean(app);
    });
  }, 420_000);

  it('shows the drops once a chapter is told, explains the most dropped reason on w, and closes that with Esc first', async () => {
    await withApp('presenter-why', '?scenario=f5-unknown-health.yaml&speed=max&present=1', async (app) => {
      const { page } = app;
      await expect.poll(() => layoutOf(page), { timeout: 30_000 }).toBe('presenter');
      await untilStatus(page, 'paused');
      expect(await stage(page)).toEqual(['ask', 1]);
      // A question hides the drops, which could answer it.
      expect(await byTestId(page, 'presenter-drops').count()).toBe(0);
      // Chapter 3 is the one where the new node takes connections it cannot serve.
      for (let i = 0; i < 5; i++) await page.keyboard.press('PageDown');
      expect(await stage(page)).toEqual(['reveal', 3]);
      // On a 720 px screen the drops take turns with the story, in a tab that appears once there are some.
      await expect.poll(() => byTestId(page, 'dock-tab').allTextContents(), { timeout: 60_000 }).toContain('Drops');
      await page.getByRole('tab', { name: 'Drops' }).click();
      await expect.poll(() => byTestId(page, 'presenter-drops').locator('[data-testid="why-button"]').count(), { timeout: 60_000 }).toBeGreaterThan(0);
      const top = await byTestId(page, 'why-button').first().getAttribute('data-reason');
      await page.keyboard.press('w');
      await expect.poll(() => byTestId(page, 'why-step').count()).toBeGreaterThan(1);
      expect(await text(page, 'why-symptom')).toContain(top!);
      await page.keyboard.press('Escape');
      await expect.poll(() => byTestId(page, 'why-panel').count()).toBe(0);
      expect(await layoutOf(page)).toBe('presenter');
      await page.keyboard.press('Escape');
      await expect.poll(() => layoutOf(page)).not.toBe('presenter');
      expectClean(app);
    });
  }, 120_000);

  it('opens from a link and names a scenario without chapters', async () => {
    await withApp('presenter-link', '?scenario=demo.yaml&present=1', async (app) => {
      const { page } = app;
      await expect.poll(() => layoutOf(page), { timeout: 20_000 }).toBe('presenter');
      await expect.poll(() => text(page, 'presenter-narration')).toContain('This scenario has no chapters to step through');
      await page.keyboard.press('PageDown');
      expect(await clockUs(page)).toBe(0);
      await byTestId(page, 'presenter-exit').click();
      await expect.poll(() => layoutOf(page)).not.toBe('presenter');
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);
});
