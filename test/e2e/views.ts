import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage } from './browser';
import { editorText, fillEditor } from './code-editor';
import { serveDist } from './server';

/**
 * Pictures of the built app (DIST, default dist/): the README's into public/screenshots/, the rest at a desktop, projector
 * or wiki-iframe size into test/e2e/__screenshots__/. `npm run screenshots [filter]` takes views whose name contains it.
 */

const OUT = fileURLToPath(new URL('./__screenshots__/', import.meta.url));
const README_OUT = fileURLToPath(new URL('../../public/screenshots/', import.meta.url));
const SIZES = { desktop: { width: 1920, height: 1080 }, projector: { width: 1280, height: 720 }, iframe: { width: 800, height: 500 } };

type Size = { width: number; height: number };
type Scheme = 'light' | 'dark';

interface Shot {
  path: string;
  size: Size;
  scheme: Scheme;
}

interface View {
  name: string;
  /** Query string of the app URL, without the `?`. */
  query: string;
  /** The page opens at the first shot's size and scheme. */
  shots: Shot[];
  /** Brings the opened page to the moment pictured. */
  play: (page: Page) => Promise<void>;
  /** Readies the page for each shot after it has been resized and recoloured. */
  frame?: (page: Page) => Promise<void>;
}

const clockUs = async (page: Page): Promise<number> => Number(await page.getByTestId('sim-clock').getAttribute('data-us'));
const status = async (page: Page): Promise<string> => ((await page.getByTestId('run-status').textContent()) ?? '').trim();

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}

async function loaded(page: Page, scenario: string): Promise<void> {
  await waitFor(`${scenario} to load`, 30_000, async () => (await status(page)) === 'paused' && (await page.getByTestId('scenario-picker').inputValue()) === scenario);
}

async function pause(page: Page): Promise<void> {
  if ((await status(page)) === 'running') await page.getByTestId('play-button').click();
  await waitFor('the run to pause', 10_000, async () => ['paused', 'done'].includes(await status(page)));
}

/** Plays to `seconds` of simulated time (or the end) without stopping at chapters, then pauses. */
async function playUntil(page: Page, seconds: number, timeoutMs = 240_000): Promise<void> {
  await page
    .getByTestId('pause-at-chapters')
    .uncheck()
    .catch(() => {});
  await page.getByTestId('play-button').click();
  await waitFor(`simulated ${seconds} s`, timeoutMs, async () => (await clockUs(page)) >= seconds * 1e6 || (await status(page)) === 'done');
  await pause(page);
  await page.waitForTimeout(600);
}

/** The demo played at speed 10 to 25 s, within 0.1 s in both schemes, at the README's 1400×850. */
function readme(scheme: Scheme): View {
  const speed = 10;
  const atS = 25;
  return {
    name: `readme-${scheme}`,
    query: `scenario=demo.yaml&speed=${speed}&autoplay=1`,
    shots: [{ path: `${README_OUT}${scheme}.png`, size: { width: 1400, height: 850 }, scheme }],
    play: async (page) => {
      await waitFor('the demo to start playing', 15_000, async () => ['running', 'done'].includes(await status(page)));
      // Pause a little early and finish with 0.1 s steps, so both pictures land within 0.1 s of the target.
      await waitFor(`simulated ${atS - 2} s`, (atS / speed) * 4_000 + 10_000, async () => (await clockUs(page)) >= (atS - 2) * 1e6 || (await status(page)) === 'done');
      await pause(page);
      await page.waitForTimeout(200);
      let now = await clockUs(page);
      while (now < atS * 1e6 && (await status(page)) !== 'done') {
        const before = now;
        await page.getByTestId('step-button').click();
        await waitFor('a 0.1 s step', 5_000, async () => (await clockUs(page)) > before);
        now = await clockUs(page);
      }
      if (now > (atS + 0.1) * 1e6) console.warn(`readme-${scheme}: the pause landed at ${now / 1e6} s, past ${atS} s (a busy machine); run it again`);
      await page.mouse.move(0, 0);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    },
  };
}

/** `scenario` loaded paused, played at `speed` to `until` s, then `then` done, at one size. */
function paused(view: { name: string; scenario: string; size: keyof typeof SIZES; dark?: boolean; until: number; speed: string; then?: (page: Page) => Promise<void> }): View {
  const size = SIZES[view.size];
  return {
    name: view.name,
    query: `scenario=${view.scenario}&speed=${view.speed}`,
    shots: [{ path: `${OUT}${view.name}-${size.width}x${size.height}${view.dark ? '-dark' : ''}.png`, size, scheme: view.dark ? 'dark' : 'light' }],
    play: async (page) => {
      await loaded(page, view.scenario);
      await playUntil(page, view.until);
      await view.then?.(page);
    },
  };
}

/** One page pictured at every size, light and dark, with the crosshair on chart `chart` at `t` of a `durationS` run. */
function everySize(name: string, query: string, play: (page: Page) => Promise<void>, chart: number, t: number, durationS: number): View {
  const shots = (['light', 'dark'] as const).flatMap((scheme) => Object.values(SIZES).map((size) => ({ path: `${OUT}${name}-${size.width}x${size.height}-${scheme}.png`, size, scheme })));
  return {
    name,
    query,
    shots,
    play,
    frame: async (page) => {
      // Each size has its own layout, mounted afresh, so the palette and A/B figures open as at a page load at that size.
      await page.waitForTimeout(400);
      // The whole row, title and legend included, not just its plot.
      await page
        .getByTestId('timeline-chart')
        .nth(chart)
        .evaluate((row) => row.scrollIntoView({ block: 'nearest' }));
      const box = await page.getByTestId('chart').nth(chart).boundingBox();
      if (box) await page.mouse.move(box.x + 56 + ((box.width - 82) * t) / durationS, box.y + box.height / 2);
    },
  };
}

const VIEWS: View[] = [
  readme('light'),
  readme('dark'),
  everySize('timeline', 'scenario=demo.yaml&speed=max&autoplay=1', (page) => waitFor('the demo to finish', 60_000, async () => (await status(page)) === 'done'), 0, 22, 60),
  everySize(
    'compare',
    'scenario=its-not-dns.yaml&speed=max',
    async (page) => {
      await loaded(page, 'its-not-dns.yaml');
      await page.getByTestId('compare-toggle').click();
      await page.getByTestId('compare-fix').selectOption('start:default-backoff');
      await playUntil(page, 65, 900_000);
      const aUs = String(await clockUs(page));
      await waitFor('run B to catch up', 300_000, async () => (await page.getByTestId('compare-clock').getAttribute('data-us')) === aUs);
      await page.waitForTimeout(1_000);
    },
    1,
    58,
    210,
  ),
  paused({ name: 'incident-far', scenario: 'its-not-dns.yaml', size: 'desktop', until: 62, speed: 'max' }),
  paused({
    name: 'incident-node-why',
    scenario: 'its-not-dns.yaml',
    size: 'desktop',
    dark: true,
    until: 80,
    speed: 'max',
    then: async (page) => {
      await page.locator('[data-testid="why-button"][data-reason="dns_refused"]').click();
      await page.getByTestId('why-step').first().waitFor();
      await page.getByTestId('why-step').first().getByRole('button').click();
    },
  }),
  paused({
    name: 'palette-popover',
    scenario: 'demo.yaml',
    size: 'desktop',
    until: 21,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-testid="fault-card"][data-fault="delete-pod"]').dragTo(page.locator('[data-testid="pod"][data-pod="web-1"]'));
    },
  }),
  paused({
    name: 'bare-metal-router',
    scenario: 'bare-metal-sandbox.yaml',
    size: 'desktop',
    dark: true,
    until: 10,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-entity="router/tor"]').click();
    },
  }),
  paused({
    name: 'f5-unknown-health-why',
    scenario: 'f5-unknown-health.yaml',
    size: 'desktop',
    until: 70,
    speed: '10',
    then: async (page) => {
      await page.locator('[data-testid="why-button"][data-reason="no_local_endpoint"]').click();
      await page.getByTestId('why-step').first().waitFor();
    },
  }),
  paused({
    name: 'source-ip-journey',
    scenario: 'source-ip.yaml',
    size: 'desktop',
    dark: true,
    until: 12,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-entity="lb/bigip"]').first().click();
      const journey = page.getByTestId('request-journey').filter({ hasText: 'inside the data centre' }).first();
      await journey.locator('summary').click();
      await journey.getByRole('button').click();
      await page.getByTestId('why-step').first().waitFor();
    },
  }),
  paused({
    name: 'cfs-throttling-done',
    scenario: 'cfs-throttling.yaml',
    size: 'desktop',
    until: 60,
    speed: 'max',
    then: async (page) => {
      await page.locator('[data-entity="pod/api-0"]').first().click();
      await page.getByTestId('why-summary').click();
    },
  }),
  paused({
    name: 'kube-proxy-overload-rollout',
    scenario: 'kube-proxy-overload.yaml',
    size: 'desktop',
    dark: true,
    until: 64,
    speed: 'max',
    then: async (page) => {
      await page.locator('[data-entity="node/node-b"]').first().click();
    },
  }),
  paused({
    name: 'calico-collision-node',
    scenario: 'calico-collision.yaml',
    size: 'desktop',
    until: 47,
    speed: '10',
    then: async (page) => {
      await page.locator('[data-entity="node/node-b"]').first().click();
    },
  }),
  paused({
    name: 'ecmp-resets-why',
    scenario: 'ecmp-resets.yaml',
    size: 'desktop',
    until: 90,
    speed: '10',
    then: async (page) => {
      await page.locator('[data-testid="why-button"][data-reason="no_socket_reset"]').first().click();
      await page.getByTestId('why-step').first().waitFor();
    },
  }),
  paused({
    name: 'ecmp-resets-per-node',
    scenario: 'ecmp-resets.yaml',
    size: 'desktop',
    until: 120,
    speed: '10',
    then: async (page) => {
      await page
        .getByText(/^Requests per node/i)
        .first()
        .scrollIntoViewIfNeeded();
    },
  }),
  paused({
    name: 'ecmp-resets-palette',
    scenario: 'ecmp-resets.yaml',
    size: 'desktop',
    until: 20,
    speed: '10',
    then: async (page) => {
      await page.locator('[data-testid="fault-card"][data-fault="load-spike"]').dragTo(page.locator('[data-entity="external/user-3"]'));
    },
  }),
  paused({
    name: 'service-discovery-storm',
    scenario: 'service-discovery.yaml',
    size: 'desktop',
    until: 62,
    speed: '10',
    then: async (page) => {
      await page.locator('[data-entity="zookeeper/ensemble"]').click();
    },
  }),
  paused({
    name: 'service-discovery-why',
    scenario: 'service-discovery.yaml',
    size: 'desktop',
    until: 240,
    speed: 'max',
    then: async (page) => {
      await page.getByTestId('why-summary').click();
      await page
        .locator('[data-entity^="pod/api-"]')
        .first()
        .waitFor({ state: 'attached' })
        .catch(() => {});
    },
  }),
  paused({
    name: 'export-menu',
    scenario: 'demo.yaml',
    size: 'projector',
    until: 10,
    speed: '5',
    then: async (page) => {
      await page.getByTestId('export-button').click();
    },
  }),
  paused({
    name: 'share-dialog',
    scenario: 'demo.yaml',
    size: 'projector',
    until: 15,
    speed: '5',
    then: async (page) => {
      await page.getByTestId('share-button').click();
    },
  }),
  paused({ name: 'projector-incident', scenario: 'its-not-dns.yaml', size: 'projector', until: 40, speed: 'max' }),
  paused({
    name: 'projector-demo-menu',
    scenario: 'demo.yaml',
    size: 'projector',
    dark: true,
    until: 22,
    speed: '5',
    then: async (page) => {
      await page.locator('[data-testid="pod"][data-pod="web-2"]').click({ button: 'right' });
    },
  }),
  {
    name: 'embed-incident',
    query: 'scenario=its-not-dns.yaml&embed=1&chapter=3',
    shots: [
      { path: `${OUT}embed-incident-800x500.png`, size: SIZES.iframe, scheme: 'light' },
      { path: `${OUT}embed-incident-600x400-dark.png`, size: { width: 600, height: 400 }, scheme: 'dark' },
    ],
    play: (page) => waitFor('the link to replay to chapter 3 (40 s)', 240_000, async () => (await status(page)) === 'paused' && (await clockUs(page)) === 40e6),
  },
  {
    name: 'presenter-incident',
    query: 'scenario=its-not-dns.yaml&present=1&speed=max',
    shots: [
      { path: `${OUT}presenter-incident-1280x720.png`, size: SIZES.projector, scheme: 'light' },
      { path: `${OUT}presenter-incident-1920x1080-dark.png`, size: SIZES.desktop, scheme: 'dark' },
    ],
    play: async (page) => {
      await waitFor('presenter mode', 30_000, async () => (await page.locator('[data-layout="presenter"]').count()) === 1);
      // Chapter 3 told and played to chapter 4's start, with the laser on the picture.
      for (const [key, at] of [
        ['PageDown', 30],
        ['PageDown', 30],
        ['PageDown', 40],
        ['PageDown', 40],
        ['PageDown', 50],
      ] as const) {
        await page.keyboard.press(key);
        await waitFor(`the story at ${at} s`, 240_000, async () => (await clockUs(page)) === at * 1e6 && (await status(page)) === 'paused');
      }
      await page.keyboard.press('l');
    },
    frame: async (page) => {
      const box = await page.getByTestId('topology').first().boundingBox();
      if (box) await page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.4);
    },
  },
  {
    name: 'editor-demo',
    query: 'scenario=demo.yaml',
    shots: [
      { path: `${OUT}editor-demo-1280x720.png`, size: SIZES.projector, scheme: 'light' },
      { path: `${OUT}editor-demo-1920x1080-dark.png`, size: SIZES.desktop, scheme: 'dark' },
    ],
    play: async (page) => {
      await loaded(page, 'demo.yaml');
      await page.keyboard.press('e');
      await page.locator('[data-testid="editor-add"][data-kind="node"]').click();
      await waitFor('the new node', 20_000, async () => (await editorText(page)).includes('node-d'));
      await fillEditor(page, (await editorText(page)).replace('replicas: 3', 'replicas: -3'));
      await waitFor('the check', 20_000, async () => (await page.getByTestId('editor-problem').count()) === 1);
      await page.getByTestId('editor-problem').click();
    },
  },
  {
    name: 'editor-import',
    query: 'scenario=demo.yaml',
    shots: [{ path: `${OUT}editor-import-1280x720.png`, size: SIZES.projector, scheme: 'light' }],
    play: async (page) => {
      await loaded(page, 'demo.yaml');
      await page.keyboard.press('e');
      await page.getByTestId('editor-import').click();
      await page
        .getByTestId('import-source')
        .fill(
          [
            'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: shop, labels: { app: shop } }\nspec:\n  replicas: 3\n  selector: { matchLabels: { app: shop } }\n  template:\n    metadata: { labels: { app: shop } }\n    spec:\n      containers:\n        - { name: shop, image: "shop:1.2", ports: [{ containerPort: 8080 }], livenessProbe: { httpGet: { path: /healthz, port: 8080 } } }',
            'apiVersion: v1\nkind: Service\nmetadata: { name: shop }\nspec: { type: LoadBalancer, externalTrafficPolicy: Local, selector: { app: shop }, ports: [{ port: 80, targetPort: 8080 }] }',
            'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: { name: shop }\nspec: { scaleTargetRef: { kind: Deployment, name: shop }, minReplicas: 3, maxReplicas: 10, metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 70 } } }] }',
            'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: { name: shop }\nspec: {}',
          ].join('\n---\n'),
        );
    },
  },
  paused({ name: 'iframe-demo', scenario: 'demo.yaml', size: 'iframe', until: 22, speed: '5' }),
  paused({ name: 'iframe-bare-metal', scenario: 'bare-metal-sandbox.yaml', size: 'iframe', dark: true, until: 10, speed: '5' }),
];

async function capture(browser: Browser, url: string, view: View): Promise<void> {
  const first = view.shots[0];
  const app = await openPage(browser, `${url}?${view.query}`, { colorScheme: first?.scheme, viewport: first?.size });
  try {
    const { page } = app;
    await view.play(page);
    for (const shot of view.shots) {
      await page.emulateMedia({ colorScheme: shot.scheme });
      await page.setViewportSize(shot.size);
      await view.frame?.(page);
      // Let the last frame, the charts and hover/focus transitions settle.
      await page.waitForTimeout(500);
      await mkdir(dirname(shot.path), { recursive: true });
      await page.screenshot({ path: shot.path });
      console.log(`Wrote ${shot.path}`);
    }
    const problems = [...app.problems.pageErrors, ...app.problems.consoleErrors, ...app.problems.outsideRequests];
    if (problems.length > 0) console.warn(`Problems in ${view.name}:\n  ${problems.join('\n  ')}`);
  } finally {
    await app.close();
  }
}

const only = process.argv[2] ?? '';
const views = VIEWS.filter((view) => view.name.includes(only));
if (views.length === 0) {
  console.error(`No view name contains ${JSON.stringify(only)}; views: ${VIEWS.map((view) => view.name).join(', ')}`);
  process.exit(1);
}
const server = await serveDist({ distDir: process.env['DIST'] || undefined });
try {
  const browser = await launchBrowser();
  try {
    for (const view of views) await capture(browser, server.url, view);
  } finally {
    await browser.close();
  }
} finally {
  await server.close();
}
