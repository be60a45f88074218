/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Analytics } from '../../shared/schemas/analytics';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

/** A card's value and help text once loaded (a skeleton shows first), as the page shows them. */
async function card(page: Page, label: string, expected: string): Promise<string> {
  const stat = page.locator('dl', { has: page.getByText(label, { exact: true }) }).first();
  await stat.waitFor();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = (await stat.innerText()).replace(/\s+/g, ' ').trim();
    if (text === expected || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A user past the first run (onboarding and the welcome dialog are test/e2e/first-run.test.ts's). */
async function returningUser(names: { firstName: string; lastName: string }): Promise<ApiUser> {
  const user = await apiUser(names);
  await user.json('/api/user/onboarding', { method: 'POST', body: { name: `${names.firstName} ${names.lastName}` } });
  await user.json('/api/user/welcome-dismissal', { method: 'POST' });
  return user;
}

/** The Analytics page as a new user and as one with projects, light, dark and at phone width. */
describe('Analytics in Chromium', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page?.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  it('a new user sees every section empty, and "No analytics data" when nothing loads', async () => {
    const user = await returningUser({ firstName: 'Empty', lastName: 'Charts' });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInThroughApp(page, app, user);
    await page.goto(`${app}/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.getByText('No accounts or projects created in the last 12 months.').waitFor();
    await page.getByText('No accounts provisioned to a platform yet.').waitFor();
    await page.getByText('No rows submitted yet.').waitFor();
    await page.getByText('No recent activity. Create a project to see it here.').waitFor();
    expect(await card(page, 'Total Accounts', 'Total Accounts 0 0 this month (none last month)')).toBe('Total Accounts 0 0 this month (none last month)');
    expect(await card(page, 'Active Projects', 'Active Projects 0 0 new this month')).toBe('Active Projects 0 0 new this month');
    // Nothing to draw: the charts' code is never fetched.
    expect(await page.locator('.recharts-surface').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('analytics-empty'), fullPage: true });
    await settle(page);
    expect(describeViolations('analytics, empty', await axeViolations(page))).toEqual([]);

    // The network gives nothing back: the page says so and offers a retry, which works again.
    await page.route('**/api/analytics', (route) => route.abort('connectionrefused'));
    await page.reload();
    await page.getByRole('heading', { name: 'No analytics data' }).waitFor();
    await page.screenshot({ path: screenshotPath('analytics-no-data') });
    await page.unroute('**/api/analytics');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('No rows submitted yet.').waitFor();
    await page.context().close();
  }, 180_000);

  it('a user with projects sees the figures of what they created, charts included, in light, dark and at phone width', async () => {
    const user = await returningUser({ firstName: 'Chart', lastName: 'Reader' });
    await upgradeToPro(user);
    await user.json('/api/bulk-create', { body: { projectName: 'Spring hires', csvData: [...people(7, 'Spring'), { firstName: 'Bad', lastName: 'Row', email: 'nope' }] } });
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Directory', platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const provisioned = await user.json<{ summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Directory wave', csvData: people(3, `Wave${Date.now()}`), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    await until('the run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${provisioned.summary.provisioningJobId}`), (run) => run.status === 'completed');
    // What the page must show, computed the slow way from the projects the user created.
    const projects = await user.json<Project[]>('/api/projects');
    const accounts = projects.reduce((sum, p) => sum + p.accountCount, 0);
    expect(accounts).toBe(10);
    const figures = await user.json<Analytics>('/api/analytics');
    expect(figures).toMatchObject({ totalAccounts: 10, activeProjects: 2, completionRate: 90.9, averageProjectSize: 5, topPlatforms: [{ name: 'Custom API', count: 3, percentage: 100 }] });

    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInThroughApp(page, app, user);
    // The dashboard's change labels come from the same counters.
    expect(await card(page, 'Total Accounts', 'Total Accounts 10 10 this month')).toBe('Total Accounts 10 10 this month');
    expect(await card(page, 'Active Projects', 'Active Projects 2 2 new this month')).toBe('Active Projects 2 2 new this month');
    await page.goto(`${app}/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    expect(await card(page, 'Total Accounts', 'Total Accounts 10 10 this month (none last month)')).toBe('Total Accounts 10 10 this month (none last month)');
    expect(await card(page, 'Active Projects', 'Active Projects 2 2 new this month')).toBe('Active Projects 2 2 new this month');
    expect(await card(page, 'Completion Rate', 'Completion Rate 90.9% Success rate of rows submitted')).toBe('Completion Rate 90.9% Success rate of rows submitted');
    expect(await card(page, 'Avg Project Size', 'Avg Project Size 5 Accounts per project')).toBe('Avg Project Size 5 Accounts per project');
    const trends = page.getByRole('region', { name: 'Monthly Trends' });
    await trends.locator('.recharts-surface').first().waitFor();
    expect(await trends.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    const platforms = page.getByRole('region', { name: 'Top Integration Platforms' });
    await platforms.getByText('Custom API').waitFor();
    await platforms.getByText('3 accounts · 100%').waitFor();
    await page.getByRole('region', { name: 'Completion Rate' }).getByText('90.9%').waitFor();
    await page.getByRole('region', { name: 'Recent Activity' }).getByText('7 accounts created in "Spring hires"').waitFor();
    await page.screenshot({ path: screenshotPath('analytics-light'), fullPage: true });
    await settle(page);
    expect(describeViolations('analytics with data (light)', await axeViolations(page))).toEqual([]);

    await useTheme(page, 'dark');
    await page.getByRole('region', { name: 'Monthly Trends' }).locator('.recharts-surface').first().waitFor();
    await page.screenshot({ path: screenshotPath('analytics-dark'), fullPage: true });
    await settle(page);
    expect(describeViolations('analytics with data (dark)', await axeViolations(page))).toEqual([]);
    await useTheme(page, 'light');

    const phone = await (await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await page.context().storageState() })).newPage();
    await phone.goto(`${app}/analytics`);
    await phone.getByRole('region', { name: 'Monthly Trends' }).locator('.recharts-surface').first().waitFor();
    await phone.getByText('3 accounts · 100%').waitFor();
    // Nothing wider than the phone: no sideways scrolling.
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await phone.screenshot({ path: screenshotPath('analytics-phone'), fullPage: true });
    await phone.close();
    await page.context().close();
  }, 240_000);
});
