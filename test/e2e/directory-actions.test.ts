import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { screenshotPath } from '../support/browser';
import { closedAfterTests, signedInWithProvisionedProject, type Person } from '../support/provisioned-project';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

/** Someone else holding the person's user name on the stack's Local SCIM directory (their sync fails); answers the holder's id. */
async function holdUsername(person: Person): Promise<string> {
  const response = await fetch(`${stack.scim.url}/Users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.scim.token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: baseUsername(person.firstName, person.lastName, usernameYear(new Date())), emails: [{ value: `someone.else.${person.email}`, primary: true }], active: true }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Acting on the Account Database, as a person does: the accounts that failed to sync, in two
 * projects, filtered to, all of them selected ("all N matching"), and retried from there; the
 * confirmation names the count, the progress ends with each account synced. Light and dark,
 * 1280 and 390 px, axe clean.
 */
describe('Account Database: select and act, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  const tag = `${Date.now() % 100_000}`.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!);
  const last = `Act${tag}`;
  const first: Person[] = ['Ada', 'Ben', 'Cleo'].map((name) => ({ firstName: name, lastName: last, email: `${name.toLowerCase()}.${tag}@example.com` }));
  const second: Person[] = ['Dora', 'Emil'].map((name) => ({ firstName: name, lastName: last, email: `${name.toLowerCase()}.${tag}@example.com` }));
  const holders: string[] = [];

  beforeAll(async () => {
    // Ben (first project) and Emil (second) fail to sync: their user names are held by someone else.
    holders.push(await holdUsername(first[1]!), await holdUsername(second[1]!));
    ({ browser, page, user } = await signedInWithProvisionedProject({ firstName: 'Directory', lastName: 'Actor' }, `Act one ${tag}`, first));
    const integration = (await user.json<Integration[]>('/api/integrations'))[0]!;
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: `Act two ${tag}`, csvData: second, apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    await until('the second run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (run) => run.status === 'completed');
  });
  closedAfterTests('directory-actions', () => ({ browser, page }));

  const rows = () => page.getByRole('table', { name: /^Accounts/ }).locator('tbody tr');
  const failedView = async () => {
    await page.goto(`${app}/accounts`);
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill(last.toLowerCase());
    await page.getByRole('button', { name: /^Filters/ }).click();
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Platform status').selectOption({ label: 'Sync Failed' });
    await expect.poll(async () => rows().count()).toBe(2);
  };

  it('looks right in light and dark, at 1280 and 390 px: the bulk bar and the confirmation, no sideways scrolling, no axe violation', async () => {
    for (const [theme, width] of [
      ['light', 1280],
      ['dark', 1280],
      ['light', 390],
      ['dark', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app}/accounts`);
      await useTheme(page, theme);
      await failedView();
      await page.getByRole('checkbox', { name: `Select Ben ${last}` }).check({ force: true });
      const bar = page.getByRole('region', { name: 'Selected accounts' });
      await bar.getByText('1 account selected').waitFor();
      await bar.getByRole('button', { name: /^Select all/ }).click();
      await bar.getByText(/^All (2 matching|matching \(2\+\)) selected$/).waitFor();
      await settle(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${theme} ${width}`).toBeLessThanOrEqual(0);
      expect(describeViolations(`account database selection (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`directory-actions-bar-${theme}-${width}`), fullPage: true });
      await bar.getByRole('button', { name: 'Deactivate' }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByRole('heading', { name: /^Deactivate .*2.* accounts matching the filters\?$/ }).waitFor();
      await settle(page);
      expect(describeViolations(`directory action confirmation (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`directory-actions-confirm-${theme}-${width}`) });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
  });

  it('filters to the accounts that failed to sync in two projects, selects all of them and retries them from the Account Database', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');
    await failedView();
    expect((await rows().allInnerTexts()).join('\n')).toMatch(/Emil[\s\S]*Ben|Ben[\s\S]*Emil/);
    // The names are free again: the retry can create them.
    for (const id of holders) expect((await fetch(`${stack.scim.url}/Users/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${stack.scim.token}` } })).status).toBe(204);

    await page.getByRole('checkbox', { name: 'Select the accounts shown' }).check({ force: true });
    const bar = page.getByRole('region', { name: 'Selected accounts' });
    await bar.getByText('2 accounts selected').waitFor();
    await bar.getByRole('button', { name: 'Retry sync' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Retry the sync of 2 selected accounts?' }).waitFor();
    await dialog.getByRole('button', { name: 'Retry sync 2 accounts' }).click();
    await dialog.getByRole('heading', { name: 'Retry the sync of 2 accounts: finished' }).waitFor();
    await dialog.getByText('2 synced, 0 failed again, 0 to go (2 projects).').waitFor();
    await settle(page);
    expect(describeViolations('directory action finished', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('directory-actions-retried') });
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    // Nothing failed any more: the filtered view is empty, and every account of both projects is Synced.
    await page.getByText('No accounts found').waitFor();
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Platform status').selectOption({ label: 'Synced' });
    await expect.poll(async () => rows().count()).toBe(5);
  });

  it('a filter chosen while the term is still being typed applies with the term: one view, never the filter over the old term', async () => {
    // The search waits 250 ms after the last key; here that wait never ends on its own (the page's
    // clock paused), so only the filter's change can apply the term.
    await page.clock.install();
    await page.goto(`${app}/accounts`);
    await expect.poll(async () => rows().count()).toBeGreaterThan(0);
    await page.clock.pauseAt(Date.now() + 1_000);
    const asked: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/accounts') asked.push(url);
    });
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill(last.toLowerCase());
    await page.getByRole('button', { name: /^Filters/ }).click();
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Status', { exact: true }).selectOption({ label: 'Active' });
    await expect.poll(() => asked.length).toBeGreaterThan(0);
    expect(asked.map((url) => [url.searchParams.get('q'), url.searchParams.get('state')])).toEqual([[last.toLowerCase(), 'active']]);
    await expect.poll(async () => rows().count()).toBe(5);
    await page.clock.resume();
  });
});
