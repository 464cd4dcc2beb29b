import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { appHarness } from './harness';
import { byTestId, clockUs, text, untilLoaded, untilStatus } from './page';

const DEMO = 'demo.yaml';
const F5 = 'f5-unknown-health.yaml';

const harness = appHarness();
const { withApp } = harness;

/** Deletes web-1 from its inspector, with no grace period, at the run's present moment. */
async function deleteWeb1(page: Page): Promise<void> {
  await page.locator('[data-testid="pod"][data-pod="web-1"]').click();
  const inspector = byTestId(page, 'inspector');
  await inspector.locator('[data-testid="fault-param"][data-param="gracePeriodSeconds"]').fill('0');
  await inspector.locator('[data-testid="fault-button"][data-fault="delete-pod"]').click();
}

/** The link the Share dialog writes for the run as it stands: everything that makes it, in one string. */
async function shareLink(page: Page): Promise<string> {
  await byTestId(page, 'share-button').click();
  const link = await byTestId(page, 'share-link').inputValue();
  await page.keyboard.press('Escape');
  return link.slice(link.indexOf('?'));
}

describe('nothing lost', () => {
  it('a crashed worker is replaced by itself, and the run replayed with the fault applied by hand to the same digest', async () => {
    await withApp('worker-crash', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await untilLoaded(page, DEMO);
      await deleteWeb1(page);
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'digest'), { timeout: 60_000 }).toMatch(/^[0-9a-f]{16}$/);
      const digest = await text(page, 'digest');
      const before = await shareLink(page);

      const [worker] = page.workers();
      await worker!.evaluate(() => {
        setTimeout(() => {
          throw new Error('killed by the test');
        });
      });
      await expect
        .poll(() => text(page, 'notice-message'), { timeout: 20_000 })
        // Whether the dead worker had stored its checkpoint at the end before it died is a race; the digest says the rest.
        .toMatch(
          /killed by the test.* A new worker took over and (replayed the run to|restored the run's checkpoint at|went on from the run's checkpoint at \d+\.\d s to) 60\.0 s with the 1 fault you applied\.$/,
        );
      expect(await byTestId(page, 'error-banner').count()).toBe(0);
      await expect.poll(() => text(page, 'digest'), { timeout: 60_000 }).toBe(digest);
      expect(await shareLink(page)).toBe(before);
      // The dead worker's uncaught error is the only complaint.
      expect(app.problems.pageErrors).toEqual([]);
      expect(app.problems.consoleErrors.filter((e) => !e.includes('killed by the test'))).toEqual([]);
    });
  }, 120_000);

  it('a worker replacing a crashed one goes on from the newest checkpoint the crashed one stored, to the same digest', async () => {
    await withApp('worker-crash-checkpoint', `?scenario=${F5}&speed=max`, async (app) => {
      const { page } = app;
      await untilLoaded(page, F5);
      await byTestId(page, 'pause-at-chapters').uncheck();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'digest'), { timeout: 90_000 }).toMatch(/^[0-9a-f]{16}$/);
      const digest = await text(page, 'digest');

      const crashedAt = Date.now();
      await page.workers()[0]!.evaluate(() => {
        setTimeout(() => {
          throw new Error('killed by the test');
        });
      });
      // The checkpoint at the end, if the dead worker stored it in time, or an earlier one it stored while playing.
      const notice = /killed by the test.* A new worker took over and (?:went on from the run's checkpoint at (\d+\.\d) s to 120\.0 s|restored the run's checkpoint at (120\.0) s)\.$/;
      await expect.poll(() => text(page, 'notice-message'), { timeout: 30_000 }).toMatch(notice);
      const [, earlier, end] = notice.exec(await text(page, 'notice-message'))!;
      const from = Number(earlier ?? end);
      await expect.poll(() => text(page, 'digest'), { timeout: 30_000 }).toBe(digest);
      console.log(`f5-unknown-health: recovered at 120 s from the stored checkpoint at ${from} s, ${Date.now() - crashedAt} ms after the crash`);
      expect(from).toBeGreaterThan(0);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 180_000);

  it('keeps the run across a reload, keeps two tabs apart, and hands a closed tab’s run to the next one', async () => {
    await withApp('autosave', `?scenario=${DEMO}&speed=5`, async (app) => {
      const { page, context } = app;
      await untilLoaded(page, DEMO);
      // The link has done its work: a reload now restores the saved run, not the link's.
      expect(new URL(page.url()).search).toBe('');
      await deleteWeb1(page);
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 20_000 }).toBeGreaterThan(3e6);
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      const run = await shareLink(page);

      await page.reload();
      await expect.poll(() => text(page, 'notice-message'), { timeout: 20_000 }).toMatch(/^Back where you left off: demo\.yaml at \d+\.\d s, with the 1 fault you applied\.$/);
      await expect.poll(() => shareLink(page), { timeout: 20_000 }).toBe(run);

      // A second tab: told the first is open, it starts afresh and keeps its own run.
      const second = await context.newPage();
      await second.goto(app.page.url());
      await expect
        .poll(() => text(second, 'notice-message'), { timeout: 20_000 })
        .toBe('Netmortem is open in another tab with its own run. This tab keeps a separate one, so neither overwrites the other.');
      await untilLoaded(second, DEMO);
      await byTestId(second, 'scenario-picker').selectOption(F5);
      await untilLoaded(second, F5);
      // Past the next autosave of both tabs.
      await second.waitForTimeout(2_500);

      await page.reload();
      await expect.poll(() => shareLink(page), { timeout: 20_000 }).toBe(run);

      // The first tab closes; a new one takes its run rather than the second tab's, which is still open.
      await page.close();
      const third = await context.newPage();
      await third.goto(second.url());
      await expect.poll(() => text(third, 'notice-message'), { timeout: 20_000 }).toMatch(/^Back where you left off: demo\.yaml/);
      await expect.poll(() => shareLink(third), { timeout: 20_000 }).toBe(run);
      expect(await byTestId(second, 'scenario-picker').inputValue()).toBe(F5);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 120_000);
});
