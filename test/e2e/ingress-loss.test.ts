import { describe, expect, it } from 'vitest';
import { appHarness } from './harness';
import { clockUs, expectClean, untilLoaded, untilStatus } from './page';

/** The picture of the silent node loss (public/scenarios/ingress-loss.yaml): a dark node that is still a next hop. */

const { withApp } = appHarness({ viewport: { width: 1600, height: 1000 } });

describe('ingress-loss in the picture', () => {
  it('draws node-c dark while the router still holds it as a next hop, and drops that next hop when the hold timer fires', async () => {
    await withApp('ingress-loss-dark-next-hop', '?scenario=ingress-loss.yaml&t=140&speed=max', async (app) => {
      const { page } = app;
      await untilLoaded(page, 'ingress-loss.yaml');
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBe(140e6);
      await untilStatus(page, 'paused');
      const nodeC = page.locator('[data-entity="node/node-c"]');
      expect(await nodeC.getAttribute('data-powered')).toBe('false');
      const dark = page.locator('path.topo-ecmp[data-dark="true"]');
      await expect.poll(() => page.locator('path.topo-ecmp').count()).toBe(4);
      expect(await dark.count()).toBe(1);
      expect(await dark.locator('title').textContent()).toMatch(/^192\.0\.2\.50\/32: ECMP next hop \d of 4, node node-c — powered off, yet still a next hop/);
      // The speaker side of the session is gone, but the router still holds its route.
      expect(await page.locator('path.topo-bgp[data-up="false"] title').textContent()).toBe('BGP session node/node-c ↔ router/tor: down, 1 route at the router');

      // Opened again past the hold timer (180 s): playing there at max speed and pausing raced the run's end.
      await page.goto(new URL('?scenario=ingress-loss.yaml&t=190&speed=max', page.url()).href);
      await untilLoaded(page, 'ingress-loss.yaml');
      await expect.poll(() => clockUs(page), { timeout: 60_000 }).toBe(190e6);
      await untilStatus(page, 'paused');
      await expect.poll(() => page.locator('path.topo-ecmp').count()).toBe(3);
      expect(await dark.count()).toBe(0);
      expect(await nodeC.getAttribute('data-powered')).toBe('false');
      expectClean(app);
    });
  }, 120_000);
});
