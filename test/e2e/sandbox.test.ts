import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { appHarness } from './harness';
import { byTestId, clockUs, expectClean, text, untilStatus } from './page';

/** The sandbox around the picture: the fault palette, the right-click menu, search, live traffic and the inspector. */

const harness = appHarness({ viewport: { width: 1600, height: 1000 } });
const { withApp } = harness;

const card = (page: Page, fault: string) => page.locator(`[data-testid="fault-card"][data-fault="${fault}"]`);
const pod = (page: Page, name: string) => page.locator(`[data-testid="pod"][data-pod="${name}"]`);
const eventsAbout = async (page: Page, entity: string): Promise<string[]> => (await byTestId(page, 'event-log-entry').allTextContents()).filter((t) => t.includes(entity));

async function ready(page: Page, file: string): Promise<void> {
  await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 20_000 }).toBe(file);
  await untilStatus(page, 'paused');
}

/** Plays until the clock passes `seconds`, then pauses and waits for the pause to land. */
async function playTo(page: Page, seconds: number, timeout = 60_000): Promise<void> {
  await page
    .getByTestId('pause-at-chapters')
    .uncheck()
    .catch(() => {});
  await byTestId(page, 'play-button').click();
  await expect.poll(() => clockUs(page), { timeout }).toBeGreaterThanOrEqual(seconds * 1e6);
  await byTestId(page, 'play-button').click();
  await untilStatus(page, 'paused');
}

async function dropCount(page: Page, reason: string): Promise<number> {
  const row = byTestId(page, 'drops').locator('li').filter({ hasText: reason });
  if ((await row.count()) === 0) return 0;
  return Number(((await row.locator('span').last().textContent()) ?? '0').replaceAll(',', ''));
}

describe('the sandbox', () => {
  it('takes "delete pod" dragged onto a metric pod of the first incident: GOAWAY, resets, then gone with its address still attached', async () => {
    await withApp('drag-delete-metric-pod', '?scenario=its-not-dns.yaml&speed=max', async (app) => {
      const { page } = app;
      await ready(page, 'its-not-dns.yaml');
      await playTo(page, 5);
      const victim = page.locator('[data-testid="pod"][data-deployment="metric"]').first();
      const name = (await victim.getAttribute('data-pod'))!;
      expect(await victim.getAttribute('data-phase')).toBe('running');
      const resetsBefore = await dropCount(page, 'no_socket_reset');

      await card(page, 'delete-pod').dragTo(victim);
      const popover = byTestId(page, 'fault-popover');
      await popover.waitFor({ state: 'visible' });
      expect(await popover.getAttribute('aria-label')).toBe(`Delete pod on pod/${name}`);
      await popover.locator('[data-param="gracePeriodSeconds"]').fill('5');
      await popover.getByTestId('fault-button').click();
      await popover.waitFor({ state: 'hidden' });

      // SIGTERM: GracefulStop sends GOAWAY on the pod's connections and it leaves the ready endpoints at once.
      await byTestId(page, 'play-button').click();
      await expect
        .poll(() => eventsAbout(page, `pod/${name}`), { timeout: 20_000 })
        .toEqual(expect.arrayContaining([expect.stringContaining('Delete pod (user)'), expect.stringContaining('GOAWAY')]));
      // SIGKILL after 5 s: gone, but the cloud keeps delivering its address to the instance for a while.
      await expect.poll(() => pod(page, name).getAttribute('data-phase'), { timeout: 30_000 }).toBe('gone');
      await byTestId(page, 'play-button').click();
      expect(await pod(page, name).getAttribute('data-ip-attached')).toBe('true');
      expect(await pod(page, name).getAttribute('aria-label')).toBe(`pod ${name}, gone, IP still attached`);
      expect(await dropCount(page, 'no_socket_reset')).toBeGreaterThan(resetsBefore);
      expectClean(app);
    });
  }, 150_000);

  it("explains a DNS refusal in the first incident down to the clients' reconnect policy, and links each step to the picture", async () => {
    await withApp('why-dns-refused', '?scenario=its-not-dns.yaml&speed=max', async (app) => {
      const { page } = app;
      await ready(page, 'its-not-dns.yaml');
      await playTo(page, 80, 200_000);
      await expect.poll(() => dropCount(page, 'dns_refused')).toBeGreaterThan(0);
      await page.locator('[data-testid="why-button"][data-reason="dns_refused"]').click();
      const panel = byTestId(page, 'why-panel');
      await panel.waitFor({ state: 'visible' });
      await expect.poll(() => text(page, 'why-symptom')).toMatch(/^dns_refused at node\//);
      const steps = await panel.getByTestId('why-step').allTextContents();
      expect(steps[0]).toMatch(/REFUSED/);
      expect(steps.some((s) => /hypervisor dropped/.test(s))).toBe(true);
      expect(steps.at(-1)).toMatch(/deployment\/alerting.*redial each address every 300 ms/);
      // A step's entity is a link: it selects that entity in the picture.
      await panel.getByTestId('why-step').last().getByTestId('why-step-entity').click();
      await expect.poll(() => byTestId(page, 'inspector').count()).toBe(1);
      expectClean(app);
    });
  }, 300_000);

  it("explains ZooKeeper's dropped packets by the reads a deploy costs, and partitions the ensemble dropped onto its box", async () => {
    await withApp('zookeeper-why-and-partition', '?scenario=service-discovery.yaml&speed=max', async (app) => {
      const { page } = app;
      await ready(page, 'service-discovery.yaml');
      await playTo(page, 45);
      await expect.poll(() => dropCount(page, 'hypervisor_pps_exceeded')).toBeGreaterThan(0);
      await page.locator('[data-testid="why-button"][data-reason="hypervisor_pps_exceeded"]').click();
      const panel = byTestId(page, 'why-panel');
      await panel.waitFor({ state: 'visible' });
      await expect.poll(() => text(page, 'why-symptom')).toBe('hypervisor_pps_exceeded at zookeeper/ensemble');
      const steps = await panel.getByTestId('why-step').allTextContents();
      expect(steps.some((s) => /300 watchers, .* [\d,]+ reads for a change on its own/.test(s))).toBe(true);
      expect(steps.at(-1)).toMatch(/deployment\/search.*rolled out a new version at 30\.0 s/);
      await panel.getByTestId('why-step').first().getByTestId('why-step-entity').click();
      await expect.poll(() => byTestId(page, 'inspector').textContent()).toContain('ZooKeeper ensemble');

      await card(page, 'partition-zookeeper').dragTo(page.locator('[data-entity="zookeeper/ensemble"]'));
      const popover = byTestId(page, 'fault-popover');
      await popover.waitFor({ state: 'visible' });
      expect(await popover.getAttribute('aria-label')).toBe('Partition ZooKeeper on zookeeper/ensemble');
      await popover.locator('[data-param="durationSeconds"]').fill('30');
      await popover.getByTestId('fault-button').click();
      await popover.waitFor({ state: 'hidden' });
      await byTestId(page, 'event-filter-entity').fill('zookeeper/ensemble');
      await expect.poll(() => eventsAbout(page, 'zookeeper/ensemble'), { timeout: 30_000 }).toEqual(expect.arrayContaining([expect.stringContaining('unreachable for 30 s')]));
      // Sessions not heard from for their 10 s timeout expire: the inspector counts them.
      const expired = async () => Number(/([\d,]+) expired or closed/.exec((await byTestId(page, 'inspector').textContent()) ?? '')?.[1]?.replaceAll(',', '') ?? NaN);
      const before = await expired();
      // Plays until they expire rather than to a fixed second: on a loaded machine the pause above lands some simulated
      // seconds late, and so does the partition, so a fixed stop can come before the sessions' timeout.
      await untilStatus(page, 'paused');
      await byTestId(page, 'play-button').click();
      await expect.poll(expired, { timeout: 60_000 }).toBeGreaterThan(before + 1000);
      expectClean(app);
    });
  }, 180_000);

  it("takes the run back to a why step's time and shows its entity there, pulsing; a pod no longer in the run offers no faults", async () => {
    await withApp('why-step-time', '?scenario=demo.yaml&speed=5', async (app) => {
      const { page } = app;
      await ready(page, 'demo.yaml');
      await playTo(page, 32);
      await page.locator('[data-testid="why-button"][data-reason="rp_filter_martian"]').click();
      const panel = byTestId(page, 'why-panel');
      const first = panel.getByTestId('why-step').first();
      await expect.poll(() => first.getByTestId('why-step-entity').textContent()).toBe('node/node-a');
      const [, minutes, secs] = /^at (\d+):(\d+\.\d)$/.exec((await first.getByTestId('why-step-time').textContent()) ?? '')!;
      const at = (Number(minutes) * 60 + Number(secs)) * 1e6;
      expect(at).toBeGreaterThan(20e6);
      expect(at).toBeLessThan(32e6);
      await first.getByTestId('why-step-time').click();
      // Replayed to the step's time (the clock shows tenths), then the node is selected and pulses.
      await expect.poll(async () => Math.abs((await clockUs(page)) - at), { timeout: 30_000 }).toBeLessThan(100_000);
      const node = page.locator('[data-entity="node/node-a"]').first();
      await expect.poll(() => node.getAttribute('data-pulse')).toBe('true');
      expect(await node.getAttribute('data-selected')).toBe('true');

      // web-0 was deleted at 20 s and the picture forgets it 10 s later: by the end, its step opens an inspector that
      // says it is gone and offers no fault.
      await byTestId(page, 'play-button').click();
      await expect.poll(() => text(page, 'run-status'), { timeout: 60_000 }).toBe('done');
      await panel.getByTestId('why-step-entity').filter({ hasText: 'pod/web-0' }).click();
      await expect.poll(() => text(page, 'inspector-gone')).toBe('None: pod/web-0 is gone.');
      expect(await byTestId(page, 'inspector').getByTestId('fault-button').count()).toBe(0);
      expectClean(app);
    });
  }, 120_000);

  it('adds a BGP speaker dropped onto the router: a new ECMP next hop, and flows that moved are reset', async () => {
    await withApp('bgp-speaker-on-router', '?scenario=bare-metal-sandbox.yaml&speed=5', async (app) => {
      const { page } = app;
      await ready(page, 'bare-metal-sandbox.yaml');
      await playTo(page, 8);
      const ecmp = page.locator('path.topo-ecmp');
      const sessions = page.locator('path.topo-bgp[data-up="true"]');
      await expect.poll(() => ecmp.count()).toBe(2);
      expect(await sessions.count()).toBe(2);
      const resetsBefore = await dropCount(page, 'no_socket_reset');

      await card(page, 'add-bgp-speaker').dragTo(page.locator('[data-entity="router/tor"]'));
      const popover = byTestId(page, 'fault-popover');
      await popover.waitFor({ state: 'visible' });
      expect(await popover.getAttribute('aria-label')).toBe('Start BGP speaker on router/tor');
      await popover.getByTestId('fault-button').click();
      await popover.waitFor({ state: 'hidden' });
      await byTestId(page, 'play-button').click();

      // After BGP converges the router spreads flows over three next hops; flows that hash to node-c meet a node
      // that never saw them, which answers with a reset.
      await expect.poll(() => ecmp.count(), { timeout: 20_000 }).toBe(3);
      expect(await sessions.count()).toBe(3);
      expect(await page.locator('path.topo-bgp').last().locator('title').textContent()).toMatch(/^BGP session node\/node-\w+ ↔ router\/tor: established, 1 route at the router$/);
      await expect.poll(() => dropCount(page, 'no_socket_reset'), { timeout: 20_000 }).toBeGreaterThan(resetsBefore);
      await expect.poll(() => page.getByTestId('drop-legend').allTextContents(), { timeout: 10_000 }).toEqual(expect.arrayContaining([expect.stringContaining('no_socket_reset')]));
      expectClean(app);
    });
  }, 90_000);

  it('lets a removed node join again behind the load balancer: its member is unknown, takes connections that fail, then goes down', async () => {
    await withApp('join-node-unknown-health', '?scenario=bare-metal-sandbox.yaml&speed=10', async (app) => {
      const { page } = app;
      await ready(page, 'bare-metal-sandbox.yaml');
      const member = page.locator('rect.topo-member[data-ip="10.0.0.14"]');
      await playTo(page, 3);
      expect(await member.getAttribute('data-health')).toBe('down');

      // Take node-d out of the cluster; the F5 drops its member at the next node poll.
      await page.locator('[data-entity="node/node-d"]').click({ button: 'right' });
      await page.locator('[data-testid="fault-menu"] [data-fault="remove-node"]').click();
      await byTestId(page, 'fault-popover').getByTestId('fault-button').click();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => member.count(), { timeout: 30_000 }).toBe(0);
      const nodeD = page.locator('[data-entity="node/node-d"]');
      expect(await nodeD.getAttribute('data-in-cluster')).toBe('false');
      expect(await nodeD.getAttribute('aria-label')).toBe('node node-d, not in the cluster');
      await byTestId(page, 'play-button').click();
      await untilStatus(page, 'paused');

      // It joins again as a new member whose health nobody knows yet.
      const failedBefore = await dropCount(page, 'no_local_endpoint');
      await page.locator('[data-entity="node/node-d"]').click({ button: 'right' });
      await page.locator('[data-testid="fault-menu"] [data-fault="join-node"]').click();
      await byTestId(page, 'fault-popover').getByTestId('fault-button').click();
      await byTestId(page, 'play-button').click();
      await expect.poll(() => member.getAttribute('data-health'), { timeout: 30_000 }).toBe('unknown');
      expect(await nodeD.getAttribute('data-in-cluster')).toBe('true');
      // While unknown it takes partners' connections, which kube-proxy on node-d drops: no local Traefik pod.
      await expect.poll(() => dropCount(page, 'no_local_endpoint'), { timeout: 30_000 }).toBeGreaterThan(failedBefore);
      await expect.poll(() => member.getAttribute('data-health'), { timeout: 30_000 }).toBe('down');
      expectClean(app);
    });
  }, 150_000);

  it("shows a request's addresses and X-Forwarded-For at every hop, and resets the header from the load balancer's menu", async () => {
    await withApp('source-ip-journeys', '?scenario=source-ip.yaml&speed=5', async (app) => {
      const { page } = app;
      await ready(page, 'source-ip.yaml');
      await playTo(page, 6);
      // Every request passes the load balancer, so its inspector lists all sampled ones.
      await page.locator('[data-entity="lb/bigip"]').first().click();
      const journeys = byTestId(page, 'inspector').getByTestId('request-journey');
      await expect.poll(() => journeys.count(), { timeout: 20_000 }).toBeGreaterThan(0);
      const first = journeys.first();
      await first.locator('summary').click();
      const hops = first.getByTestId('request-hop');
      // Client, load balancer, node, Traefik in and out, node, shop.
      expect(await hops.count()).toBe(7);
      expect(await hops.nth(1).textContent()).toMatch(/lb\/bigip.*source NAT to 10\.0\.0\.250/);
      expect(await hops.nth(3).textContent()).toMatch(/X-Forwarded-For: .*10\.0\.0\.1[123]/);
      expect(await hops.nth(6).textContent()).toMatch(/logged the client as/);
      expect(await first.locator('summary').textContent()).toMatch(/logged as .*(inside the data centre|wrote itself)/);

      // The load balancer's menu resets the header: from then on the shop logs every client's own address.
      await page.locator('[data-entity="lb/bigip"]').first().click({ button: 'right' });
      await page.locator('[data-testid="fault-menu"] [data-fault="set-forwarded-header"]').click();
      const popover = byTestId(page, 'fault-popover');
      await popover.locator('[data-param="mode"]').selectOption('replace');
      await popover.getByTestId('fault-button').click();
      await expect.poll(() => eventsAbout(page, 'lb/bigip')).toEqual(expect.arrayContaining([expect.stringContaining('X-Forwarded-For: replace')]));
      await playTo(page, 14);
      await expect.poll(() => journeys.first().locator('summary').textContent(), { timeout: 20_000 }).toMatch(/logged as .*the client's own address/);
      expectClean(app);
    });
  }, 120_000);

  it('runs again with a seed typed into the header, and names the field when the seed is not a number', async () => {
    await withApp('seed', '?scenario=demo.yaml', async (app) => {
      const { page } = app;
      await ready(page, 'demo.yaml');
      expect(await text(page, 'seed-display')).toBe('4');
      await byTestId(page, 'seed-display').click();
      await byTestId(page, 'seed-input').fill('42');
      await byTestId(page, 'seed-input').press('Enter');
      await expect.poll(() => text(page, 'seed-display')).toBe('42');
      await byTestId(page, 'seed-display').click();
      await byTestId(page, 'seed-input').fill('4x');
      await byTestId(page, 'seed-input').press('Enter');
      await expect.poll(() => text(page, 'error-banner')).toContain('seed: expected a whole number');
      expect(await byTestId(page, 'seed-input').inputValue()).toBe('4x');
      await page.keyboard.press('Escape');
      expect(await text(page, 'seed-display')).toBe('42');
      expect(app.problems.pageErrors).toEqual([]);
    });
  });

  it('lights up where a picked fault can land, places it from the keyboard, and offers a box its faults on right-click', async () => {
    await withApp('palette-keyboard-menu', '?scenario=demo.yaml&speed=5', async (app) => {
      const { page } = app;
      await ready(page, 'demo.yaml');

      // Enter on a card starts a pick: pods take "delete pod", nodes and Services do not.
      await card(page, 'delete-pod').focus();
      await page.keyboard.press('Enter');
      expect(await card(page, 'delete-pod').getAttribute('aria-pressed')).toBe('true');
      expect(await pod(page, 'web-1').getAttribute('data-drop')).toBe('valid');
      expect(await page.locator('[data-entity="node/node-b"]').getAttribute('data-drop')).toBe('invalid');
      // Escape cancels the pick and the picture goes back to normal.
      await page.keyboard.press('Escape');
      expect(await card(page, 'delete-pod').getAttribute('aria-pressed')).toBe('false');
      expect(await pod(page, 'web-1').getAttribute('data-drop')).toBeNull();

      // Pick again, then Enter on a focused pod opens the parameters next to it.
      await card(page, 'delete-pod').focus();
      await page.keyboard.press('Enter');
      await pod(page, 'web-1').focus();
      await page.keyboard.press('Enter');
      const popover = byTestId(page, 'fault-popover');
      await popover.waitFor({ state: 'visible' });
      expect(await popover.getAttribute('aria-label')).toBe('Delete pod on pod/web-1');
      await page.keyboard.press('Escape');
      await popover.waitFor({ state: 'hidden' });

      // Right-click: the faults a pod takes, the deployment one aimed at its deployment.
      await pod(page, 'web-2').click({ button: 'right' });
      const menu = byTestId(page, 'fault-menu');
      await menu.waitFor({ state: 'visible' });
      expect(await menu.locator('[role="menuitem"]').evaluateAll((items) => items.map((i) => i.getAttribute('data-fault')))).toEqual(
        expect.arrayContaining(['delete-pod', 'rolling-update']),
      );
      await page.keyboard.press('ArrowDown');
      const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-fault'));
      expect(focused).not.toBeNull();
      await menu.locator('[data-fault="rolling-update"]').click();
      await popover.waitFor({ state: 'visible' });
      expect(await popover.getAttribute('aria-label')).toBe('Rolling update on deployment/web');
      await popover.getByTestId('fault-button').click();
      await popover.waitFor({ state: 'hidden' });
      await byTestId(page, 'play-button').click();
      await expect.poll(() => page.locator('[data-testid="pod"][data-deployment="web"]').count(), { timeout: 20_000 }).toBeGreaterThan(3);
      expectClean(app);
    });
  });

  it('finds a pod by address, shows traffic and where drops happen, and inspects a node from the simulation', async () => {
    await withApp('search-traffic-inspect', '?scenario=demo.yaml&speed=5', async (app) => {
      const { page } = app;
      await ready(page, 'demo.yaml');
      await playTo(page, 21.5);

      // Martian drops at node-a, by reason, in the legend; traffic painted on the canvas.
      await expect.poll(() => page.getByTestId('drop-legend').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('rp_filter_martian')]));
      const painted = await byTestId(page, 'traffic').evaluate((canvas) => {
        const c = canvas as HTMLCanvasElement;
        const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      });
      expect(painted).toBeGreaterThan(500);

      await byTestId(page, 'topology-search').fill('10.244.2.2');
      await byTestId(page, 'topology-search').press('Enter');
      await expect.poll(() => text(page, 'inspector-ip')).toBe('10.244.2.2');
      expect(await pod(page, 'web-1').getAttribute('data-selected')).toBe('true');
      await byTestId(page, 'topology-search').fill('nothing-like-this');
      await byTestId(page, 'topology-search').press('Enter');
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'nothing-like-this' }).count()).toBe(1);

      await byTestId(page, 'topology-search').fill('node-a');
      await byTestId(page, 'topology-search').press('Enter');
      const inspector = byTestId(page, 'inspector');
      await expect.poll(() => inspector.getAttribute('aria-label')).toBe('Inspector: node/node-a');
      await expect
        .poll(() => inspector.getByTestId('inspector-section').allTextContents())
        .toEqual(expect.arrayContaining([expect.stringMatching(/Interfaces.*eth1.*no IPv4 address/), expect.stringMatching(/ip rule.*lookup main/)]));
      expectClean(app);
    });
  });
});
