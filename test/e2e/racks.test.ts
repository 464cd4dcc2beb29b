import { describe, expect, it } from 'vitest';
import { appHarness } from './harness';
import { clockUs, expectClean, untilLoaded, untilStatus } from './page';

/** Racks in the picture (public/scenarios/spread.yaml): frames around where machines stand, and a switch to fail. */

const { withApp } = appHarness({ viewport: { width: 1600, height: 1000 } });

describe('racks in the picture', () => {
  it('frames each rack around its machines, says which are unlabelled, and takes a switch failure from its menu', async () => {
    await withApp('racks', '?scenario=spread.yaml&t=10&speed=max', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'spread.yaml');
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBe(10e6);
      await untilStatus(page, 'paused');
      const racks = page.getByTestId('rack');
      expect(await racks.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
        'rack r1 · room-1 · 3 machines',
        'rack r2 · room-1 · 3 machines',
        'rack r3 · none labelled r3 · room-1 · 3 machines',
      ]);
      // Each node lies inside its rack's frame, under the heading.
      const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
      for (const [rack, nodes] of [
        ['r1', ['node-a', 'node-b', 'node-c']],
        ['r3', ['node-g', 'node-h', 'node-i']],
      ] as const) {
        const frame = await box(`[data-entity="rack/${rack}"] .topo-rack-box`);
        const heading = await box(`[data-entity="rack/${rack}"] .topo-rack-title`);
        for (const name of nodes) {
          const node = await box(`[data-entity="node/${name}"]`);
          expect(node.x).toBeGreaterThanOrEqual(frame.x);
          expect(node.x + node.width).toBeLessThanOrEqual(frame.x + frame.width);
          expect(node.y).toBeGreaterThanOrEqual(heading.y + heading.height);
          expect(node.y + node.height).toBeLessThanOrEqual(frame.y + frame.height);
        }
      }

      // The rack's own menu offers its switch; failing r1's cuts its machines off, and the frame says so.
      await page.locator('[data-entity="rack/r1"] .topo-rack-box').click({ button: 'right', position: { x: 6, y: 6 } });
      await page.locator('[data-testid="fault-menu"] [data-fault="fail-rack-switch"]').click();
      await page.getByTestId('fault-popover').getByTestId('fault-button').click();
      const r1 = page.locator('[data-entity="rack/r1"]');
      await expect.poll(() => r1.getAttribute('data-switch'), { timeout: 10_000 }).toBe('down');
      expect(await r1.getAttribute('aria-label')).toBe('rack r1 · switch down · room-1 · 3 machines');
      const nodeA = page.locator('[data-entity="node/node-a"]');
      expect([await nodeA.getAttribute('data-powered'), await nodeA.getAttribute('data-uplink')]).toEqual(['true', 'false']);
      expect(await nodeA.getAttribute('aria-label')).toMatch(/^node node-a, cut off by its rack switch/);

      // Selected, the rack shows its switch and which of its machines a label places there.
      await r1.click({ position: { x: 6, y: 6 } });
      const inspector = page.getByTestId('inspector');
      await expect.poll(() => inspector.textContent(), { timeout: 10_000 }).toContain('failed: its machines are cut off');
      expect(await inspector.textContent()).toContain('rack=r1');
      expectClean(app);
    });
  }, 120_000);
});
