import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export const byTestId = (page: Page, id: string) => page.getByTestId(id);

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
