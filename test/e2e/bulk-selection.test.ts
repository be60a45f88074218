import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page as ListPage, Project } from '../../shared/schemas/project';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { expectToastClearOf, shownToasts } from '../support/screen-layout';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

interface StoredMail {
  destination: { to: string[] };
}
/** How many e-mails each address got, from the local mail viewer (what account holders would receive). */
async function mailedTo(addresses: string[]): Promise<Record<string, number>> {
  const { emails } = (await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: StoredMail[] };
  return Object.fromEntries(addresses.map((address) => [address, emails.filter((m) => m.destination.to.includes(address)).length]));
}

/**
 * The project page's bulk bar over a selection, as a person uses it: a project of five accounts
 * provisioned to the Local SCIM directory, two of them Sync Failed (their user names are held by
 * someone else there). Ticked rows -> Send credentials: the mail viewer receives exactly those;
 * Select -> Sync failed -> Reset password, then Deactivate: exactly those two change. Light and
 * dark, desktop and 390 px (the bar does not overflow), axe clean; the toast never covers the
 * dialog's Close. And an edit of a synced account offers 'Update on <platform>' right away.
 */
describe('the bulk bar over a selection, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;
  const tag = `${Date.now() % 100_000}`;
  const people = ['Ana', 'Bo', 'Cy', 'Di', 'Ed'].map((first) => ({ firstName: `${first}${tag}`, lastName: 'Bulkbar', email: `${first.toLowerCase()}.bulk${tag}@example.com` }));
  const nameOf = (i: number) => `${people[i]!.firstName} Bulkbar`;
  const failing = [1, 3];
  const emails = people.map((p) => p.email);

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Bulkbar', lastName: 'Tester' });
    await upgradeToPro(user);
    // Someone else holds two of the user names on the directory: their sync fails.
    for (const i of failing) {
      const taken = await fetch(`${stack.scim.url}/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.scim.token}`, 'content-type': 'application/scim+json' },
        body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: baseUsername(people[i]!.firstName, people[i]!.lastName, usernameYear(new Date())), emails: [{ value: `someone.else.${people[i]!.email}`, primary: true }], active: true }),
      });
      expect(taken.status).toBe(201);
    }
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Local SCIM directory', platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: `Bulk bar ${tag}`, csvData: people, apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    project = created.project;
    const run = await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (r) => r.status === 'completed');
    expect(run).toMatchObject({ synced: 3, failed: 2 });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-bulk-selection-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  const accountsTable = () => page.getByRole('table', { name: 'Accounts of this project' });
  const bar = () => page.getByRole('region', { name: 'Selected accounts' });
  const accounts = async () => (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts?showPasswords=true`)).items;
  const selectFailed = async () => {
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    const entry = page.getByRole('menuitem', { name: /Sync failed/ });
    await entry.waitFor();
    await settle(page);
    await entry.click();
    await bar().getByText('2 accounts whose sync failed selected').waitFor();
  };

  it('sends credentials to the ticked accounts: the mail viewer receives exactly those', async () => {
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[0]!.email).waitFor();
    for (const i of [0, 2]) await page.getByRole('checkbox', { name: `Select ${nameOf(i)}` }).check({ force: true });
    await bar().getByText('2 accounts selected').waitFor();
    expect(describeViolations('bulk bar with Send and Reset (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('bulk-selection-bar-light-1280') });
    await bar().getByRole('button', { name: 'Send credentials' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Send credentials to 2 accounts?' });
    await dialog.getByText('The account holders of 2 accounts will be e-mailed their credentials.').waitFor();
    await settle(page);
    expect(describeViolations('send confirmation (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('bulk-selection-send-confirm-light-1280') });
    await dialog.getByRole('button', { name: 'Send 2 e-mails' }).click();
    const progress = page.getByRole('alertdialog', { name: 'Send credentials to 2 accounts: finished' });
    await progress.getByText('2 e-mailed, 0 not e-mailed, 0 to go.').waitFor();
    const close = progress.getByRole('button', { name: 'Close', exact: true }).first();
    if (await shownToasts(page).count()) await expectToastClearOf(page, { 'the Close button': close });
    await page.screenshot({ path: screenshotPath('bulk-selection-send-done-light-1280') });
    await close.click();
    await progress.waitFor({ state: 'hidden' });
    const got = await until('the two e-mails', () => mailedTo(emails), (counts) => counts[people[0]!.email] === 1 && counts[people[2]!.email] === 1);
    expect(got).toEqual(Object.fromEntries(emails.map((e, i) => [e, i === 0 || i === 2 ? 1 : 0])));
  });

  it("filter 'Sync failed' -> Reset password: exactly those two get new passwords", async () => {
    const before = await accounts();
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[0]!.email).waitFor();
    await selectFailed();
    await page.screenshot({ path: screenshotPath('bulk-selection-failed-selected-light-1280') });
    await bar().getByRole('button', { name: 'Reset password' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reset the passwords of 2 accounts?' });
    await dialog.getByText('the 2 accounts whose platform sync failed will get a new generated password', { exact: false }).waitFor();
    await settle(page);
    expect(describeViolations('reset confirmation (light)', await axeViolations(page))).toEqual([]);
    await dialog.getByRole('button', { name: 'Reset 2 passwords' }).click();
    const progress = page.getByRole('alertdialog', { name: 'Reset the passwords of 2 accounts: finished' });
    await progress.getByText('2 reset, 0 kept their password, 0 to go.').waitFor();
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    await progress.waitFor({ state: 'hidden' });
    const after = await accounts();
    for (const account of after) {
      const changed = account.password !== before.find((b) => b.id === account.id)!.password;
      expect(changed, account.email).toBe(failing.some((i) => people[i]!.email === account.email));
    }
  });

  it("filter 'Sync failed' -> Deactivate: exactly those two; Select -> Deactivated -> Reactivate: those two again", async () => {
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[0]!.email).waitFor();
    await selectFailed();
    await bar().getByRole('button', { name: 'Deactivate' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Deactivate 2 accounts?' });
    await dialog.getByText('the 2 accounts whose platform sync failed will be deactivated', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Deactivate 2 accounts' }).click();
    const progress = page.getByRole('alertdialog', { name: 'Deactivate 2 accounts: finished' });
    await progress.getByText('2 deactivated, 0 not changed, 0 to go.').waitFor();
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    expect((await accounts()).filter((a) => !a.isActive).map((a) => a.email).sort()).toEqual(failing.map((i) => people[i]!.email).sort());

    // The page's own view as the project's set: Select -> Deactivated (counted by the server) -> Reactivate.
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    const entry = page.getByRole('menuitem', { name: /Deactivated\s*2/ });
    await entry.waitFor();
    await settle(page);
    await entry.click();
    await bar().getByText('All 2 deactivated accounts selected').waitFor();
    await bar().getByRole('button', { name: 'Reactivate' }).click();
    const again = page.getByRole('alertdialog', { name: 'Reactivate 2 accounts?' });
    await again.getByText('all 2 deactivated accounts of this project will be active again.', { exact: false }).waitFor();
    await again.getByRole('button', { name: 'Reactivate 2 accounts' }).click();
    const done = page.getByRole('alertdialog', { name: 'Reactivate 2 accounts: finished' });
    await done.getByText('2 reactivated, 0 not changed, 0 to go.').waitFor();
    await done.getByRole('button', { name: 'Close', exact: true }).first().click();
    expect((await accounts()).every((a) => a.isActive)).toBe(true);
  });

  it('dark, and at 390 px: the bulk bar does not overflow, the confirmation stays usable, axe clean', async () => {
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
      ['light', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app}/projects/${project.id}`);
      await useTheme(page, theme);
      await page.getByRole('checkbox', { name: `Select ${nameOf(0)}` }).check({ force: true });
      await bar().getByText('1 account selected').waitFor();
      for (const name of ['Send credentials', 'Reset password', 'Deactivate', 'Reactivate', 'Delete', 'Clear']) {
        const box = (await bar().getByRole('button', { name }).boundingBox())!;
        expect(box.x + box.width, `${name}: ${theme} ${width}`).toBeLessThanOrEqual(width);
      }
      const barBox = (await bar().boundingBox())!;
      expect(barBox.x + barBox.width, `the bar: ${theme} ${width}`).toBeLessThanOrEqual(width);
      expect(describeViolations(`bulk bar (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`bulk-selection-bar-${theme}-${width}`) });
      await bar().getByRole('button', { name: 'Reset password' }).click();
      const dialog = page.getByRole('alertdialog', { name: `Reset the password of ${nameOf(0)}?` });
      await dialog.getByRole('button', { name: 'Reset 1 password' }).waitFor();
      await settle(page);
      expect(describeViolations(`reset confirmation (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`bulk-selection-reset-confirm-${theme}-${width}`) });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
  });

  it("an edit of a synced account offers 'Update on <platform>' right away, which updates it there", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[2]!.email).waitFor();
    await page.getByRole('button', { name: `Actions for ${nameOf(2)}` }).click();
    const entry = page.getByRole('menuitem', { name: 'Edit' });
    await entry.waitFor();
    await settle(page);
    await entry.click();
    const edit = page.getByRole('dialog', { name: 'Edit account' });
    await edit.getByLabel('Last name').fill('Renamed');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const offer = page.getByRole('dialog', { name: 'Account saved: update it on Local SCIM directory?' });
    await offer.getByText('Local SCIM directory still has the previous values', { exact: false }).waitFor();
    await settle(page);
    expect(describeViolations('update offer after an edit (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('bulk-selection-edit-update-offer-light-1280') });
    await offer.getByRole('button', { name: 'Update on Local SCIM directory' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Update ${people[2]!.firstName} Renamed?` });
    await dialog.getByRole('button', { name: 'Update', exact: true }).click();
    const progress = page.getByRole('alertdialog', { name: 'Update 1 account: finished' });
    await progress.getByText('1 updated (1 on Local SCIM directory too), 0 not changed, 0 to go.').waitFor();
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    const row = accountsTable().getByRole('row').filter({ hasText: people[2]!.email });
    await row.getByText(`${people[2]!.firstName} Renamed`).locator('visible=true').first().waitFor();
    expect((await accounts()).find((a) => a.email === people[2]!.email)?.platformChange).toBeUndefined();
  });
});
