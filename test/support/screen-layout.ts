import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** Where things sit on screen, for the e2e tests that check nothing covers what a user needs next. */
export type Box = { x: number; y: number; width: number; height: number };

export const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The locator's box; fails naming it when it is not on screen. */
export async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${String(locator)} is not on screen`);
  return box;
}

/** The toasts shown now (Chakra renders each as a status region in the toaster's group). */
export const shownToasts = (page: Page): Locator => page.locator('[data-scope="toast"][data-part="root"]');

/** Fails naming the control when the toast shown now covers any of them. */
export async function expectToastClearOf(page: Page, controls: Record<string, Locator>): Promise<void> {
  const toast = await boxOf(shownToasts(page));
  for (const [name, control] of Object.entries(controls)) {
    expect(overlaps(toast, await boxOf(control)), `the toast covers ${name}`).toBe(false);
  }
}
