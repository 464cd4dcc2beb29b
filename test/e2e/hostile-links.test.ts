import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import { appHarness } from './harness';
import { byTestId, clockUs, text, untilLoaded, untilStatus } from './page';
import { editorText, fillEditor } from './code-editor';

const DEMO = 'demo.yaml';
const F5 = 'f5-unknown-health.yaml';

const harness = appHarness();
const { withApp } = harness;

describe('hostile links and nothing lost', () => {
  it.each([
    ['a fault list the decoder throws on', `?scenario=${DEMO}&faults=zYPVShau`, 'faults: the list of applied faults in the link is damaged (the link may have been cut off)'],
    ['a scenario the decoder throws on', '?name=mine.yaml&src=zHDBNWHiUN', 'src: the scenario in the link is damaged (the link may have been cut off)'],
    ['a moment past the end of the run', `?scenario=${DEMO}&t=1e300`, `t: ${DEMO} runs 60 s; the link asks for 1e+300 s`],
  ])(
    'names what is wrong with %s over the gallery, with the app behind it, and replays nothing',
    async (name, query, reason) => {
      await withApp(`hostile-link-${name}`, query, async (app) => {
        const { page } = app;
        await expect.poll(() => text(page, 'gallery-reason'), { timeout: 20_000 }).toBe(reason);
        await expect.poll(() => byTestId(page, 'scenario-picker').count()).toBe(1);
        expect(await clockUs(page)).toBe(0);
        await byTestId(page, 'gallery-item').nth(0).click();
        await expect.poll(() => byTestId(page, 'gallery').count()).toBe(0);
        await untilStatus(page, 'paused');
        expect(app.problems.pageErrors).toEqual([]);
      });
    },
    60_000,
  );

  it('shows an error thrown while drawing with a way back, never a blank page', async () => {
    await withApp('render-error', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      // A browser whose matchMedia fails, until the test lets it work again; the theme asks it while drawing.
      await page.addInitScript(() => {
        const real = window.matchMedia.bind(window);
        (window as unknown as { broken: boolean }).broken = true;
        window.matchMedia = (query) => {
          if ((window as unknown as { broken: boolean }).broken) throw new Error('matchMedia refused by the test');
          return real(query);
        };
      });
      await page.reload();
      await expect.poll(() => text(page, 'app-error-message'), { timeout: 20_000 }).toBe('"matchMedia refused by the test"');
      expect(await byTestId(page, 'app-error-reload').isVisible()).toBe(true);
      await page.evaluate(() => ((window as unknown as { broken: boolean }).broken = false));
      await byTestId(page, 'app-error-gallery').click();
      await expect.poll(() => byTestId(page, 'gallery').count()).toBe(1);
      expect(await byTestId(page, 'app-error').count()).toBe(0);
      await byTestId(page, 'gallery-item').nth(0).click();
      await untilStatus(page, 'paused');
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);

  it('keeps an unsaved draft when a link opens in its tab, and offers it back', async () => {
    await withApp('draft-and-link', `?scenario=${DEMO}`, async (app) => {
      const { page, context } = app;
      await untilLoaded(page, DEMO);
      await byTestId(page, 'edit-button').click();
      await byTestId(page, 'editor-text').click({ timeout: 20_000 });
      const draft = `${await editorText(page)}# my unsaved draft\n`;
      await fillEditor(page, draft);

      // Opening a link in the same tab: the page goes (and saves), the link's run takes the tab.
      await page.goto(`${harness.server().url}?scenario=${F5}`);
      await untilLoaded(page, F5);
      await expect
        .poll(() => text(page, 'notice-message'), { timeout: 20_000 })
        .toBe(`The link opened in place of this tab's run of ${DEMO}; your draft of ${DEMO} is kept and comes back in a new tab.`);
      await byTestId(page, 'notice-action').click();
      await expect.poll(() => editorText(page), { timeout: 20_000 }).toBe(draft);

      // A new tab takes the draft set aside, as it would a closed tab's.
      const second = await context.newPage();
      await second.goto(harness.server().url);
      await expect
        .poll(() => text(second, 'notice-message'), { timeout: 20_000 })
        .toMatch(new RegExp(`^Back where you left off: ${DEMO.replace('.', '\\.')} at \\d+\\.\\d s; your draft of ${DEMO.replace('.', '\\.')} is in the editor\\.$`));
      await expect.poll(() => editorText(second), { timeout: 20_000 }).toBe(draft);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 120_000);

  it('forgets a run left for over two weeks, and says so', async () => {
    await withApp('session-pruned', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await untilLoaded(page, DEMO);
      await page.evaluate((file) => {
        const run = { scenario: { file }, seed: 1, fixes: [], faults: [], t: 0 };
        localStorage.setItem('netmortem.session.gone', JSON.stringify({ tab: 'gone', savedAt: Date.now() - 15 * 24 * 3600e3, run }));
        localStorage.setItem('netmortem.session.kept', JSON.stringify({ tab: 'kept', savedAt: Date.now() - 13 * 24 * 3600e3, run }));
      }, F5);
      await page.reload();
      await expect
        .poll(() => text(page, 'notice-message'), { timeout: 20_000 })
        .toMatch(new RegExp(`^Back where you left off: demo\\.yaml at 0\\.0 s\\. Forgot 1 saved run left for over 14 days: ${F5.replace('.', '\\.')} of .+\\.$`));
      expect(await page.evaluate(() => [localStorage.getItem('netmortem.session.gone'), localStorage.getItem('netmortem.session.kept') !== null])).toEqual([null, true]);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);

  it('keeps text typed into the editor of a tab whose scenario did not load', async () => {
    const broken = 'version: 1\nid: mine\ntopology: 7\n';
    await withApp('draft-without-run', `?name=mine.yaml&src=${compressToEncodedURIComponent(broken)}`, async (app) => {
      const { page } = app;
      await expect.poll(() => byTestId(page, 'error-banner').textContent(), { timeout: 20_000 }).toContain('Could not load mine.yaml');
      await byTestId(page, 'edit-button').click();
      await byTestId(page, 'editor-text').click({ timeout: 20_000 });
      // The link's own text is there to mend, as the link is gone from the address bar.
      expect(await editorText(page)).toBe(broken);
      await fillEditor(page, `${broken}# mending it\n`);
      await page.reload();
      await expect.poll(() => text(page, 'notice-message'), { timeout: 20_000 }).toBe('Back where you left off: your draft of mine.yaml is in the editor.');
      await expect.poll(() => editorText(page), { timeout: 20_000 }).toBe(`${broken}# mending it\n`);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);
});
