import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Page } from 'playwright-core';
import type { RunReport } from '../../src/sim/api';
import { editorSelection, editorText, fillEditor } from './code-editor';
import { appHarness } from './harness';
import { byTestId, expectClean, layoutOf, text, untilStatus } from './page';

const DEMO = 'demo.yaml';
const { withApp, server } = appHarness({ viewport: { width: 1400, height: 850 } });

const MANIFESTS = `apiVersion: apps/v1
kind: Deployment
metadata: { name: shop, labels: { app: shop } }
spec:
  replicas: 3
  selector: { matchLabels: { app: shop } }
  template:
    metadata: { labels: { app: shop } }
    spec:
      containers:
        - name: shop
          image: shop:1.2
          ports: [{ name: http, containerPort: 8080 }]
          readinessProbe: { httpGet: { path: /healthz, port: http }, periodSeconds: 5 }
          livenessProbe: { exec: { command: [cat, /tmp/healthy] } }
---
apiVersion: v1
kind: Service
metadata: { name: shop }
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: { app: shop }
  ports: [{ port: 80, targetPort: 8080 }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: shop-config }
data: { LOG_LEVEL: debug }
`;

async function openEditor(page: Page): Promise<void> {
  await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 20_000 }).toBe(DEMO);
  await byTestId(page, 'edit-button').click();
  await expect.poll(() => layoutOf(page), { timeout: 20_000 }).toBe('editor');
  await expect.poll(() => text(page, 'editor-problem-count'), { timeout: 20_000 }).toBe('none: it loads');
}

const outlineNames = (page: Page, kind: string) => page.locator(`[data-testid="editor-item"][data-kind="${kind}"]`).evaluateAll((items) => items.map((i) => i.getAttribute('data-name')));

describe('the scenario editor', () => {
  it('adds a node, undoes and redoes it, names a bad value as typed, jumps to it, and runs the edited scenario', async () => {
    await withApp('editor', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await openEditor(page);
      expect(await outlineNames(page, 'node')).toEqual(['node-a', 'node-b', 'node-c']);
      await page.locator('[data-testid="editor-add"][data-kind="node"]').click();
      await expect.poll(() => outlineNames(page, 'node')).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);
      expect(await editorText(page)).toContain('name: node-d');
      await byTestId(page, 'editor-undo').click();
      await expect.poll(() => outlineNames(page, 'node')).toEqual(['node-a', 'node-b', 'node-c']);
      await byTestId(page, 'editor-redo').click();
      await expect.poll(() => outlineNames(page, 'node')).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);

      // What others still refer to offers no removal, and says why.
      const web = page.locator('[data-testid="editor-item"][data-kind="deployment"][data-name="web"]');
      expect(await web.getByTestId('editor-remove').count()).toBe(0);
      expect(await web.getAttribute('title')).toBe('deployment web is still referred to by Service web, timeline[0] (delete-pod on pod/web-0); remove or change those first');

      await fillEditor(page, (await editorText(page)).replace('replicas: 3', 'replicas: -3'));
      await expect.poll(() => text(page, 'editor-problem')).toBe('topology.deployments.web.replicas: must be >= 0, got -3');
      expect(await byTestId(page, 'editor-run').isDisabled()).toBe(true);
      await byTestId(page, 'editor-problem').click();
      expect(await editorSelection(page)).toBe('      replicas: -3');
      await fillEditor(page, (await editorText(page)).replace('replicas: -3', 'replicas: 3'));
      await expect.poll(() => text(page, 'editor-problem-count')).toBe('none: it loads');

      // A file name the app cannot save or link is named before anything is saved or run.
      await byTestId(page, 'editor-file-name').fill('my file.txt');
      expect(await text(page, 'editor-file-problem')).toBe('file: expected a name like "mine.yaml" (letters, digits, ".", "-" and "_", ending .yaml, .yml or .json), got "my file.txt"');
      expect([await byTestId(page, 'editor-run').isDisabled(), await byTestId(page, 'editor-save').isDisabled()]).toEqual([true, true]);
      await byTestId(page, 'editor-file-name').fill(DEMO);
      await expect.poll(() => byTestId(page, 'editor-file-problem').count()).toBe(0);

      await byTestId(page, 'editor-run').click();
      await expect.poll(() => layoutOf(page)).not.toBe('editor');
      await untilStatus(page, 'paused');
      expect(await page.locator('#scenario-picker option:checked').textContent()).toBe('demo.yaml (opened file)');
      await expect.poll(() => page.locator('[data-entity="node/node-d"]').count()).toBeGreaterThan(0);
      expectClean(app);
    });
  }, 120_000);

  it('marks each problem at its line, completes keys and values from the schema, keeps one undo history, and lets Escape then Tab leave the text', async () => {
    await withApp('editor-code', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await openEditor(page);
      await fillEditor(page, (await editorText(page)).replace('replicas: 3', 'replicas: 20001').replace('      ip: 10.0.0.12\n', ''));
      const replicas = 'topology.deployments.web.replicas: must be <= 20000, got 20001';
      await expect.poll(() => byTestId(page, 'editor-problem').allTextContents()).toContain(replicas);
      const markOnCursorLine = () => page.locator('.cm-activeLine .cm-lintRange-error').textContent({ timeout: 2_000 });
      // A key the text lacks is marked at the deepest part of its path that is there: node-b's list item.
      await page.locator('[data-testid="editor-problem"]', { hasText: /^topology\.nodes\[1\]\.ip: / }).click();
      await expect.poll(markOnCursorLine).toBe('name: node-b');
      await page.locator('[data-testid="editor-problem"]', { hasText: replicas }).click();
      await expect.poll(markOnCursorLine).toBe('replicas: 20001');
      await page.locator('.cm-activeLine .cm-lintRange-error').hover();
      await expect.poll(() => page.locator('.cm-tooltip-lint').textContent({ timeout: 2_000 })).toBe(replicas);

      // Keys of this deployment's app that it does not have yet, on the next line's key.
      const offered = () => page.locator('.cm-tooltip-autocomplete .cm-completionLabel').allTextContents();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Home');
      await page.keyboard.press('Control+Space');
      await expect.poll(offered).toContain('cpuPerRequestMs');
      expect(await offered()).toContain('port');
      expect(await offered()).not.toContain('replicas');
      expect(await offered()).not.toContain('target');
      await page.keyboard.type('cpuP');
      await expect.poll(offered).toEqual(['cpuPerRequestMs']);
      expect(await page.locator('.cm-tooltip-autocomplete .cm-completionDetail').textContent()).toBe('number = 0');
      // CodeMirror takes Enter as a pick only once the list has been up for its interaction delay (75 ms).
      const pick = async (): Promise<void> => {
        await page.waitForTimeout(150);
        await page.keyboard.press('Enter');
      };
      await pick();
      await expect.poll(() => editorText(page)).toContain('      replicas: 20001\n      cpuPerRequestMs: 8080\n');
      // A value from the field's enum, offered once its colon is typed.
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await page.keyboard.type('kind: ');
      await expect.poll(offered).toEqual(['Deployment', 'DaemonSet']);
      await pick();
      await expect.poll(() => editorText(page)).toContain('      cpuPerRequestMs: 8080\n      kind: Deployment\n');

      // Ctrl+Z in the text is the editor's one undo: the Undo and Redo buttons follow it.
      await page.waitForTimeout(1_000);
      const before = await editorText(page);
      await page.keyboard.press('End');
      // One insertion, so it is one undo step however slowly a loaded machine would type it key by key.
      await page.keyboard.insertText('\n# one history');
      await expect.poll(() => editorText(page)).toBe(before.replace('      kind: Deployment\n', '      kind: Deployment\n# one history\n'));
      const typed = await editorText(page);
      await page.keyboard.press('ControlOrMeta+Z');
      await expect.poll(() => editorText(page)).toBe(before);
      expect(await byTestId(page, 'editor-redo').isDisabled()).toBe(false);
      await page.keyboard.press('ControlOrMeta+Shift+Z');
      await expect.poll(() => editorText(page)).toBe(typed);
      await byTestId(page, 'editor-undo').click();
      await expect.poll(() => editorText(page)).toBe(before);
      await page.keyboard.press('ControlOrMeta+Y');
      await expect.poll(() => editorText(page)).toBe(typed);
      const [saved] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'editor-text').press('ControlOrMeta+S')]);
      expect(saved.suggestedFilename()).toBe(DEMO);

      // Tab indents the line and stays; Escape then Tab moves on to the next control.
      // The text view lives in a shadow root, where the focused element is found.
      const inText = () => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.closest('.cm-editor') != null);
      await page.keyboard.press('Tab');
      await expect.poll(() => editorText(page)).toBe(typed.replace('\n# one history\n', '\n  # one history\n'));
      expect(await inText()).toBe(true);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Tab');
      expect(await inText()).toBe(false);
      expectClean(app);
    });
  }, 120_000);

  it('takes a Windows file dropped on the text whole, as the draft, and still jumps to its problem’s line', async () => {
    await withApp('editor-drop-crlf', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await openEditor(page);
      const demo = await readFile(new URL(`../../public/scenarios/${DEMO}`, import.meta.url), 'utf8');
      const dropped = demo.replace('replicas: 3', 'replicas: -3').replaceAll('\n', '\r\n');
      await byTestId(page, 'editor-text').evaluate((el, body) => {
        const data = new DataTransfer();
        data.items.add(new File([body], 'windows.yaml', { type: 'application/yaml' }));
        el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, composed: true, cancelable: true }));
      }, dropped);
      await expect.poll(() => byTestId(page, 'editor-file-name').inputValue()).toBe('windows.yaml');
      // The view keeps "\n" line breaks; the file is not also pasted in at the drop point.
      expect(await editorText(page)).toBe(dropped.replaceAll('\r\n', '\n'));
      await expect.poll(() => text(page, 'editor-problem')).toBe('topology.deployments.web.replicas: must be >= 0, got -3');
      await byTestId(page, 'editor-problem').click();
      expect(await editorSelection(page)).toBe('      replicas: -3');
      expectClean(app);
    });
  }, 60_000);

  it('shows the text read-only while the editor’s code loads, then edits it, with the schema fetched from the app’s folder', async () => {
    await withApp('editor-loading', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(/\/assets\/code-editor-[^/]+\.js$/, async (route) => {
        await held;
        await route.continue();
      });
      await openEditor(page);
      const loading = byTestId(page, 'editor-loading');
      expect(await loading.isEditable()).toBe(false);
      const shown = await loading.inputValue();
      expect(shown).toContain('replicas: 3');
      await loading.click();
      await page.keyboard.type('lost?');
      expect(await loading.inputValue()).toBe(shown);
      expect(await byTestId(page, 'editor-text').count()).toBe(0);

      const schema = page.waitForRequest(/scenario\.schema\.json$/);
      release();
      await expect.poll(() => editorText(page)).toBe(shown);
      expect(await loading.count()).toBe(0);
      expect((await schema).url()).toBe(`${server().url}scenario.schema.json`);
      await page.unroute(/\/assets\/code-editor-[^/]+\.js$/);
      expectClean(app);
    });
  }, 60_000);

  it('sets an item’s values in the properties form: a bad one is named and not applied, a good one goes into the text, undo takes it back', async () => {
    await withApp('editor-properties', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await openEditor(page);
      await page.locator('[data-testid="editor-item"][data-kind="node"][data-name="node-b"] button').first().click();
      const size = page.locator('[data-testid="editor-field"][data-key="size"]');
      await expect.poll(() => size.count()).toBe(1);
      expect(await page.locator('[data-testid="editor-properties"] h2').textContent()).toBe('Propertiesnode node-b');
      const before = await editorText(page);

      await size.fill('100');
      await expect.poll(() => text(page, 'editor-field-problem')).toBe('not applied, the scenario would no longer load: topology.nodes[1].size: must be <= 64, got 100');
      expect(await size.getAttribute('aria-invalid')).toBe('true');
      await size.fill('2x');
      await expect.poll(() => text(page, 'editor-field-problem')).toBe('size: expected a number, got "2x"');
      expect(await editorText(page)).toBe(before);

      await size.fill('4');
      await expect.poll(() => byTestId(page, 'editor-field-problem').count()).toBe(0);
      const nodeB = async () => (parse(await editorText(page)) as { topology: { nodes: Record<string, unknown>[] } }).topology.nodes[1];
      await expect.poll(nodeB).toMatchObject({ name: 'node-b', platform: 'cloud', size: 4 });
      expect((await editorText(page)).replace('      size: 4\n', '')).toBe(before);
      // A choice applies at once.
      await page.locator('[data-testid="editor-field"][data-key="platform"]').selectOption('bare-metal');
      await expect.poll(nodeB).toMatchObject({ platform: 'bare-metal', size: 4 });
      await byTestId(page, 'editor-undo').click();
      await expect.poll(() => page.locator('[data-testid="editor-field"][data-key="platform"]').inputValue()).toBe('cloud');
      await byTestId(page, 'editor-undo').click();
      await expect.poll(() => editorText(page)).toBe(before);
      await expect.poll(() => size.inputValue()).toBe('');

      // The scenario's parameters have a form too, and the edited scenario runs.
      await page.locator('[data-testid="editor-item"][data-kind="params"][data-name="client"] button').first().click();
      const reconnect = page.locator('[data-testid="editor-field"][data-key="reconnectMs"]');
      await expect.poll(() => reconnect.inputValue()).toBe('300');
      await reconnect.fill('1500');
      await reconnect.press('Enter');
      await expect.poll(() => editorText(page)).toContain('    reconnectMs: 1500\n');
      await expect.poll(() => text(page, 'editor-problem-count')).toBe('none: it loads');
      await byTestId(page, 'editor-run').click();
      await expect.poll(() => layoutOf(page)).not.toBe('editor');
      await untilStatus(page, 'paused');
      expectClean(app);
    });
  }, 120_000);

  it('keeps a draft across a reload and a killed worker', async () => {
    await withApp('editor-draft', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await openEditor(page);
      const draft = `# my draft, not yet run\n${await editorText(page)}`;
      await fillEditor(page, draft);
      // Past the next autosave.
      await page.waitForTimeout(2_500);
      await page.reload();
      await expect.poll(() => layoutOf(page), { timeout: 20_000 }).toBe('editor');
      expect(await editorText(page)).toBe(draft);
      await expect.poll(() => text(page, 'notice-message')).toMatch(/your draft of demo\.yaml is in the editor\.$/);

      const [worker] = page.workers();
      await worker!.evaluate(() => {
        setTimeout(() => {
          throw new Error('killed by the test');
        });
      });
      await expect.poll(() => text(page, 'notice-message'), { timeout: 20_000 }).toContain('A new worker took over');
      expect(await editorText(page)).toBe(draft);
      // The new worker checks the text again.
      await fillEditor(page, draft.replace('replicas: 3', 'replicas: x'));
      await expect.poll(() => text(page, 'editor-problem')).toMatch(/^topology\.deployments\.web\.replicas: /);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 120_000);

  it('imports Kubernetes manifests into a topology that plays, listing what it did not understand', async () => {
    await withApp('editor-import', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await openEditor(page);
      await byTestId(page, 'editor-import').click();
      await byTestId(page, 'import-source').fill(MANIFESTS);
      await expect.poll(() => text(page, 'import-not-understood')).toContain('ConfigMap shop-config');
      expect(await text(page, 'import-not-understood')).toContain('Deployment shop: spec.template.spec.containers[0].livenessProbe.exec not modelled');
      expect(await text(page, 'import-added')).toContain('shop-client');
      const rate = byTestId(page, 'import-option-requestsPerSecond');
      await rate.fill('0');
      await expect.poll(() => text(page, 'import-error')).toBe('Client requests per second: must be a number from 0.001 to 10,000');
      expect(await byTestId(page, 'import-use').isDisabled()).toBe(true);
      expect(await byTestId(page, 'import-source').inputValue()).toBe(MANIFESTS);
      await rate.fill('25');
      await byTestId(page, 'import-option-nodes').fill('4');
      await expect.poll(() => byTestId(page, 'import-error').count()).toBe(0);
      await byTestId(page, 'import-use').click();
      await expect.poll(() => text(page, 'editor-problem-count'), { timeout: 20_000 }).toBe('none: it loads');
      const imported = parse(await editorText(page)) as { params: { client: { requestsPerSecond: number } }; topology: { nodes: unknown[] } };
      expect(imported.params.client.requestsPerSecond).toBe(25);
      expect(imported.topology.nodes).toHaveLength(4);
      expect(await outlineNames(page, 'service')).toEqual(['shop']);
      expect(await byTestId(page, 'editor-file-name').inputValue()).toBe('imported.yaml');
      expect((parse(await editorText(page)) as { topology: { deployments: Record<string, unknown> } }).topology.deployments['shop']).toMatchObject({
        readinessProbe: { httpGet: { port: 8080 }, periodSeconds: 5 },
      });
      await byTestId(page, 'editor-run').click();
      await expect.poll(() => layoutOf(page)).not.toBe('editor');
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'digest'), { timeout: 60_000 }).toMatch(/^[0-9a-f]{16}$/);
      await byTestId(page, 'export-button').click();
      const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'export-json').click()]);
      const report = JSON.parse(await readFile((await file.path())!, 'utf8')) as RunReport;
      // One client at 25 requests a second for the minute: more than the default 10 a second could answer.
      expect(report.totals['requests.ok']).toBeGreaterThan(10 * 60);
      expect(await page.locator('[data-testid="pod"][data-pod^="shop-"]').count()).toBeGreaterThanOrEqual(3);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 120_000);

  it('imports an application whose services call each other, lists the calls and draws them between the pods', async () => {
    const bookshop = await readFile(new URL('../fixtures/manifests/bookshop.yaml', import.meta.url), 'utf8');
    await withApp('editor-import-calls', `?scenario=${DEMO}&speed=max`, async (app) => {
      const { page } = app;
      await openEditor(page);
      await byTestId(page, 'editor-import').click();
      await byTestId(page, 'import-source').fill(bookshop);
      await expect.poll(() => byTestId(page, 'import-calls').locator('li').count()).toBe(8);
      expect(await text(page, 'import-calls')).toContain('storefront → catalog (gRPC, run as HTTP requests, port 3550): env CATALOG_ADDR=catalog:3550, document 1, line');
      await byTestId(page, 'import-use').click();
      await expect.poll(() => text(page, 'editor-problem-count'), { timeout: 20_000 }).toBe('none: it loads');
      await byTestId(page, 'editor-run').click();
      await expect.poll(() => layoutOf(page)).not.toBe('editor');
      await byTestId(page, 'play-button').click();
      // The storefront's pods hold connections of their own to the catalog's, made by its calls.
      const calls = page.locator('path.topo-conn[data-from="storefront"][data-to="catalog"]');
      await expect.poll(() => calls.count(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(await page.locator('path.topo-conn[data-from="catalog"][data-to="storefront"]').count()).toBe(0);
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 120_000);

  it('opens a scenario file dropped on the app, and names what is wrong with a broken one', async () => {
    await withApp('drop-file', `?scenario=${DEMO}`, async (app) => {
      const { page } = app;
      await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 20_000 }).toBe(DEMO);
      const demo = await readFile(new URL(`../../public/scenarios/${DEMO}`, import.meta.url), 'utf8');
      const drop = (name: string, content: string) =>
        page.evaluate(
          ([fileName, body]) => {
            const data = new DataTransfer();
            data.items.add(new File([body!], fileName!, { type: 'application/yaml' }));
            document.querySelector('main')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
          },
          [name, content],
        );
      await drop('broken.yaml', demo.replace('replicas: 3', 'replicas: many'));
      await expect.poll(() => text(page, 'error-banner')).toContain('topology.deployments.web.replicas');
      expect(await byTestId(page, 'scenario-picker').inputValue()).toBe(DEMO);
      await drop('dropped.yaml', demo.replace(/^title: .*$/m, 'title: Dropped demo'));
      await expect.poll(() => page.locator('#scenario-picker option:checked').textContent()).toBe('dropped.yaml (opened file)');
      expect(app.problems.pageErrors).toEqual([]);
    });
  }, 60_000);
});
