import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { AppPage } from './browser';

export const byTestId = (page: Page, id: string) => page.getByTestId(id);

/** Which layout the app shows: desktop, projector, narrow, embed, presenter or editor. */
export const layoutOf = (page: Page) => page.locator('[data-layout]').getAttribute('data-layout');

/** No page error, no console error (a CSP violation becomes one) and no request to a host other than 127.0.0.1. */
export function expectClean(app: AppPage): void {
  expect(app.problems.pageErrors, 'page errors').toEqual([]);
  expect(app.problems.consoleErrors, 'console errors, CSP violations among them').toEqual([]);
  expect(app.problems.outsideRequests, 'requests to hosts other than 127.0.0.1').toEqual([]);
}

// Short timeout: callers poll, and a missing element should retry rather than block the poll.
export const text = async (page: Page, id: string) => ((await byTestId(page, id).first().textContent({ timeout: 2_000 })) ?? '').trim();

export async function clockUs(page: Page): Promise<number> {
  const raw = await byTestId(page, 'sim-clock').getAttribute('data-us');
  const us = Number(raw);
  if (raw === null || !Number.isInteger(us)) throw new Error(`sim-clock data-us is not an integer: ${String(raw)}`);
  return us;
}

/**
 * Waits for the run status the worker reports. A change of status is a message round trip behind whatever the worker
 * and the page are busy with, which on a loaded two-core CI machine can take seconds; this waits for the state, not for
 * speed.
 */
export async function untilStatus(page: Page, status: 'running' | 'paused', timeout = 30_000): Promise<void> {
  await expect.poll(() => text(page, 'run-status'), { timeout }).toBe(status);
}

/** Waits until the picker shows `file` and its run is ready, paused at its start. */
export async function untilLoaded(page: Page, file: string): Promise<void> {
  await expect.poll(() => byTestId(page, 'scenario-picker').inputValue(), { timeout: 30_000 }).toBe(file);
  await untilStatus(page, 'paused');
}

/** In the focused editor: completions on a new last line, then the search panel; both build their own styles (CSP). */
export async function openCompletionsAndSearch(page: Page): Promise<void> {
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+Space');
  await expect.poll(() => page.locator('.cm-tooltip-autocomplete .cm-completionLabel').count()).toBeGreaterThan(0);
  await page.keyboard.press('Escape');
  await page.keyboard.press('ControlOrMeta+F');
  await expect.poll(() => page.locator('.cm-search').count()).toBe(1);
}
