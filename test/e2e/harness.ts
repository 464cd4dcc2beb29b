import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshotOnFailure, type AppPage, type PageOptions } from './browser';
import { serveDist, type ServeOptions, type StaticServer } from './server';

/**
 * One Chromium and one static server of dist/ for a test file (its beforeAll/afterAll are registered here), and
 * `withApp`, which opens the app at a query string, runs a body and keeps a screenshot in test-results/ if it fails.
 */
export function appHarness(
  options: PageOptions = {},
  serve: ServeOptions = {},
): {
  server: () => StaticServer;
  withApp: (name: string, query: string, body: (app: AppPage) => Promise<void>) => Promise<void>;
} {
  let browser: Browser | undefined;
  let server: StaticServer | undefined;
  beforeAll(async () => {
    server = await serveDist(serve);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    server: () => server!,
    async withApp(name, query, body) {
      const app = await openPage(browser!, server!.url + query, options);
      try {
        await screenshotOnFailure(app.page, name, () => body(app));
      } finally {
        await app.close();
      }
    },
  };
}
