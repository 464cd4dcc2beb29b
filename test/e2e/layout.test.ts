import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { appHarness } from './harness';
import { readFileSync } from 'node:fs';
import { boxOf, clippedWithoutCue, pictureBoxesUnderOverlays, pictureTextSmallerThan, rowsOf, settled, textSmallerThan } from './geometry';
import { byTestId, clockUs, expectClean, text, untilLoaded, untilStatus } from './page';

const { withApp } = appHarness({ viewport: { width: 1600, height: 900 } });

/** The longest texts of the shipped scenarios: title, description, twelve chapters, eight fixes, three drop reasons by 60 s. */
const HEAVY = 'its-not-dns.yaml';

/** Width of the option the closed select shows, in its font, and the width its text gets (less padding and arrow). */
function pickerText(page: Page): Promise<{ shown: string; textPx: number; roomPx: number }> {
  return byTestId(page, 'scenario-picker').evaluate((el) => {
    const select = el as HTMLSelectElement;
    const shown = select.selectedOptions[0]?.textContent ?? '';
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = getComputedStyle(select).font;
    const style = getComputedStyle(select);
    // Chromium draws the arrow in the right padding's place plus about 20 px.
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    return { shown, textPx: context.measureText(shown).width, roomPx: room };
  });
}

/** How far the right column's panels reach past its bottom: they are laid out in it, so any is painted over what is below. */
const spill = (page: Page): Promise<number> => byTestId(page, 'side-column').evaluate((el) => el.scrollHeight - el.clientHeight);

describe('layouts that fit their screens', () => {
  it('desktop: a one-row header from 1400 px, the picker’s text whole, palette cards at 1280, and a right column that never clips without a cue', async () => {
    await withApp('layout-desktop', `?scenario=${HEAVY}&speed=max`, async (app) => {
      const { page } = app;
      await untilLoaded(page, HEAVY);
      await byTestId(page, 'pause-at-chapters').uncheck();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 120_000 }).toBeGreaterThanOrEqual(60e6);
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      await expect.poll(() => byTestId(page, 'why-button').count()).toBeGreaterThanOrEqual(3);

      for (const size of [
        { width: 1920, height: 1080 },
        { width: 1600, height: 900 },
        { width: 1440, height: 900 },
        { width: 1366, height: 768 },
        { width: 1280, height: 720 },
      ]) {
        const at = `${size.width}×${size.height}`;
        await page.setViewportSize(size);
        await settled(page);
        // The playwright clicks above scrolled the scenario's text; a reader arriving sees its top.
        await page.evaluate(() => document.querySelectorAll('[data-scroll-area]').forEach((el) => (el.scrollTop = 0)));
        await settled(page);

        if (size.width >= 1400) expect(await rowsOf(page, 'header'), `header rows at ${at}`).toBe(1);
        const picker = await pickerText(page);
        expect(picker.textPx, `picker text "${picker.shown}" at ${at}`).toBeLessThanOrEqual(picker.roomPx);
        const palette = await boxOf(page, 'fault-palette');
        expect(palette?.width ?? 0, `palette open as cards at ${at}`).toBeGreaterThanOrEqual(180);
        expect((await boxOf(page, 'fault-card'))?.height ?? 0, `a fault card at ${at}`).toBeGreaterThan(50);

        expect(await clippedWithoutCue(page, '[data-testid="side-column"]'), `right column at ${at}`).toEqual([]);
        // Where the event log is its own panel (not a tab under the picture), a hundred-odd events scroll behind a cue.
        if ((await page.locator('section[aria-label="Event log"]').count()) > 0) {
          expect(await clippedWithoutCue(page, 'section[aria-label="Event log"]'), `event log at ${at}`).toEqual([]);
        }
        // The side column ends inside the window, and every drop reason is a row of the (scrolling) list.
        expect((await boxOf(page, 'side-column'))!.bottom, `side column bottom at ${at}`).toBeLessThanOrEqual(size.height);
        expect(await spill(page), `side column's panels past its bottom at ${at}`).toBeLessThanOrEqual(1);
        expect(await byTestId(page, 'drops').locator('li').count()).toBe(await byTestId(page, 'why-button').count());
        // The scenario's title is whole in view above the chapter card, at the top of its text.
        const title = (await boxOf(page, 'scenario-title'))!;
        const about = await byTestId(page, 'scenario-title').evaluate((el) => el.closest('[data-scroll-area]')!.getBoundingClientRect().bottom);
        expect(title.bottom, `scenario title at ${at}`).toBeLessThanOrEqual(about);
        expect(await textSmallerThan(page, 11), `text under 11 px at ${at}`).toEqual([]);
      }
      // With a why chain open too, on the shortest screen: the chain gives way, and still nothing is cut unannounced.
      await byTestId(page, 'why-button').first().click();
      await expect.poll(() => byTestId(page, 'why-step').count()).toBeGreaterThan(1);
      await settled(page);
      expect(await clippedWithoutCue(page, '[data-testid="side-column"]'), 'right column with a why at 1280×720').toEqual([]);
      expect((await boxOf(page, 'side-column'))!.bottom, 'side column bottom with a why').toBeLessThanOrEqual(720);
      expect(await spill(page), "side column's panels past its bottom with a why").toBeLessThanOrEqual(1);
      expectClean(app);
    });
  }, 180_000);

  it('pauses the run while a fault is placed and set, applies it at the moment it was dropped, then plays on', async () => {
    await withApp('layout-placing-pauses', '?scenario=demo.yaml&speed=2', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'demo.yaml');
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 10_000 }).toBeGreaterThan(2e6);

      // Picked from the keyboard: the run stops at once and stays stopped while the pod is chosen and the grace set.
      await page.locator('[data-testid="fault-card"][data-fault="delete-pod"]').focus();
      await page.keyboard.press('Enter');
      await untilStatus(page, 'paused');
      const dropped = await clockUs(page);
      await page.locator('[data-testid="pod"][data-pod="web-1"]').focus();
      await page.keyboard.press('Enter');
      const popover = byTestId(page, 'fault-popover');
      await popover.waitFor({ state: 'visible' });
      await page.waitForTimeout(1_000);
      expect(await clockUs(page)).toBe(dropped);
      expect(await text(page, 'run-status')).toBe('paused');
      await popover.getByTestId('fault-param').fill('0');
      await popover.getByTestId('fault-button').click();
      await popover.waitFor({ state: 'detached' });
      await untilStatus(page, 'running');
      const applied = byTestId(page, 'event-log-entry').filter({ hasText: 'Delete pod (user)' });
      await expect.poll(() => applied.count()).toBe(1);
      const stamp = (await applied.first().textContent())!.slice(0, 9);
      const ms = Math.floor(dropped / 1000);
      expect(stamp).toBe(`${String(Math.floor(ms / 60_000)).padStart(2, '0')}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`);

      // Given up while paused: it stays paused.
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      await page.locator('[data-testid="fault-card"][data-fault="delete-pod"]').focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
      expect(await text(page, 'run-status')).toBe('paused');
      expectClean(app);
    });
  }, 60_000);

  it('fits the shortcuts list on a 768 px tall screen, every key as wide as its label', async () => {
    await withApp('layout-shortcuts', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'demo.yaml');
      for (const width of [1366, 1024]) {
        await page.setViewportSize({ width, height: 768 });
        await byTestId(page, 'shortcuts-button').click();
        const dialog = byTestId(page, 'shortcuts');
        await dialog.waitFor({ state: 'visible' });
        const box = (await boxOf(page, 'shortcuts'))!;
        expect(box.y, `top at ${width}`).toBeGreaterThanOrEqual(0);
        expect(box.bottom, `bottom at ${width}`).toBeLessThanOrEqual(768);
        const scroll = await dialog.locator('[data-scroll-area]').evaluate((el) => el.scrollHeight - el.clientHeight);
        expect(scroll, `the list scrolls at ${width}`).toBeLessThanOrEqual(1);
        // Each key's box against the same key laid out on its own at its content's width.
        const keys = await byTestId(page, 'shortcut-key').evaluateAll((els) =>
          els.map((el) => {
            const alone = el.cloneNode(true) as HTMLElement;
            alone.style.cssText = 'position:absolute;width:max-content;left:0;top:0';
            document.body.append(alone);
            const natural = alone.getBoundingClientRect();
            alone.remove();
            const laid = el.getBoundingClientRect();
            return { key: el.textContent, width: laid.width - natural.width, height: laid.height - natural.height };
          }),
        );
        expect(keys.filter((k) => Math.abs(k.width) > 0.5 || Math.abs(k.height) > 0.5)).toEqual([]);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
      expectClean(app);
    });
  });

  it('summarises the hundred instances of its-not-dns as two groups at Fit, names its Services in a caption on a 1280×720 screen, and opens a group into named machines from the keyboard', async () => {
    await withApp('machine-groups', `?scenario=${HEAVY}`, async (app) => {
      const { page } = app;
      await page.setViewportSize({ width: 1280, height: 720 });
      await untilLoaded(page, HEAVY);
      const caption = page.getByTestId('element-caption');
      await expect.poll(() => caption.textContent()).toMatch(/^svc\/kube-dns · svc\/kube-dns-upstream · .*dns-resolver × 2$/);
      expect(await caption.evaluate((el) => getComputedStyle(el).visibility)).toBe('visible');
      const groups = page.getByTestId('machine-group');
      await expect.poll(() => groups.count()).toBe(2);
      expect(await groups.locator('.topo-mgroup-name').allTextContents()).toEqual(['20 instances running metric', '80 instances running alerting']);
      const scale = (): Promise<number> =>
        page.evaluate(() => Number(/scale\(([\d.e-]+)\)/.exec(document.querySelector('svg[data-testid="topology"] > g')!.getAttribute('transform') ?? '')?.[1]));
      const farNames = (): Promise<number> =>
        page.evaluate(
          () =>
            Array.from(document.querySelectorAll<SVGTextElement>('svg[data-testid="topology"] .topo-far-title')).filter(
              (t) => getComputedStyle(t).visibility !== 'hidden' && t.getBoundingClientRect().width > 0,
            ).length,
        );
      // At Fit a machine's name would be drawn under 11 px: none is shown, the headings are.
      expect(await scale()).toBeLessThan(11 / 34);
      expect(await farNames()).toBe(0);
      const metric = groups.filter({ hasText: 'running metric' });
      await metric.focus();
      await page.keyboard.press('Enter');
      await expect.poll(scale).toBeGreaterThanOrEqual(11 / 34);
      await settled(page);
      expect(await farNames()).toBeGreaterThan(0);
      expect(await pictureTextSmallerThan(page, 11)).toEqual([]);
      // The group is shown from its heading, which sits right above its machines: the title comes to rest at the left
      // of the picture, and the first machine's name under it.
      const picture = (await byTestId(page, 'topology').boundingBox())!;
      await expect
        .poll(async () => {
          const title = (await metric.locator('.topo-mgroup-title').boundingBox())!;
          const first = (await page.locator('svg[data-testid="topology"] .topo-machine .topo-far-title').first().boundingBox())!;
          return title.x >= picture.x && title.x < picture.x + 60 && title.y >= picture.y && first.y > title.y && first.y - title.y < 120 && first.y < picture.y + picture.height;
        })
        .toBe(true);
      // Zoomed in until the Services' own names can be read (26 px far names), the caption goes.
      const picture2 = (await byTestId(page, 'topology').boundingBox())!;
      await page.mouse.move(picture2.x + picture2.width / 2, picture2.y + picture2.height / 2);
      expect(await caption.evaluate((el) => getComputedStyle(el).visibility)).toBe('visible');
      // The drawing takes a wheel's zoom once the gesture rests.
      for (let before = await scale(); before < 11 / 26; before = await scale()) {
        await page.mouse.wheel(0, -300);
        await expect.poll(scale).toBeGreaterThan(before);
      }
      await expect.poll(() => caption.evaluate((el) => getComputedStyle(el).visibility)).toBe('hidden');
      expectClean(app);
    });
  });

  it('draws no text in the picture under 11 px at Fit, and nothing under its legend or toggles, in every shipped scenario, on the desktop and in the embed', async () => {
    const index = JSON.parse(readFileSync(new URL('../../public/scenarios/index.json', import.meta.url), 'utf8')) as { scenarios: { file: string }[] };
    const files = index.scenarios.map((s) => s.file);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      for (const [query, sizes] of [
        [
          '',
          [
            [1920, 1080],
            [1280, 720],
          ],
        ],
        ['&embed=1', [[800, 500]]],
      ] as const) {
        await withApp(`picture-text-${file}`, `?scenario=${file}${query}`, async (app) => {
          const { page } = app;
          await expect.poll(() => page.locator('svg[data-testid="topology"] text').count(), { timeout: 30_000 }).toBeGreaterThan(0);
          for (const [width, height] of sizes) {
            await page.setViewportSize({ width, height });
            await settled(page);
            await expect.poll(() => pictureTextSmallerThan(page, 11), { timeout: 5_000, message: `${file}${query} at ${width}×${height}` }).toEqual([]);
            await expect.poll(() => pictureBoxesUnderOverlays(page), { timeout: 5_000, message: `${file}${query} at ${width}×${height}` }).toEqual([]);
          }
          expectClean(app);
        });
      }
    }
  }, 240_000);
});
