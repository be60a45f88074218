/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestUser } from '../support/cognito-users';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * The whole upgrade as a person does it: a free user meets a gate, pays on the local test
 * checkout, sees Pro everywhere with the gate gone, cancels in the portal and sees the end date.
 */
describe('Upgrading to Pro and cancelling in Chromium', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const user = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Billing', lastName: 'Tester' });
    const api = (path: string, body?: unknown) =>
      fetch(`${app}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    await api('/api/auth/user');
    expect((await api('/api/bulk-create', { projectName: 'Billing', csvData: [{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }] })).status).toBe(200);
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  const planFooter = () => page.getByRole('region', { name: 'Plan' });

  it('shows a free user the Free plan, the gate, and takes Upgrade Now to the local test checkout', async () => {
    for (const [path, button, feature] of [
      ['/integrations', 'Add Integration', 'API Integrations'],
      ['/email-templates', 'Create your first template', 'Email Templates'],
    ] as const) {
      await page.goto(`${app}${path}`);
      await page.getByRole('button', { name: button }).click();
      const gate = page.getByRole('dialog', { name: 'Upgrade to Pro' });
      await gate.getByText(`Upgrade to Pro to access ${feature}.`, { exact: false }).waitFor();
      await gate.getByRole('button', { name: 'Maybe Later' }).click();
      await gate.waitFor({ state: 'hidden' });
    }

    await page.goto(`${app}/exports`);
    await page.getByRole('heading', { name: 'Export Center', level: 1 }).waitFor();
    await planFooter().getByText('Free', { exact: true }).waitFor();
    await planFooter().getByRole('button', { name: 'Upgrade Now' }).waitFor();

    await page.getByRole('combobox', { name: 'Format' }).selectOption('json');
    const prompt = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await prompt.getByText('Advanced Export Formats').first().waitFor();
    await page.screenshot({ path: screenshotPath('billing-gate'), animations: 'disabled' });
    await prompt.getByRole('button', { name: 'Upgrade Now' }).click();

    await page.waitForURL(/\/local-billing\/checkout\//);
    await page.getByText('Local test checkout').first().waitFor();
    await page.getByText('$19.95').first().waitFor();
    await page.screenshot({ path: screenshotPath('billing-local-checkout') });
  });

  it('pays, returns to Settings > Subscription and shows Pro everywhere with the gate gone', async () => {
    await page.getByRole('button', { name: 'Pay $19.95 and subscribe' }).click();
    await page.waitForURL(/\/settings\?tab=subscription/);
    await page.getByText(/^Next billing date: /).first().waitFor();
    await planFooter().getByText('Pro Active').waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'Manage Subscription' }).count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Upgrade to Pro' }).count()).toBe(0);
    // The confirmation parameter is removed once Pro is confirmed.
    await expect.poll(() => new URL(page.url()).searchParams.has('checkout')).toBe(false);
    await page.screenshot({ path: screenshotPath('billing-pro-settings') });

    await page.goto(`${app}/exports`);
    await page.getByRole('heading', { name: 'Export Center', level: 1 }).waitFor();
    await planFooter().getByText('Pro Active').waitFor();
    await page.getByRole('combobox', { name: 'Format' }).selectOption('json');
    expect(await page.getByRole('dialog', { name: 'Upgrade to Pro' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('json');

    // The integration gate is gone too.
    await page.goto(`${app}/integrations`);
    await page.getByText('Add Your First Integration').waitFor();
    await page.getByRole('button', { name: 'Add Integration', exact: true }).click();
    await page.getByRole('dialog', { name: 'Add Integration' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Upgrade to Pro' }).count()).toBe(0);
  });

  it('cancels in the portal and shows the date the plan ends', async () => {
    await page.goto(`${app}/settings?tab=subscription`);
    await page.getByRole('button', { name: 'Manage Subscription' }).first().click();
    await page.waitForURL(/\/local-billing\/portal\//);
    await page.getByRole('button', { name: 'Cancel subscription' }).click();
    await page.getByText('Your subscription was updated.').waitFor();
    await page.getByText(/Your plan will be canceled on/).waitFor();
    await page.screenshot({ path: screenshotPath('billing-local-portal') });
    await page.getByRole('link', { name: 'Return to BulkOnboard' }).click();

    await page.waitForURL(/\/settings\?tab=subscription/);
    const ends = page.getByText(/^Your Pro plan ends on /).first();
    await ends.waitFor();
    // The end date is the paid period's end, a month from now.
    const shown = (await ends.textContent())!.replace('Your Pro plan ends on ', '').trim();
    const end = new Date(shown);
    expect(Number.isNaN(end.getTime())).toBe(false);
    expect(end.getTime() - Date.now()).toBeGreaterThan(27 * 24 * 3600 * 1000);
    // Still Pro until then.
    await planFooter().getByText('Pro Active').waitFor();
    await page.screenshot({ path: screenshotPath('billing-cancelling') });
  });
});
