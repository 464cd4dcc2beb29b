import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appHarness } from './harness';
import { byTestId, expectClean, openCompletionsAndSearch, text, untilStatus } from './page';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const POLICY = /^Content-Security-Policy: (.+)$/m.exec(readFileSync(README, 'utf8'))?.[1];
if (!POLICY) throw new Error('README.md has no "Content-Security-Policy: …" line to compare the page with');

// Served with no header at all: the policy in the page's own <meta> is the only one.
const harness = appHarness({ viewport: { width: 1400, height: 850 } });
const { withApp } = harness;

type Recorded = { violations: string[] };

describe('the policy in index.html', () => {
  it('is the one the README tells hosts to send', async () => {
    const html = await fetch(harness.server().url).then((r) => r.text());
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(POLICY);
  });

  it('holds while a scenario plays, pictures are drawn and the editor is used, with no violation', async () => {
    await withApp('csp-meta', '?scenario=demo.yaml&speed=max', async (app) => {
      const { page, context } = app;
      await context.addInitScript(() => {
        const recorded = window as unknown as Recorded;
        recorded.violations = [];
        document.addEventListener('securitypolicyviolation', (e) => recorded.violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
      });
      // From here on every violation is counted, from the page's first byte.
      await page.reload();
      await untilStatus(page, 'paused');
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'run-status'), { timeout: 60_000 }).toBe('done');
      await byTestId(page, 'export-button').click();
      const [file] = await Promise.all([page.waitForEvent('download'), byTestId(page, 'export-topology-png').click()]);
      expect(file.suggestedFilename()).toMatch(/\.png$/);
      await byTestId(page, 'edit-button').click();
      await byTestId(page, 'editor-text').click({ timeout: 20_000 });
      await openCompletionsAndSearch(page);
      expect(await page.evaluate(() => (window as unknown as Recorded).violations)).toEqual([]);
      expectClean(app);

      // The policy is in force: an inline script is refused, and reported.
      const ran = await page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'document.body.dataset.inlineRan = "yes"';
        document.head.append(script);
        return document.body.dataset.inlineRan ?? 'no';
      });
      expect(ran).toBe('no');
      await expect.poll(() => page.evaluate(() => (window as unknown as Recorded).violations)).toEqual(['script-src-elem inline']);
    });
  }, 120_000);
});
