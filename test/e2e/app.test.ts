import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parseDocument } from 'yaml';
import type { RunReport } from '../../src/sim/api';
import { createSim } from '../../src/sim/sim';
import { loadScenario } from '../../src/sim/scenario/load';
import { FAULT_IDS } from '../../src/sim/faults/catalog';
import { appHarness } from './harness';
import { byTestId, clockUs, expectClean, text, untilStatus } from './page';
import { readPcap } from '../fixtures/tshark';

const DEMO = 'demo.yaml';
const demoPath = fileURLToPath(new URL(`../../public/scenarios/${DEMO}`, import.meta.url));

// test/fixtures/golden-digests.json's entry for the demo run as shipped.
const GOLDEN_DEMO = 'df81b19d33c53852';

const harness = appHarness();
const { withApp } = harness;

/** Waits until the demo is loaded into the worker and idle. */
async function waitUntilReady(page: Page): Promise<void> {
  await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 10_000 }).toBe(DEMO);
  await untilStatus(page, 'paused');
}

/** Moves focus off any control so keys reach the global shortcuts. */
async function blurControls(page: Page): Promise<void> {
  await page.evaluate(() => {
    const active = document.activeElement;
    if (active instanceof HTMLElement) active.blur();
  });
}

async function drawnShapes(page: Page, id: string): Promise<number> {
  return byTestId(page, id).locator('circle, rect, path, line, polyline, polygon, ellipse').count();
}

const fixToggle = (page: Page, name: string) => page.locator(`[data-testid="fix-toggle"][data-fix="${name}"]`);
const podIn = (page: Page, name: string) => page.locator(`[data-testid="pod"][data-pod="${name}"]`);
const faultButton = (page: Page, id: string) => byTestId(page, 'inspector').locator(`[data-testid="fault-button"][data-fault="${id}"]`);
const faultParam = (page: Page, name: string) => byTestId(page, 'inspector').locator(`[data-testid="fault-param"][data-param="${name}"]`);

/** Texts of the event log entries about one entity, newest first. */
async function eventsAbout(page: Page, entity: string): Promise<string[]> {
  const texts = await byTestId(page, 'event-log-entry').allTextContents();
  return texts.filter((t) => t.includes(entity));
}

/** The demo's run report computed in Node the way the worker does it. */
function nodeReport(demoText: string, fixes: string[] = []): RunReport {
  const loaded = loadScenario(demoText, DEMO, { faultIds: FAULT_IDS, fixes });
  if (!loaded.ok) throw new Error(`demo scenario does not load in Node:\n${loaded.errors.join('\n')}`);
  const sim = createSim(loaded.scenario, { fixes: loaded.appliedFixes });
  sim.runUntil(sim.durationUs);
  expect(sim.done()).toBe(true);
  return sim.report(0);
}

/** Waits for the run to finish and its report to arrive; returns the digest shown. */
async function finishedDigest(page: Page): Promise<string> {
  await expect.poll(() => text(page, 'run-status'), { timeout: 40_000, interval: 250 }).toBe('done');
  await expect.poll(() => text(page, 'digest'), { timeout: 10_000 }).toMatch(/^[0-9a-f]{16}$/);
  return text(page, 'digest');
}

/** The expectation rows of the report line match the report's `expect` one for one: text, verdict and actual value. */
async function expectRowsMatch(page: Page, report: RunReport): Promise<void> {
  const rows = byTestId(page, 'expect-result');
  expect(await rows.count()).toBe(report.expect.length);
  for (const [i, e] of report.expect.entries()) {
    const row = rows.nth(i);
    expect(await row.getAttribute('data-held')).toBe(String(e.held));
    expect(await row.textContent()).toContain(e.description);
    const shown = ((await row.getByTestId('expect-actual').textContent()) ?? '').trim();
    if (e.actual === null) expect(shown).toBe('n/a');
    else expect(Number(shown.replace(/,/g, ''))).toBeCloseTo(e.actual, 3);
  }
}

describe('Netmortem in a browser', () => {
  it('loads from a static sub-path offline, with the demo selected and no errors', async () => {
    await withApp('loads', '', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      const options = await byTestId(page, 'scenario-picker')
        .locator('option')
        .evaluateAll((els) => els.map((el) => (el as HTMLOptionElement).value));
      expect(options).toContain(DEMO);
      expect(await text(page, 'seed-display')).toMatch(/^\d+$/);
      expect(await text(page, 'speed-display')).toBe('1×');
      expect(await clockUs(page)).toBe(0);
      expect(await byTestId(page, 'play-button').getAttribute('aria-label')).toBe('Play');
      expect(await byTestId(page, 'play-button').getAttribute('aria-pressed')).toBe('false');
      await expect.poll(() => drawnShapes(page, 'topology')).toBeGreaterThan(0);
      expectClean(app);
      expect(harness.server().misses, 'URLs the app asked for that the static folder lacks').toEqual([]);
    });
  });

  it('plays, draws, and pauses', async () => {
    await withApp('play-pause', '', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      const play = byTestId(page, 'play-button');
      await play.click();
      await untilStatus(page, 'running');
      expect(await play.getAttribute('aria-pressed')).toBe('true');
      expect(await play.getAttribute('aria-label')).toBe('Pause');
      await expect.poll(() => clockUs(page), { timeout: 5_000 }).toBeGreaterThan(500_000);
      await expect.poll(() => drawnShapes(page, 'topology')).toBeGreaterThan(0);
      await expect.poll(() => drawnShapes(page, 'chart'), { timeout: 5_000 }).toBeGreaterThan(0);
      await expect.poll(() => byTestId(page, 'event-log-entry').count(), { timeout: 5_000 }).toBeGreaterThan(0);

      await play.click();
      // 'paused' only once the worker confirms; frames sent before it saw the pause have landed by then.
      await untilStatus(page, 'paused');
      expect(await play.getAttribute('aria-pressed')).toBe('false');
      expect(await play.getAttribute('aria-label')).toBe('Play');
      const paused = await clockUs(page);
      await page.waitForTimeout(1_000);
      expect(await clockUs(page)).toBe(paused);
      expectClean(app);
    });
  });

  it('answers the keyboard: Space, ArrowRight, + and -', async () => {
    await withApp('keyboard', '', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await blurControls(page);

      await page.keyboard.press('ArrowRight');
      await expect.poll(() => clockUs(page)).toBeGreaterThan(0);
      expect(await text(page, 'run-status')).toBe('paused');
      const afterOneStep = await clockUs(page);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => clockUs(page)).toBeGreaterThan(afterOneStep);

      await page.keyboard.press('Space');
      await untilStatus(page, 'running');
      await page.keyboard.press('Space');
      await untilStatus(page, 'paused');

      await page.keyboard.press('+');
      await expect.poll(() => text(page, 'speed-display')).toBe('2×');
      await page.keyboard.press('=');
      await expect.poll(() => text(page, 'speed-display')).toBe('5×');
      await page.keyboard.press('-');
      await page.keyboard.press('-');
      await page.keyboard.press('-');
      await expect.poll(() => text(page, 'speed-display')).toBe('0.5×');

      // What a person does: click Play, then press Space; the focused button must not toggle twice.
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'running');
      await page.keyboard.press('Space');
      await untilStatus(page, 'paused');
      await page.waitForTimeout(300);
      expect(await text(page, 'run-status')).toBe('paused');
      expectClean(app);
    });
  });

  it('moves Tab through the header in the order it is shown, on one line and on two', async () => {
    await withApp('header-tab-order', '', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      for (const width of [1400, 1200]) {
        await page.setViewportSize({ width, height: 850 });
        await byTestId(page, 'scenario-picker').focus();
        const visited: { name: string; x: number; y: number }[] = [];
        for (let i = 0; i < 16; i++) {
          const at = await page.evaluate(() => {
            const el = document.activeElement as HTMLElement | null;
            if (!el?.closest('header')) return null;
            const box = el.getBoundingClientRect();
            return { name: el.dataset['testid'] ?? el.getAttribute('aria-label') ?? el.tagName, x: box.x, y: box.y + box.height / 2 };
          });
          if (at === null) break;
          visited.push(at);
          await page.keyboard.press('Tab');
        }
        expect(
          visited.map((v) => v.name),
          `${width} px`,
        ).toContain('play-button');
        // Reading order: each stop is on the same line and to the right of the last, or on a line below it.
        for (let i = 1; i < visited.length; i++) {
          const [a, b] = [visited[i - 1]!, visited[i]!];
          const sameLine = Math.abs(a.y - b.y) < 12;
          expect(sameLine ? b.x > a.x : b.y > a.y, `${width} px: ${a.name} then ${b.name}`).toBe(true);
        }
      }
      expectClean(app);
    });
  });

  it('rejects an invalid scenario file with the field path and keeps the previous scenario', async () => {
    const doc = parseDocument(await readFile(demoPath, 'utf8'));
    doc.setIn(['topology', 'nodes', 0, 'ip'], 'not-an-ip');
    const broken = Buffer.from(doc.toString(), 'utf8');

    await withApp('invalid-file', '', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await blurControls(page);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => clockUs(page)).toBeGreaterThan(0);
      const before = await clockUs(page);

      await byTestId(page, 'open-file').setInputFiles({ name: 'broken.yaml', mimeType: 'application/yaml', buffer: broken });
      const banner = byTestId(page, 'error-banner');
      await banner.waitFor({ state: 'visible' });
      expect(await banner.textContent()).toMatch(/topology\.nodes(\.0|\[0\])\.ip/);

      expect(await byTestId(page, 'scenario-picker').inputValue()).toBe(DEMO);
      expect(await clockUs(page)).toBe(before);
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'running');
      await expect.poll(() => clockUs(page), { timeout: 5_000 }).toBeGreaterThan(before + 500_000);

      await byTestId(page, 'dismiss-error').click();
      await banner.waitFor({ state: 'hidden' });
      expect(app.problems.pageErrors).toEqual([]);
      expect(app.problems.outsideRequests).toEqual([]);
    });
  });

  it('tells a story: pauses at each chapter with its text, and charts what the scenario asks for on the timeline', async () => {
    const doc = parseDocument(await readFile(demoPath, 'utf8'));
    doc.set('chapters', [
      { at: 3, title: 'Warm-up', text: 'Clients are connected.', action: 'Look at the timeline.' },
      { at: 6, title: 'Later', text: 'Still calm.' },
    ]);
    doc.set('charts', [
      { title: 'SYNs', kind: 'rate', unit: 'SYNs / s', series: [{ metric: 'tcp.syn.sent', label: 'SYNs' }] },
      { title: 'Established', kind: 'level', series: [{ metric: 'tcp.connections.established', label: 'connections' }] },
      { title: 'Latency', kind: 'histogram', unit: 'ms', series: [{ metric: 'requests.latency_ms', label: 'requests' }] },
    ]);
    const story = Buffer.from(doc.toString(), 'utf8');

    await withApp('chapters-charts', '?speed=10', async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await byTestId(page, 'open-file').setInputFiles({ name: 'story.yaml', mimeType: 'application/yaml', buffer: story });
      await expect.poll(() => byTestId(page, 'chapters').locator('li').count()).toBe(2);
      expect(await byTestId(page, 'pause-at-chapters').isChecked()).toBe(true);
      // Rate and level charts share the time axis; a histogram sits below them.
      const titles = await byTestId(page, 'timeline-chart').evaluateAll((els) => els.map((el) => el.getAttribute('data-title')));
      expect(titles).toEqual(['SYNs', 'Established']);
      expect(await byTestId(page, 'histogram-chart').count()).toBe(1);
      const markers = byTestId(page, 'time-lane').locator('[data-testid="timeline-marker"][data-kind="chapter"]');
      expect(await markers.count()).toBe(2);

      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      expect(await clockUs(page)).toBe(3_000_000);
      const current = await text(page, 'current-chapter');
      expect(current).toContain('Chapter 1 of 2');
      expect(current).toContain('Clients are connected.');
      expect(current).toContain('Look at the timeline.');
      await expect.poll(() => drawnShapes(page, 'chart')).toBeGreaterThan(0);
      await expect.poll(() => byTestId(page, 'histogram-chart').locator('rect.chart-bar').count()).toBeGreaterThan(0);

      await byTestId(page, 'pause-at-chapters').uncheck();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 10_000 }).toBeGreaterThan(7_000_000);
      expect(await text(page, 'current-chapter')).toContain('Chapter 2 of 2');
      expectClean(app);
    });
  });

  it('names a bad URL parameter and falls back to the default speed', async () => {
    await withApp('bad-url-param', '?speed=fast', async (app) => {
      const { page } = app;
      const banner = byTestId(page, 'error-banner');
      await banner.waitFor({ state: 'visible' });
      expect(await banner.textContent()).toMatch(/\bspeed\b/);
      await waitUntilReady(page);
      expect(await text(page, 'speed-display')).toBe('1×');
      expect(app.problems.pageErrors).toEqual([]);
    });
  });

  it('runs the demo at max speed to the same digest and expectations as Node, without and with a fix', async () => {
    const demoText = await readFile(demoPath, 'utf8');
    const FIX = 'wait-for-propagation';
    await withApp('max-speed-digest', `?scenario=${DEMO}&speed=max&autoplay=1`, async (app) => {
      const { page } = app;
      const plainDigest = await finishedDigest(page);
      expect(await text(page, 'speed-display')).toBe('max');
      const plain = nodeReport(demoText);
      expect(plainDigest).toBe(plain.digest);
      await expectRowsMatch(page, plain);
      expect(await text(page, 'active-fixes')).toBe('none applied');
      // The why chain the run recorded, step for step as Node builds it.
      expect(await text(page, 'why-summary')).toBe(`Why: ${plain.why[0]!.symptom}`);
      await byTestId(page, 'why-summary').click();
      const steps = await byTestId(page, 'why-step').allTextContents();
      expect(steps.map((t) => t.replace(/^←/, ''))).toEqual(plain.why[0]!.steps.map((s) => `${s.entity}${s.text}`));
      await page.keyboard.press('Escape');

      // Ticked from the keyboard: Space on a focused checkbox toggles it instead of play/pause.
      await fixToggle(page, FIX).focus();
      await page.keyboard.press('Space');
      await expect.poll(() => fixToggle(page, FIX).isChecked()).toBe(true);
      await expect.poll(() => clockUs(page)).toBe(0);
      await untilStatus(page, 'paused');
      expect(await byTestId(page, 'digest').count()).toBe(0);
      expect(await text(page, 'active-fixes')).toBe('1 of 3 applied');

      await byTestId(page, 'play-button').click();
      const fixedDigest = await finishedDigest(page);
      expect(fixedDigest).not.toBe(plainDigest);
      const fixed = nodeReport(demoText, [FIX]);
      expect(fixed.fixes).toEqual([FIX]);
      expect(fixedDigest).toBe(fixed.digest);
      await expectRowsMatch(page, fixed);
      expect(await page.locator('footer').textContent()).toContain(`fixes ${FIX}`);
      expectClean(app);
    });
  }, 60_000);

  it('names an unknown fix in the URL, applies the known one, and keeps playing when a fix is switched', async () => {
    await withApp('bad-fix-param', `?scenario=${DEMO}&fix=nope&fix=faster-propagation`, async (app) => {
      const { page } = app;
      const banner = byTestId(page, 'error-banner');
      await banner.waitFor({ state: 'visible' });
      expect(await banner.textContent()).toContain('fix: unknown fix "nope" for scenario demo (available: wait-for-propagation, short-connect-timeout, faster-propagation)');
      await waitUntilReady(page);
      await expect.poll(() => fixToggle(page, 'faster-propagation').isChecked()).toBe(true);
      expect(await fixToggle(page, 'wait-for-propagation').isChecked()).toBe(false);
      expect(await byTestId(page, 'fix-toggle').count()).toBe(3);

      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 5_000 }).toBeGreaterThan(1_000_000);
      await fixToggle(page, 'faster-propagation').click();
      await expect.poll(() => text(page, 'active-fixes')).toBe('none applied');
      await expect.poll(() => clockUs(page)).toBeLessThan(1_000_000);
      await untilStatus(page, 'running');
      expect(await fixToggle(page, 'faster-propagation').isChecked()).toBe(false);
      expectClean(app);
    });
  });

  it('deletes a pod chosen in the topology with a fault from the catalog, then lets go of it once it is gone', async () => {
    // 5× so the ten simulated seconds a gone pod stays drawn pass in about two wall seconds.
    await withApp('inspector-delete-pod', `?scenario=${DEMO}&speed=5`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      expect(await byTestId(page, 'inspector').count()).toBe(0);
      const web1 = podIn(page, 'web-1');
      expect(await web1.getAttribute('data-ready')).toBe('true');
      expect(await web1.getAttribute('aria-label')).toBe('pod web-1, ready');

      await web1.click();
      const inspector = byTestId(page, 'inspector');
      await inspector.waitFor({ state: 'visible' });
      expect(await web1.getAttribute('data-selected')).toBe('true');
      expect(await text(page, 'inspector-node')).toBe('node-b');
      expect(await text(page, 'inspector-ip')).toBe('10.244.2.2');
      expect(await text(page, 'inspector-phase')).toBe('running');
      expect(await text(page, 'inspector-ready')).toBe('yes');
      // The catalog's only pod fault, with its parameter at the catalog default.
      expect(await inspector.getByTestId('fault-button').count()).toBe(1);
      const grace = faultParam(page, 'gracePeriodSeconds');
      expect(await grace.inputValue()).toBe('30');
      expect(await grace.getAttribute('min')).toBe('0');
      expect(await grace.getAttribute('max')).toBe('3600');

      await grace.fill('0');
      await faultButton(page, 'delete-pod').click();
      await byTestId(page, 'play-button').click();
      await expect
        .poll(() => eventsAbout(page, 'pod/web-1'), { timeout: 5_000 })
        .toEqual(expect.arrayContaining([expect.stringContaining('Delete pod (user)'), expect.stringContaining('deleted; with no grace period'), expect.stringContaining('SIGKILL')]));
      // No grace period: the pod goes straight from ready to gone, still drawn for a while.
      expect(await web1.getAttribute('data-ready')).toBe('false');
      expect(await web1.getAttribute('data-phase')).toBe('gone');
      expect(await byTestId(page, 'error-banner').count()).toBe(0);

      // The ReplicaSet's replacement comes up, and the forgotten pod takes the selection with it.
      await expect.poll(() => web1.count(), { timeout: 10_000 }).toBe(0);
      expect(await inspector.count()).toBe(0);
      expect(await byTestId(page, 'scenario-picker').inputValue()).toBe(DEMO);
      await expect.poll(() => page.locator('[data-testid="pod"][data-pod^="web-"][data-ready="true"]').count()).toBe(3);
      expectClean(app);
    });
  });

  it('names a rejected fault parameter in the banner, keeps working, and selects pods from the keyboard', async () => {
    await withApp('inspector-bad-param', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      const inspector = byTestId(page, 'inspector');

      // Enter on a focused pod opens it; Escape (outside a text field) closes it.
      await podIn(page, 'web-2').focus();
      await page.keyboard.press('Enter');
      await inspector.waitFor({ state: 'visible' });
      expect(await text(page, 'inspector-node')).toBe('node-c');
      await page.keyboard.press('Escape');
      await inspector.waitFor({ state: 'hidden' });

      // Space on a focused pod opens it too, and does not reach the play/pause shortcut.
      await podIn(page, 'web-2').focus();
      await page.keyboard.press('Space');
      await inspector.waitFor({ state: 'visible' });
      await page.waitForTimeout(200);
      expect(await text(page, 'run-status')).toBe('paused');

      await faultParam(page, 'gracePeriodSeconds').fill('-5');
      await faultButton(page, 'delete-pod').click();
      const banner = byTestId(page, 'error-banner');
      await banner.waitFor({ state: 'visible' });
      expect(await banner.textContent()).toContain('params.gracePeriodSeconds: must be at least 0');
      // Nothing was applied, and the inspector still shows the pod with the rejected value.
      expect(await podIn(page, 'web-2').getAttribute('data-ready')).toBe('true');
      expect(await eventsAbout(page, 'pod/web-2')).not.toEqual(expect.arrayContaining([expect.stringContaining('Delete pod')]));
      expect(await faultParam(page, 'gracePeriodSeconds').inputValue()).toBe('-5');

      await byTestId(page, 'dismiss-error').click();
      await banner.waitFor({ state: 'hidden' });
      // A click on the empty picture clears the selection.
      await byTestId(page, 'topology').click({ position: { x: 6, y: 6 } });
      await inspector.waitFor({ state: 'hidden' });
      expect(await podIn(page, 'web-2').getAttribute('data-selected')).toBeNull();

      const before = await clockUs(page);
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 5_000 }).toBeGreaterThan(before + 300_000);
      await podIn(page, 'client-0').click();
      await inspector.waitFor({ state: 'visible' });
      expect(await text(page, 'inspector-ready')).toBe('yes');
      expectClean(app);
    });
  });

  it('exports the paused run as a report, metrics and packets that agree with each other, from the keyboard too', async () => {
    await withApp('export-menu', `?scenario=${DEMO}&speed=5`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await byTestId(page, 'play-button').click();
      await expect.poll(() => clockUs(page), { timeout: 20_000 }).toBeGreaterThan(3_000_000);
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');
      const dir = await mkdtemp(join(tmpdir(), 'netmortem-export-'));
      const save = async (what: string): Promise<string> => {
        await byTestId(page, 'export-button').click();
        const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, `export-${what}`).click()]);
        const path = join(dir, file.suggestedFilename());
        await file.saveAs(path);
        return path;
      };
      const reportPath = await save('json');
      expect(reportPath).toMatch(/demo-seed4-\d+s\.json$/);
      const report = JSON.parse(await readFile(reportPath, 'utf8')) as RunReport;
      // The report's seconds are the clock's microseconds divided by 1e6; multiplied back, rounding can miss by an ulp.
      expect(report.simulatedSeconds).toBe((await clockUs(page)) / 1e6);
      const csv = (await readFile(await save('csv'), 'utf8')).split('\r\n');
      expect(csv[0]).toMatch(/^t_s,/);
      const okColumn = csv[0]!.split(',').indexOf('requests.ok');
      const okSum = csv.slice(1, -1).reduce((n, row) => n + Number(row.split(',')[okColumn]), 0);
      // The series hold whole seconds; the totals also count the part of the second the pause cut.
      expect(okSum).toBe(report.series['requests.ok']!.values.reduce((a, b) => a + b, 0));
      expect(okSum).toBeGreaterThan(0);
      // Every packet the run has sent so far, as Wireshark reads them.
      const packets = readPcap(await save('pcap'), ['ip.src', 'ip.checksum.status']);
      expect(packets.length).toBe(report.packets.sent);
      expect(packets.every((row) => row[1] === '1')).toBe(true);

      // Pictures: the topology as drawn (SVG with its styles written in; PNG at twice the size with the live layers),
      // and the charts stacked under their titles.
      const topologySvg = await readFile(await save('topology-svg'), 'utf8');
      expect(topologySvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*width="\d+(\.\d+)?"/);
      expect(topologySvg).toContain('node/node-a');
      expect(topologySvg).not.toContain('class=');
      const box = (await byTestId(page, 'topology').boundingBox())!;
      const png = await readFile(await save('topology-png'));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([Math.round(box.width * 2), Math.round(box.height * 2)]);
      const chartsSvg = await readFile(await save('charts-svg'), 'utf8');
      expect(chartsSvg).toContain('>Requests per second</text>');
      // Each series' legend entry, its label beside a swatch of its colour.
      expect(chartsSvg).toMatch(/<rect [^>]*fill="rgb\(\d+, \d+, \d+\)"\/><text [^>]*>ok<\/text>/);
      expect(chartsSvg).toContain('>failed</text>');
      expect(chartsSvg).toContain('<path');
      const chartsPng = await readFile(await save('charts-png'));
      expect(chartsPng.readUInt32BE(16)).toBeGreaterThan(400);

      // The menu from the keyboard: Enter opens it on its first item, arrows move, Escape closes and gives focus back.
      await byTestId(page, 'export-button').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('export-json');
      await page.keyboard.press('ArrowDown');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('export-csv');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('menu').count()).toBe(0);
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('export-button');
      await rm(dir, { recursive: true, force: true });
      expectClean(app);
    });
  });

  it('shares a link that replays the run with the fault applied by hand to the same digest, and names what a damaged link lacks', async () => {
    let link = '';
    let digest = '';
    await withApp('share-link', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await waitUntilReady(page);
      await podIn(page, 'web-1').click();
      await faultParam(page, 'gracePeriodSeconds').fill('0');
      await faultButton(page, 'delete-pod').click();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'run-status'), { timeout: 60_000 }).toBe('done');
      digest = await text(page, 'digest');
      // The deleted pod changed the run: not the shipped demo's golden digest.
      expect(digest).not.toBe(GOLDEN_DEMO);
      // What is inspected travels with the link.
      await podIn(page, 'web-2').click();
      await byTestId(page, 'share-button').click();
      expect(await text(page, 'share-summary')).toMatch(/^Opens demo\.yaml with seed 4, and the 1 fault you applied at their times, and replays it to 60\.0 s/);
      link = await byTestId(page, 'share-link').inputValue();
      // The speed it played at travels too (a link at the default speed leaves it out).
      expect(link).toMatch(/\?scenario=demo\.yaml&seed=4&faults=[\w+$-]+&t=60&speed=max&select=pod%2Fweb-2$/);
      await page.keyboard.press('Escape');
      await expect.poll(() => byTestId(page, 'share-dialog').count()).toBe(0);
      expectClean(app);
    });
    const query = link.slice(link.indexOf('?'));
    await withApp('share-link-opened', query, async (app) => {
      const { page } = app;
      await expect.poll(() => text(page, 'digest'), { timeout: 60_000 }).toBe(digest);
      expect(await byTestId(page, 'error-banner').count()).toBe(0);
      expect(await byTestId(page, 'inspector').getAttribute('aria-label')).toBe('Inspector: pod/web-2');
      expect(await text(page, 'speed-display')).toBe('max');
      // The picture opens whole, as the sender saw it, not zoomed into the selected pod: Fit leaves it where it is.
      const view = () => byTestId(page, 'topology').locator(':scope > g').getAttribute('transform');
      const opened = await view();
      await page.getByRole('button', { name: 'Fit', exact: true }).click();
      await page.waitForTimeout(500);
      expect(await view()).toBe(opened);
      expectClean(app);
    });
    // Cut in the middle of the fault list: the banner and the gallery say so, and nothing is replayed.
    await withApp(
      'share-link-damaged',
      query.replace(/faults=([\w+$-]+)/, (_, f: string) => `faults=${f.slice(0, f.length / 2)}`),
      async (app) => {
        const { page } = app;
        await untilStatus(page, 'paused');
        await expect.poll(() => text(page, 'error-banner')).toContain('faults: the list of applied faults in the link is damaged');
        expect(await text(page, 'gallery-reason')).toBe('faults: the list of applied faults in the link is damaged (the link may have been cut off)');
        expect(await clockUs(page)).toBe(0);
        await page.keyboard.press('Escape');
        await expect.poll(() => byTestId(page, 'gallery').count()).toBe(0);
        expect(app.problems.pageErrors).toEqual([]);
      },
    );
  }, 180_000);
});
