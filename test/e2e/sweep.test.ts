import { readFileSync } from 'node:fs';
import { compressToEncodedURIComponent } from 'lz-string';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createSim, FIX_TOP, impactOf, planSweep, rankRows, runVariant, sweepCsv, sweepHeader, sweepReportHtml, sweepRow } from '../../src/sim';
import { measureFixes } from '../../src/cli/sweep-fixes';
import { loadWithAdditions } from '../../src/worker/load-with-additions';
import { editorText } from './code-editor';
import { appHarness } from './harness';
import { byTestId, expectClean, text, untilLoaded } from './page';
import { chooseFaults, DEMO_SWEEP_FAULTS, openSweep } from './sweep-page';
import { watchMainThread } from './trace';

const DEMO = readFileSync(new URL('../../public/scenarios/demo.yaml', import.meta.url), 'utf8');

const { withApp } = appHarness();

/** Waits until every variant, and every fix run after them, is done. */
async function untilSwept(page: Page, timeout: number): Promise<void> {
  await expect.poll(() => byTestId(page, 'sweep-progress').getAttribute('data-phase'), { timeout, interval: 200 }).toBe('done');
}

const cellNumbers = (page: Page, id: string) =>
  byTestId(page, id)
    .allTextContents()
    .then((all) => all.map((t) => Number(t.replace(/[+,]/g, ''))));

describe('the sweep in the browser', () => {
  it('refuses an "at" outside the run with its field named and marked, and runs nothing', async () => {
    await withApp('sweep-bad-at', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'demo.yaml');
      await openSweep(page);
      await byTestId(page, 'sweep-at').fill('90');
      await byTestId(page, 'sweep-start').click();
      await expect.poll(() => text(page, 'sweep-error')).toBe('at: 90 s is not within the run (the scenario lasts 60 s)');
      expect(await byTestId(page, 'sweep-at').getAttribute('aria-invalid')).toBe('true');
      expect(await byTestId(page, 'sweep-row').count()).toBe(0);
      await byTestId(page, 'sweep-at').fill('soon');
      await byTestId(page, 'sweep-start').click();
      await expect.poll(() => text(page, 'sweep-error')).toBe('at: expected simulated seconds, got "soon"');
      await byTestId(page, 'sweep-at').fill('15');
      await byTestId(page, 'sweep-fix-top').fill('2.5');
      await byTestId(page, 'sweep-start').click();
      await expect.poll(() => text(page, 'sweep-error')).toBe('fixTop: expected a whole number of rows from 0 to 1000, got "2.5"');
      expect(await byTestId(page, 'sweep-fix-top').getAttribute('aria-invalid')).toBe('true');
      expect(await byTestId(page, 'sweep-row').count()).toBe(0);
      expectClean(app);
    });
  });

  it("runs a sweep in a pool sized to the machine, keeps the page responsive, sorts, and opens a row's run with its why and the row's digest", async () => {
    await withApp('sweep-run', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'demo.yaml');
      await openSweep(page);
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      expect(await text(page, 'sweep-workers')).toBe(`${Math.max(1, cores)} worker${cores > 1 ? 's' : ''}`);
      await byTestId(page, 'sweep-at').fill('15');
      await byTestId(page, 'sweep-for').fill('45');
      await chooseFaults(page, DEMO_SWEEP_FAULTS);
      const mainThread = await watchMainThread(page);
      await byTestId(page, 'sweep-start').click();
      await untilSwept(page, 120_000);
      // Three fixes, each on the five worst rows and on the run without faults.
      expect(await text(page, 'sweep-status')).toMatch(/^12 of 12 variants, and 18 runs with the scenario's fixes · /);
      expect(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /sweep\.worker-[\w-]+\.js$/.test(e.name)))).toBe(true);
      // The page's own work per task, in CPU time: on two cores shared with the pool and the test runner, a task's wall
      // time also counts the time the OS ran the workers. `npm run bench:ui` prints both.
      const tasks = await mainThread();
      expect(tasks.length).toBeGreaterThan(0);
      expect(tasks.filter((t) => t.cpuMs > 100)).toEqual([]);

      // The same table as the sweep computed in Node: every row's digest, and the ranking.
      const loaded = loadWithAdditions(DEMO, 'demo.yaml', { seed: 4 }, 'timeline');
      if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
      const plan = planSweep(loaded.scenario, [], { faults: DEMO_SWEEP_FAULTS, pairs: false, at: 15, for: 45 });
      const node = plan.variants.map((v) => impactOf(plan, runVariant(plan, v)));
      const rows = byTestId(page, 'sweep-row');
      expect(await rows.count()).toBe(12);
      const shown = await rows.evaluateAll((trs) => trs.map((tr) => ({ index: Number(tr.getAttribute('data-index')), digest: tr.getAttribute('data-digest') })));
      expect(shown.map((r) => r.digest)).toEqual(shown.map((r) => node[r.index]!.digest));
      const requests = await cellNumbers(page, 'sweep-row-requests');
      expect(requests[0]).toBe(Math.max(...node.map((i) => i.failedRequests!.extra)));

      // Sorted by the keyboard: the header's button, then Enter.
      await byTestId(page, 'sweep-sort-requests').focus();
      await page.keyboard.press('Enter');
      const header = page.locator('th', { has: byTestId(page, 'sweep-sort-requests') });
      expect(await header.getAttribute('aria-sort')).toBe('descending');
      const down = await cellNumbers(page, 'sweep-row-requests');
      expect(down).toEqual([...down].sort((a, b) => b - a));
      await page.keyboard.press('Enter');
      expect(await header.getAttribute('aria-sort')).toBe('ascending');
      const up = await cellNumbers(page, 'sweep-row-requests');
      expect(up).toEqual([...up].sort((a, b) => a - b));
      await byTestId(page, 'sweep-sort-rank').click();

      // The CSV is sweepCsv of the rows Node ranks from the same runs, replays and all.
      const [download] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'sweep-csv').click()]);
      expect(download.suggestedFilename()).toBe('demo-sweep.csv');
      const run = { scenario: 'demo', seed: 4, fixes: [], sets: [], timeline: [], at: 15, for: 45 };
      // The fixes measured on the worst rows as the CLI's sweep measures them.
      const ranked = await measureFixes(
        { text: DEMO, fileName: 'demo.yaml' },
        { seed: 4, sets: [], fixes: [] },
        plan,
        rankRows(node.map((impact) => sweepRow(run, impact))),
        FIX_TOP,
        1,
        'sweep demo',
      );
      expect(ranked.filter((row) => row.fixEffects)).toHaveLength(FIX_TOP);
      expect(readFileSync((await download.path())!, 'utf8')).toBe(sweepCsv(ranked));
      expect(await byTestId(page, 'sweep-row-fix').count()).toBe(FIX_TOP);
      // The report is the one the CLI's --html writes of the same table.
      const [report] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'sweep-report').click()]);
      expect(report.suggestedFilename()).toBe('demo-sweep.html');
      const tableHeader = { ...sweepHeader(plan, { scenario: 'demo', source: 'demo', seed: 4, sets: [] }), fixTop: FIX_TOP };
      expect(readFileSync((await report.path())!, 'utf8')).toBe(sweepReportHtml(tableHeader, ranked));

      const top = rows.first();
      const digest = (await top.getAttribute('data-digest'))!;
      const link = (await top.getByTestId('sweep-row-link').getAttribute('href'))!;
      await top.getByTestId('sweep-open-row').click();
      await expect.poll(() => text(page, 'notice'), { timeout: 30_000 }).toContain(`digest ${digest}, the same as its row`);
      await expect.poll(() => text(page, 'digest'), { timeout: 30_000 }).toBe(digest);
      await byTestId(page, 'why-panel').waitFor();
      await expect.poll(() => byTestId(page, 'why-step').count()).toBeGreaterThan(0);

      // The editor opens on the text as it runs, the row's fault written into its timeline: that text reaches the row's digest.
      await byTestId(page, 'edit-button').click();
      await expect.poll(() => editorText(page).catch(() => ''), { timeout: 20_000 }).toContain('note: added to the timeline in the loaded run');
      const edited = loadWithAdditions(await editorText(page), 'demo.yaml', {}, 'timeline');
      if (!edited.ok) throw new Error(edited.errors.join('\n'));
      const again = createSim(edited.scenario, { fixes: [] });
      again.runUntil(again.durationUs);
      expect(again.report(0).digest).toBe(digest);
      expectClean(app);

      // The row's share link replays the same run, in a page of its own.
      const shared = new URL(link);
      expect(shared.searchParams.get('timeline')).not.toBeNull();
      await withApp('sweep-row-link', shared.search, async (other) => {
        await expect.poll(() => text(other.page, 'digest'), { timeout: 30_000 }).toBe(digest);
        expectClean(other);
      });
    });
  }, 180_000);

  it('sweeps a scenario opened from a link with its own seed and fix, and its rows link to that scenario', async () => {
    const query = `?name=mine.yaml&src=${compressToEncodedURIComponent(DEMO)}&seed=9&fix=wait-for-propagation`;
    await withApp('sweep-inline', query, async (app) => {
      const { page } = app;
      await untilLoaded(page, '');
      await expect.poll(() => page.locator('[data-testid="fix-toggle"][data-fix="wait-for-propagation"]').isChecked()).toBe(true);
      await openSweep(page);
      await chooseFaults(page, ['crash-loop', 'power-off-node']);
      await byTestId(page, 'sweep-fix-top').fill('0');
      await byTestId(page, 'sweep-start').click();
      await untilSwept(page, 60_000);
      expect(await text(page, 'sweep-status')).toMatch(/^5 of 5 variants · /);
      const loaded = loadWithAdditions(DEMO, 'mine.yaml', { seed: 9, fixes: ['wait-for-propagation'] }, 'timeline');
      if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
      const plan = planSweep(loaded.scenario, loaded.appliedFixes, { faults: ['crash-loop', 'power-off-node'], pairs: false, at: 15, for: 45 });
      const digests = Object.fromEntries(plan.variants.map((v) => [v.index, impactOf(plan, runVariant(plan, v)).digest]));
      const shown = await byTestId(page, 'sweep-row').evaluateAll((trs) => trs.map((tr) => [Number(tr.getAttribute('data-index')), tr.getAttribute('data-digest')]));
      expect(Object.fromEntries(shown)).toEqual(digests);
      const link = new URL((await byTestId(page, 'sweep-row-link').first().getAttribute('href'))!);
      expect(link.searchParams.get('name')).toBe('mine.yaml');
      expect(link.searchParams.get('seed')).toBe('9');
      expect(link.searchParams.getAll('fix')).toEqual(['wait-for-propagation']);
      expect(link.searchParams.get('src')).not.toBeNull();
      expectClean(app);
    });
  }, 120_000);

  it("opens a risky setting's row with the setting's overrides, to its digest, and links to it with set=", async () => {
    await withApp('sweep-setting', '?scenario=source-ip.yaml', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'source-ip.yaml');
      await openSweep(page);
      await chooseFaults(page, ['power-off-node']);
      await byTestId(page, 'sweep-fix-top').fill('0');
      await byTestId(page, 'sweep-start').click();
      await untilSwept(page, 90_000);
      expect(await text(page, 'sweep-status')).toMatch(/^(\d+) of \1 variants · /);
      const row = byTestId(page, 'sweep-row').filter({ hasText: 'setting etp-local-unknown-members on service/traefik' });
      expect(await row.count()).toBe(1);
      const digest = (await row.getAttribute('data-digest'))!;
      const link = new URL((await row.getByTestId('sweep-row-link').getAttribute('href'))!);
      expect(link.searchParams.getAll('set')).toEqual(['topology.services.traefik.externalTrafficPolicy=Local']);
      expect(link.searchParams.get('timeline')).toBeNull();
      await row.getByTestId('sweep-open-row').click();
      await expect.poll(() => text(page, 'notice'), { timeout: 30_000 }).toContain(`digest ${digest}, the same as its row`);
      await expect.poll(() => text(page, 'digest'), { timeout: 30_000 }).toBe(digest);
      expectClean(app);
    });
  }, 150_000);

  it('cancel stops the pool at once and keeps the rows already done', async () => {
    await withApp('sweep-cancel', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'demo.yaml');
      await openSweep(page);
      await byTestId(page, 'sweep-start').click();
      await expect.poll(() => byTestId(page, 'sweep-row').count(), { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);
      await byTestId(page, 'sweep-cancel').click();
      const status = await text(page, 'sweep-status');
      const [, done, total] = /cancelled at (\d+) of (\d+) variants/.exec(status) ?? [];
      expect(Number(total)).toBe(60);
      expect(Number(done)).toBeLessThan(60);
      expect(await byTestId(page, 'sweep-row').count()).toBe(Number(done));
      await page.waitForTimeout(1_000);
      expect(await byTestId(page, 'sweep-row').count()).toBe(Number(done));
      expect(await text(page, 'sweep-status')).toBe(status);
      expect(await byTestId(page, 'sweep-cancel').count()).toBe(0);
      expectClean(app);
    });
  }, 120_000);
});
