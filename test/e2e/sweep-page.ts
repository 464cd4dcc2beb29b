import type { Page } from 'playwright-core';
import { byTestId } from './page';

/** Driving the sweep dialog, as the browser tests and `npm run bench:ui` do. */

/** The faults the demo is swept over in the pool test and the bench: one run each per target, a few seconds in all. */
export const DEMO_SWEEP_FAULTS = ['power-off-node', 'crash-loop', 'delete-pod'];

export async function openSweep(page: Page): Promise<void> {
  await page.keyboard.press('s');
  await byTestId(page, 'sweep-dialog').waitFor();
}

export async function chooseFaults(page: Page, ids: readonly string[]): Promise<void> {
  await byTestId(page, 'sweep-all-faults').uncheck();
  for (const id of ids) await byTestId(page, 'sweep-faults').locator(`input[value="${id}"]`).check();
}
