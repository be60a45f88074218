import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AccountView, Page as ListPage, Project } from '../../shared/schemas/project';
import type { ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { screenshotPath } from '../support/browser';
import { signedInWithProvisionedProject } from '../support/provisioned-project';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

/** The user's active flag on the stack's Local SCIM directory (looked up by userName). */
async function activeOnScim(userName: string): Promise<boolean | undefined> {
  const answer = await fetch(`${stack.scim.url}/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
  const body = (await answer.json()) as { Resources?: { active?: boolean }[] };
  return body.Resources?.[0]?.active;
}

/**
 * Deactivate, Reactivate and Delete from the project page, as a person does it: a project of four
 * accounts provisioned to the Local SCIM directory; the row menu's Deactivate (the confirmation
 * names the account and what the directory does), 'Deactivated' in the row and on the directory,
 * Reactivate; then rows ticked and deleted from the bulk bar. Light and dark, desktop and 390 px, axe clean.
 */
describe('Deactivate, reactivate and delete accounts, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;
  const tag = `${Date.now() % 100_000}`;
  const people = ['Ada', 'Ben', 'Cleo', 'Dev'].map((first) => ({ firstName: `${first}${tag}`, lastName: 'Lifecycle', email: `${first.toLowerCase()}.${tag}@example.com` }));
  const nameOf = (i: number) => `${people[i]!.firstName} Lifecycle`;

  beforeAll(async () => {
    ({ browser, page, user, project } = await signedInWithProvisionedProject({ firstName: 'Actions', lastName: 'Tester' }, `Actions ${tag}`, people));
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-account-actions-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  const accountsTable = () => page.getByRole('table', { name: 'Accounts of this project' });
  const accounts = async () => (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts`)).items;
  const choose = async (name: string, item: 'Deactivate' | 'Reactivate' | 'Delete') => {
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    const entry = page.getByRole('menuitem', { name: item });
    await entry.waitFor();
    await settle(page);
    await entry.click();
  };

  it('deactivates an account from its row menu on the directory and here, then reactivates it', async () => {
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[0]!.email).waitFor();
    const ada = (await accounts()).find((a) => a.email === people[0]!.email)!;
    await choose(nameOf(0), 'Deactivate');
    const dialog = page.getByRole('alertdialog', { name: `Deactivate ${nameOf(0)}?` });
    await dialog.getByText('On Local SCIM directory first: The SCIM provider sets the user inactive or active again (PATCH active).').waitFor();
    await dialog.getByText(ada.username, { exact: false }).first().waitFor();
    expect(describeViolations('deactivate confirmation (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-deactivate-confirm-light') });
    await dialog.getByRole('button', { name: 'Deactivate', exact: true }).click();
    const progress = page.getByRole('alertdialog', { name: 'Deactivate 1 account: finished' });
    await progress.getByText('1 deactivated (1 on Local SCIM directory too), 0 not changed, 0 to go.').waitFor();
    await settle(page);
    await page.screenshot({ path: screenshotPath('account-deactivate-done-light') });
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    await progress.waitFor({ state: 'hidden' });

    const row = accountsTable().getByRole('row').filter({ hasText: people[0]!.email });
    await row.getByText('Deactivated').locator('visible=true').waitFor();
    expect(await activeOnScim(ada.username)).toBe(false);
    // The visual filter: only the deactivated one.
    await page.getByRole('button', { name: 'Deactivated (1)' }).click();
    await until('the filtered rows', () => accountsTable().getByRole('row').count(), (n) => n === 2);
    await page.getByRole('button', { name: 'All', exact: true }).click();

    await choose(nameOf(0), 'Reactivate');
    const again = page.getByRole('alertdialog', { name: `Reactivate ${nameOf(0)}?` });
    await again.getByRole('button', { name: 'Reactivate', exact: true }).click();
    await page.getByRole('alertdialog', { name: 'Reactivate 1 account: finished' }).getByText('1 reactivated', { exact: false }).waitFor();
    await page.getByRole('alertdialog', { name: 'Reactivate 1 account: finished' }).getByRole('button', { name: 'Close', exact: true }).first().click();
    await row.getByText('Deactivated').locator('visible=true').waitFor({ state: 'detached' });
    expect(await activeOnScim(ada.username)).toBe(true);
  });

  it('deletes ticked accounts from the bulk bar: gone here and on the directory', async () => {
    const before = await accounts();
    const doomed = before.filter((a) => a.email === people[2]!.email || a.email === people[3]!.email);
    for (const i of [2, 3]) await page.getByRole('checkbox', { name: `Select ${nameOf(i)}` }).check({ force: true });
    const bar = page.getByRole('region', { name: 'Selected accounts' });
    await bar.getByText('2 accounts selected').waitFor();
    expect(describeViolations('bulk bar (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-bulk-bar-light') });
    await bar.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete 2 accounts?' });
    await dialog.getByText('On Local SCIM directory first: The SCIM provider deletes the user (DELETE).').waitFor();
    await page.screenshot({ path: screenshotPath('account-bulk-delete-confirm-light') });
    await dialog.getByRole('button', { name: 'Delete 2 accounts' }).click();
    const progress = page.getByRole('alertdialog', { name: 'Delete 2 accounts: finished' });
    await progress.getByText('2 deleted (2 on Local SCIM directory too), 0 not changed, 0 to go.').waitFor();
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    await accountsTable().getByText(people[2]!.email).waitFor({ state: 'detached' });
    expect((await accounts()).map((a) => a.email).sort()).toEqual([people[0]!.email, people[1]!.email].sort());
    for (const account of doomed) expect(await activeOnScim(account.username)).toBeUndefined();
  });

  it('dark, and at 390 px: the bulk bar and the confirmation stay usable and pass axe', async () => {
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
      ['light', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app}/projects/${project.id}`);
      await useTheme(page, theme);
      await page.getByRole('checkbox', { name: `Select ${nameOf(1)}` }).check({ force: true });
      const bar = page.getByRole('region', { name: 'Selected accounts' });
      const deactivate = bar.getByRole('button', { name: 'Deactivate' });
      await deactivate.waitFor();
      const box = (await deactivate.boundingBox())!;
      expect(box.x + box.width, `${theme} ${width}`).toBeLessThanOrEqual(width);
      expect(describeViolations(`bulk bar (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-bulk-bar-${theme}-${width}`) });
      await deactivate.click();
      const dialog = page.getByRole('alertdialog', { name: `Deactivate ${nameOf(1)}?` });
      await dialog.getByText('On Local SCIM directory first', { exact: false }).waitFor();
      await settle(page);
      expect(describeViolations(`deactivate confirmation (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-deactivate-confirm-${theme}-${width}`) });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
  });
  it('sends an edit made here to the directory from the row menu (Update on <platform>), and the "not yet updated" mark goes', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');
    const ada = (await accounts()).find((a) => a.email === people[0]!.email)!;
    const edited = await user.call(`/api/accounts/${ada.id}`, { method: 'PUT', body: { firstName: ada.firstName, lastName: 'Renamed', email: ada.email } });
    expect(edited.status).toBe(200);
    await page.goto(`${app}/projects/${project.id}`);
    const row = accountsTable().getByRole('row').filter({ hasText: people[0]!.email });
    await row.getByText('Changed here: not yet updated on Local SCIM directory').locator('visible=true').waitFor();
    await page.getByRole('button', { name: `Actions for ${ada.firstName} Renamed` }).click();
    const entry = page.getByRole('menuitem', { name: 'Update on Local SCIM directory' });
    await entry.waitFor();
    await settle(page);
    await entry.click();
    const dialog = page.getByRole('alertdialog', { name: `Update ${ada.firstName} Renamed?` });
    await dialog.getByText('On Local SCIM directory first: The SCIM provider replaces the name, display name and e-mail (PATCH, RFC 7644 3.5.2).').waitFor();
    expect(describeViolations('update confirmation (light)', await axeViolations(page))).toEqual([]);
    await dialog.getByRole('button', { name: 'Update', exact: true }).click();
    const progress = page.getByRole('alertdialog', { name: 'Update 1 account: finished' });
    await progress.getByText('1 updated (1 on Local SCIM directory too), 0 not changed, 0 to go.').waitFor();
    await page.screenshot({ path: screenshotPath('account-update-done-light') });
    await progress.getByRole('button', { name: 'Close', exact: true }).first().click();
    await row.getByText('Changed here: not yet updated on Local SCIM directory').locator('visible=true').waitFor({ state: 'detached' });
  });
});
