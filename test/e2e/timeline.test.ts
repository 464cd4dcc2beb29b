import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parseDocument } from 'yaml';
import type { RunReport } from '../../src/sim/api';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { loadScenario } from '../../src/sim/scenario/load';
import { createSim } from '../../src/sim/sim';
import { simTime } from '../../src/sim/core/time';
import { parseUrlParams } from '../../src/state/url-params';
import { formatPerSecond } from '../../src/ui/components/format';
import { appHarness } from './harness';
import { byTestId, clockUs, expectClean, text, untilStatus } from './page';

const DEMO = 'demo.yaml';
const demoPath = fileURLToPath(new URL(`../../public/scenarios/${DEMO}`, import.meta.url));

const harness = appHarness();
const { withApp } = harness;

async function waitUntilReady(page: Page, file = DEMO): Promise<void> {
  await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 10_000 }).toBe(file);
  await untilStatus(page, 'paused');
}

async function playToEnd(page: Page): Promise<void> {
  await byTestId(page, 'play-button').click();
  await expect.poll(() => text(page, 'run-status'), { timeout: 60_000, interval: 250 }).toBe('done');
}

/** `m:ss` → seconds. */
function seconds(label: string): number {
  const [m, s] = label.split(':').map(Number);
  return m! * 60 + s!;
}

/** The pixel position of simulated second `t` in a timeline chart (plot margins as drawn: left 56, right 26). */
async function chartPoint(page: Page, index: number, t: number, durationS: number): Promise<{ x: number; y: number }> {
  // The charts scroll inside the timeline; bring this one (title and legend too) into view first.
  await byTestId(page, 'timeline-chart')
    .nth(index)
    .evaluate((row) => row.scrollIntoView({ block: 'nearest' }));
  const box = await byTestId(page, 'chart').nth(index).boundingBox();
  if (!box) throw new Error(`chart ${index} is not on screen`);
  const w = box.width - 56 - 26;
  return { x: box.x + 56 + (w * t) / durationS, y: box.y + box.height / 2 };
}

/** The demo's report computed in Node the way the worker does it. */
async function nodeReport(fixes: string[] = []): Promise<RunReport> {
  const loaded = loadScenario(await readFile(demoPath, 'utf8'), DEMO, { faultIds: FAULT_IDS, fixes });
  if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
  const sim = createSim(loaded.scenario, { fixes: loaded.appliedFixes });
  sim.runUntil(sim.durationUs);
  return sim.report(0);
}

/** Legend values of one chart, by series name. */
async function legendValues(page: Page, chart: number): Promise<Record<string, string>> {
  const items = byTestId(page, 'timeline-chart').nth(chart).getByTestId('legend-item');
  const out: Record<string, string> = {};
  for (const item of await items.all()) {
    out[(await item.getAttribute('data-series')) ?? '?'] = ((await item.getByTestId('legend-value').textContent()) ?? '').trim();
  }
  return out;
}

/** The demo with two timed charts and a histogram, so the crosshair has more than one chart to cross. */
async function twoChartDemo(): Promise<Buffer> {
  const doc = parseDocument(await readFile(demoPath, 'utf8'));
  doc.set('charts', [
    {
      title: 'Requests',
      kind: 'rate',
      unit: 'requests / s',
      series: [
        { metric: 'requests.ok', label: 'ok' },
        { metric: 'requests.failed', label: 'failed' },
      ],
    },
    { title: 'SYNs', kind: 'rate', series: [{ metric: 'tcp.syn.sent', label: 'SYNs' }] },
    { title: 'Latency', kind: 'histogram', unit: 'ms', series: [{ metric: 'requests.latency_ms', label: 'requests' }] },
  ]);
  return Buffer.from(doc.toString(), 'utf8');
}

describe('The timeline', () => {
  it('shows every chart’s values under the crosshair, as the simulation recorded them', async () => {
    const report = await nodeReport();
    await withApp('timeline-crosshair', `?speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await byTestId(page, 'open-file').setInputFiles({ name: 'demo.yaml', mimeType: 'application/yaml', buffer: await twoChartDemo() });
      await expect.poll(() => byTestId(page, 'timeline-chart').count()).toBe(2);
      expect(await byTestId(page, 'histogram-chart').count()).toBe(1);
      await playToEnd(page);

      const at = await chartPoint(page, 1, 21, 60);
      await page.mouse.move(at.x, at.y);
      await expect.poll(() => text(page, 'crosshair-time')).toMatch(/^0:2\d$/);
      const t = seconds(await text(page, 'crosshair-time'));
      const step = report.series['requests.ok']!.stepSeconds;
      const k = t / step - 1;
      const expected = (name: string) => formatPerSecond(report.series[name]!.values[k]! / step);
      await expect.poll(() => legendValues(page, 0)).toEqual({ 'requests.ok': expected('requests.ok'), 'requests.failed': expected('requests.failed') });
      await expect.poll(() => legendValues(page, 1)).toEqual({ 'tcp.syn.sent': expected('tcp.syn.sent') });
      // Both charts draw the crosshair with a dot per series.
      for (const i of [0, 1]) await expect.poll(() => byTestId(page, 'chart').nth(i).locator('circle.timeline-dot').count()).toBeGreaterThan(0);

      // ] and [ move it one sample; the markers show the timeline's fault.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press(']');
      await expect.poll(() => text(page, 'crosshair-time')).toBe(`0:${t + 1}`);
      await page.keyboard.press('[');
      await page.keyboard.press('[');
      await expect.poll(() => text(page, 'crosshair-time')).toBe(`0:${t - 1}`);
      const faults = byTestId(page, 'time-lane').locator('[data-testid="timeline-marker"][data-kind="fault"]');
      await expect.poll(() => faults.count()).toBe(1);
      expect(await faults.locator('title').textContent()).toContain('pod/web-0');

      // The ? list names the timeline's keys.
      await page.keyboard.press('?');
      const help = byTestId(page, 'shortcuts');
      await help.waitFor({ state: 'visible' });
      expect(await help.textContent()).toContain('Timeline: move the crosshair a second back or on');
      expect(await help.textContent()).toContain('Open or close Compare');
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
      expectClean(app);
    });
  }, 60_000);

  it('zooms to a brushed range and back on double-click or Reset', async () => {
    await withApp('timeline-brush', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await playToEnd(page);
      const from = await chartPoint(page, 0, 15, 60);
      const to = await chartPoint(page, 0, 30, 60);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 6 });
      await page.mouse.up();
      await expect.poll(() => text(page, 'zoom-range')).toMatch(/^0:1[45]–0:(29|30|31)/);
      // The shared axis now shows only the brushed quarter minute (it redraws on the next animation frame).
      const ticks = () => byTestId(page, 'time-lane').locator('.tick text').allTextContents();
      await expect.poll(async () => (await ticks()).map(seconds).every((s) => s >= 14 && s <= 31)).toBe(true);
      expect(await text(page, 'run-status')).toBe('done');

      await byTestId(page, 'chart')
        .first()
        .dblclick({ position: { x: 200, y: 30 } });
      await expect.poll(() => byTestId(page, 'zoom-range').count()).toBe(0);
      await expect.poll(ticks).toContain('1:00');

      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 6 });
      await page.mouse.up();
      await byTestId(page, 'zoom-reset').click();
      await expect.poll(() => byTestId(page, 'zoom-range').count()).toBe(0);
      expectClean(app);
    });
  }, 60_000);

  it('jumps back on a click, replaying a fault the user applied, and the run then reproduces itself', async () => {
    await withApp('timeline-jump', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
      await expect.poll(() => clockUs(page)).toBe(500_000);
      await page.locator('[data-testid="pod"][data-pod="web-1"]').click();
      await byTestId(page, 'inspector').locator('[data-testid="fault-param"][data-param="gracePeriodSeconds"]').fill('0');
      await byTestId(page, 'inspector').locator('[data-testid="fault-button"][data-fault="delete-pod"]').click();
      await playToEnd(page);
      await expect.poll(() => text(page, 'digest'), { timeout: 10_000 }).toMatch(/^[0-9a-f]{16}$/);
      const digest = await text(page, 'digest');
      const lane = byTestId(page, 'time-lane').locator('[data-testid="timeline-marker"][data-kind="fault"]');
      await expect.poll(() => lane.count()).toBe(2);

      const probe = await chartPoint(page, 0, 40, 60);
      await page.mouse.move(probe.x, probe.y);
      await expect.poll(() => text(page, 'crosshair-time')).toMatch(/^0:(39|40|41)$/);
      const before = await legendValues(page, 0);

      const jump = await chartPoint(page, 0, 10, 60);
      await page.mouse.click(jump.x, jump.y);
      await untilStatus(page, 'paused');
      await expect.poll(() => clockUs(page), { timeout: 10_000 }).toBeLessThan(12_000_000);
      // The run goes on from the nearest checkpoint with its progress shown; the jump has landed when that goes.
      await expect.poll(() => byTestId(page, 'seek-progress').count(), { timeout: 30_000 }).toBe(0);
      const landed = await clockUs(page);
      expect(landed).toBeGreaterThan(8_000_000);
      expect(landed % 100_000).toBe(0);
      expect(await byTestId(page, 'digest').count()).toBe(0);
      // The replayed run already holds the user's fault at 0.5 s; the timeline's own comes again at 20 s.
      await expect.poll(() => lane.count()).toBe(1);

      await playToEnd(page);
      await expect.poll(() => text(page, 'digest'), { timeout: 10_000 }).toMatch(/^[0-9a-f]{16}$/);
      expect(await text(page, 'digest')).toBe(digest);
      await expect.poll(() => lane.count()).toBe(2);
      await page.mouse.move(probe.x, probe.y);
      await expect.poll(() => legendValues(page, 0)).toEqual(before);
      expectClean(app);
    });
  }, 90_000);

  it('scrubs the time lane: the picture previews an earlier moment from a checkpoint, the run stays; release jumps, Esc goes back', async () => {
    await withApp('timeline-scrub', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await playToEnd(page);
      await expect.poll(() => text(page, 'digest'), { timeout: 10_000 }).toMatch(/^[0-9a-f]{16}$/);
      const digest = await text(page, 'digest');
      const lane = byTestId(page, 'time-lane');
      expect(await lane.locator('.timeline-checkpoints').getAttribute('d')).toMatch(/^M/);
      const web0 = page.locator('[data-testid="pod"][data-pod="web-0"]');
      // The timeline deletes web-0 at 20 s: at the end it is gone from the picture.
      await expect.poll(() => web0.count()).toBe(0);
      const box = (await lane.boundingBox())!;
      const xAt = (t: number): number => box.x + 56 + ((box.width - 56 - 26) * t) / 60;
      const y = box.y + box.height / 2;

      await page.mouse.move(xAt(8), y);
      await page.mouse.down();
      await page.mouse.move(xAt(12), y, { steps: 4 });
      await expect.poll(() => text(page, 'topology-preview'), { timeout: 10_000 }).toBe('Preview of 00:12.0');
      expect(await text(page, 'scrub-readout')).toMatch(/^Preview of 00:12\.0 from the checkpoint at 00:\d\d\.\d · release to jump, Esc to go back$/);
      await expect.poll(() => web0.getAttribute('data-phase')).toBe('running');
      // Only the picture went back: the run is still done at its end.
      expect(await clockUs(page)).toBe(60_000_000);
      expect(await text(page, 'run-status')).toBe('done');

      await page.mouse.up();
      await untilStatus(page, 'paused');
      await expect.poll(() => clockUs(page), { timeout: 10_000 }).toBe(12_000_000);
      await expect.poll(() => byTestId(page, 'topology-preview').count()).toBe(0);
      expect(await web0.getAttribute('data-phase')).toBe('running');

      // From the keyboard: the lane is a slider; arrows preview, Esc goes back to the run as it is.
      await lane.focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
      await expect.poll(() => text(page, 'topology-preview'), { timeout: 10_000 }).toBe('Preview of 00:42.0');
      await expect.poll(() => web0.count()).toBe(0);
      await page.keyboard.press('Escape');
      await expect.poll(() => byTestId(page, 'topology-preview').count()).toBe(0);
      expect(await web0.getAttribute('data-phase')).toBe('running');
      expect(await clockUs(page)).toBe(12_000_000);

      await playToEnd(page);
      await expect.poll(() => text(page, 'digest'), { timeout: 10_000 }).toMatch(/^[0-9a-f]{16}$/);
      expect(await text(page, 'digest')).toBe(digest);
      expectClean(app);
    });
  }, 90_000);

  it('filters the event log by entity, kind and severity, and an event selects its entity and time', async () => {
    await withApp('event-filter', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await playToEnd(page);
      const entries = byTestId(page, 'event-log-entry');
      const total = await entries.count();
      expect(total).toBeGreaterThan(3);

      await byTestId(page, 'event-filter-entity').fill('node/node-a');
      await expect.poll(() => entries.count()).toBeLessThan(total);
      const entities = await entries.evaluateAll((els) => els.map((el) => el.getAttribute('data-event-entity')));
      expect(entities.length).toBeGreaterThan(0);
      expect(entities.every((e) => e === 'node/node-a')).toBe(true);
      await byTestId(page, 'event-filter-entity').fill('');

      await byTestId(page, 'event-filter-kind').selectOption('fault.applied');
      await expect.poll(() => entries.count()).toBe(1);
      expect(await entries.first().getAttribute('data-event-entity')).toBe('pod/web-0');
      await byTestId(page, 'event-filter-kind').selectOption('');

      await byTestId(page, 'event-filter-severity').selectOption('warn');
      const severities = await entries.evaluateAll((els) => els.map((el) => el.getAttribute('data-severity')));
      expect(severities.length).toBeGreaterThan(0);
      expect(severities.every((s) => s === 'warn' || s === 'error')).toBe(true);
      await byTestId(page, 'event-filter-severity').selectOption('info');

      // The list is one Tab stop; the arrow keys walk it.
      expect(await entries.getByRole('button').evaluateAll((els) => els.filter((el) => (el as HTMLElement).tabIndex === 0).length)).toBe(1);
      await entries.first().getByRole('button').focus();
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate(() => document.activeElement?.closest('li') === document.querySelectorAll('[data-testid="event-log-entry"]')[1])).toBe(true);

      // A pod still in the topology: its event selects it in the inspector and puts the crosshair on its time.
      await byTestId(page, 'event-filter-entity').fill('pod/web-3');
      const first = entries.first();
      await first.waitFor();
      const time = ((await first.locator('span').first().textContent()) ?? '').trim();
      await first.getByRole('button').click();
      await byTestId(page, 'inspector').waitFor({ state: 'visible' });
      expect(await byTestId(page, 'inspector').textContent()).toContain('web-3');
      const [mm, ss] = time.split(':');
      expect(seconds(await text(page, 'crosshair-time'))).toBe(Math.round(Number(mm) * 60 + Number(ss)));
      expectClean(app);
    });
  }, 60_000);

  it('adds a chart of a recorded series, naming the field when the series is not one', async () => {
    await withApp('add-chart', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await playToEnd(page);
      const before = await byTestId(page, 'timeline-chart').count();
      await byTestId(page, 'add-chart').click();
      await byTestId(page, 'add-chart-metric').fill('no.such.metric');
      await byTestId(page, 'add-chart-submit').click();
      expect(await text(page, 'add-chart-problem')).toBe('metric: "no.such.metric" is not a series this run has recorded');
      await byTestId(page, 'add-chart-metric').fill('tcp.syn.sent');
      await page.getByRole('radio', { name: /level/ }).check();
      await byTestId(page, 'add-chart-submit').click();
      await expect.poll(() => byTestId(page, 'timeline-chart').count()).toBe(before + 1);
      const added = page.locator('[data-testid="timeline-chart"][data-title="tcp.syn.sent"]');
      await expect.poll(() => added.locator('path.chart-line').count()).toBe(1);
      // Kept for the session: a reset keeps it.
      await page.getByRole('button', { name: 'Reset run' }).click();
      await expect.poll(() => clockUs(page)).toBe(0);
      expect(await added.count()).toBe(1);
      expectClean(app);
    });
  }, 60_000);

  it('compares with a fix toggled in a second run, with figures equal to the fixed run in Node, and closes it', async () => {
    const FIX = 'wait-for-propagation';
    const [plain, fixed] = [await nodeReport(), await nodeReport([FIX])];
    const total = (r: RunReport, name: string) => r.series[name]!.values.reduce((a, b) => a + b, 0);
    await withApp('compare-demo', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('c');
      await byTestId(page, 'compare-fix').selectOption(`start:${FIX}`);
      expect(await text(page, 'compare-legend-a')).toBe('A: as is');
      expect(await text(page, 'compare-legend-b')).toBe(`B: with ${FIX}`);
      await playToEnd(page);
      await expect.poll(() => byTestId(page, 'compare-clock').getAttribute('data-us'), { timeout: 30_000 }).toBe('60000000');
      const row = page.locator('[data-testid="compare-row"][data-label="failed"]');
      // Both at once: B's failures are all early, so B's figure alone can match while the summary still covers only the
      // seconds B had reached.
      await expect
        .poll(async () => [await row.getAttribute('data-a'), await row.getAttribute('data-b')], { timeout: 5_000 })
        .toEqual([String(total(plain, 'requests.failed')), String(total(fixed, 'requests.failed'))]);
      expect(total(fixed, 'requests.failed')).toBeLessThan(total(plain, 'requests.failed'));
      await expect.poll(() => byTestId(page, 'chart').first().locator('path.timeline-line-b').count()).toBeGreaterThan(0);

      await byTestId(page, 'compare-toggle').click();
      await expect.poll(() => byTestId(page, 'compare-summary').count()).toBe(0);
      await expect.poll(() => byTestId(page, 'chart').first().locator('path.timeline-line-b').count()).toBe(0);
      expectClean(app);
    });
  }, 90_000);

  it('branches B from the fault palette: B is A until now, then takes the fault alone, with figures equal to that run in Node', async () => {
    const BRANCH_US = 5_000_000;
    const loaded = loadScenario(await readFile(demoPath, 'utf8'), DEMO, { faultIds: FAULT_IDS });
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    const a = createSim(loaded.scenario);
    a.runUntil(simTime(60_000_000));
    const b = createSim(loaded.scenario);
    b.runUntil(simTime(BRANCH_US));
    b.applyFault({ fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 } });
    b.runUntil(simTime(60_000_000));
    // The summary counts from the branch on.
    const since = (r: RunReport, name: string) => {
      const { values, stepSeconds } = r.series[name]!;
      return values.slice(Math.floor(BRANCH_US / 1e6 / stepSeconds)).reduce((x, y) => x + y, 0);
    };
    const [ra, rb] = [a.report(0), b.report(0)];
    expect(since(rb, 'requests.failed')).not.toBe(since(ra, 'requests.failed'));
    let link = '';
    await withApp('compare-fault-branch', `?scenario=${DEMO}&speed=max&t=5`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await expect.poll(() => clockUs(page), { timeout: 30_000 }).toBe(BRANCH_US);
      await page.locator('[data-testid="pod"][data-pod="web-1"]').click();
      const inspector = byTestId(page, 'inspector');
      await inspector.locator('[data-testid="fault-param"][data-param="gracePeriodSeconds"]').fill('0');
      await inspector.locator('[data-testid="fault-branch-button"][data-fault="delete-pod"]').click();
      await expect.poll(() => text(page, 'compare-legend-b')).toBe('B: Delete pod (pod/web-1) at 00:05.0');
      expect(await byTestId(page, 'compare-fix').inputValue()).toBe('fault');
      const parting = byTestId(page, 'time-lane').locator('[data-testid="timeline-marker"][data-kind="branch"]');
      await expect.poll(() => parting.count()).toBe(1);
      expect(await parting.locator('title').textContent()).toBe('0:05 where run B parts from A (B: Delete pod (pod/web-1) at 00:05.0)');
      // A did not take the fault: web-1 is still in its picture.
      expect(await page.locator('[data-testid="pod"][data-pod="web-1"]').getAttribute('data-phase')).toBe('running');
      await playToEnd(page);
      await expect.poll(() => byTestId(page, 'compare-clock').getAttribute('data-us'), { timeout: 30_000 }).toBe('60000000');
      const row = page.locator('[data-testid="compare-row"][data-label="failed"]');
      await expect
        .poll(async () => [await row.getAttribute('data-a'), await row.getAttribute('data-b')], { timeout: 5_000 })
        .toEqual([String(since(ra, 'requests.failed')), String(since(rb, 'requests.failed'))]);
      expect(await text(page, 'digest')).toBe(ra.digest);
      // The link carries the branch: whoever opens it sees the same two runs.
      await byTestId(page, 'share-button').click();
      link = new URL(await byTestId(page, 'share-link').inputValue()).search;
      await page.keyboard.press('Escape');
      expectClean(app);
    });
    expect(parseUrlParams(link)).toMatchObject({ compare: { fault: { fault: 'delete-pod', target: 'pod/web-1', params: { gracePeriodSeconds: 0 } }, branchS: 5 }, errors: [] });
    await withApp('compare-fault-branch-link', link, async (app) => {
      const { page } = app;
      await expect.poll(() => text(page, 'compare-legend-b'), { timeout: 30_000 }).toBe('B: Delete pod (pod/web-1) at 00:05.0');
      await expect.poll(() => byTestId(page, 'compare-clock').getAttribute('data-us'), { timeout: 30_000 }).toBe('60000000');
      expectClean(app);
    });
  }, 120_000);
});

describe('A/B on the talk-scale replay', () => {
  // Heavy: two workers replay 'It wasn't DNS' side by side, B branching from A at 60 s, in the flood (50–65 s).
  const BRANCH_US = 60_000_000;
  const UNTIL_US = 90_000_000;

  it('branches B at 60 s with default-backoff rolled out: B follows A’s clock and sends far fewer SYNs from the branch on', async () => {
    // The link's t= replays A to 60 s, where it stays paused.
    await withApp('compare-its-not-dns', '?scenario=its-not-dns.yaml&speed=max&t=60', async (app) => {
      const { page } = app;
      await waitUntilReady(page, 'its-not-dns.yaml');
      await byTestId(page, 'pause-at-chapters').uncheck();
      await expect.poll(() => clockUs(page), { timeout: 600_000, interval: 1_000 }).toBe(BRANCH_US);
      await byTestId(page, 'compare-toggle').click();
      await byTestId(page, 'compare-fix').selectOption('now:default-backoff');
      await expect.poll(() => text(page, 'compare-legend-b')).toBe('B: default-backoff rolled out at 01:00.0');
      // B is A until 60 s: it reaches A's clock with the same series as A.
      await expect.poll(() => byTestId(page, 'compare-clock').getAttribute('data-us'), { timeout: 240_000, interval: 1_000 }).toBe(String(BRANCH_US));
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 600_000, interval: 1_000 }).toBeGreaterThanOrEqual(UNTIL_US);
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      const aUs = await clockUs(page);
      // B follows A's clock and stops where A stopped.
      await expect.poll(() => byTestId(page, 'compare-clock').getAttribute('data-us'), { timeout: 240_000, interval: 1_000 }).toBe(String(aUs));

      const row = (what: string) => page.locator(`[data-testid="compare-row"][data-label="${what}"]`);
      const figures = async (what: string) => ({ a: Number(await row(what).getAttribute('data-a')), b: Number(await row(what).getAttribute('data-b')) });
      await expect.poll(async () => (await figures('SYNs sent')).b, { timeout: 5_000 }).toBeGreaterThan(0);
      // Counted from the branch on: as the clients roll (a quarter at a time), fewer redial every 300 ms. Measured from
      // 60 to 90 s: 1,894,267 SYNs in A, 485,065 in B; 913,457 rp_filter martians in A, 276,698 in B.
      expect(await text(page, 'compare-clock')).toContain('figures over 1:00–');
      const syns = await figures('SYNs sent');
      const martians = await figures('dropped: rp_filter martian');
      expect(syns.b).toBeLessThan(syns.a / 3);
      expect(martians.b).toBeLessThan(martians.a / 2);
      // Charts scrolled out of the timeline wait to be seen before they draw; bring the SYNs chart into view.
      await byTestId(page, 'timeline-chart')
        .nth(1)
        .evaluate((row) => row.scrollIntoView({ block: 'nearest' }));
      await expect.poll(() => byTestId(page, 'chart').nth(1).locator('path.timeline-line-b').count()).toBeGreaterThan(0);
      // The link carries the branch, so whoever opens it sees the same two runs.
      await byTestId(page, 'share-button').click();
      expect(await byTestId(page, 'share-link').inputValue()).toContain('compare=default-backoff&branch=60');
      await page.keyboard.press('Escape');

      await byTestId(page, 'compare-toggle').click();
      await expect.poll(() => byTestId(page, 'compare-summary').count()).toBe(0);
      expectClean(app);
    });
  }, 1_200_000);
});
