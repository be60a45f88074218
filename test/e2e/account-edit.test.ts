import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AccountView, Page as ListPage, Project } from '../../shared/schemas/project';
import type { ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle } from '../support/a11y';
import { screenshotPath } from '../support/browser';
import { closedAfterTests, onProjectPageInEachLook, signedInWithProvisionedProject } from '../support/provisioned-project';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

/** The SES emulator's mail viewer store: the addresses the mails went to. */
const mailsTo = async (address: string): Promise<number> => {
  const { emails } = (await (await fetch(`${stack.urls.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] };
  return emails.filter((mail) => mail.destination.to.includes(address)).length;
};

/**
 * Editing an account from the project page, as a person does it: a project of two accounts
 * provisioned to the Local SCIM directory, the row's menu, the Edit dialog (a bad e-mail refused
 * under its field, then saved), the row with the new values and the plain note that the platform
 * does not have them yet, and the History drawer; light and dark, desktop and 390 px, axe clean.
 */
describe('Edit an account and see its history, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;
  const tag = `${Date.now() % 100_000}`;
  const people = [
    { firstName: `Mara${tag}`, lastName: 'Quinn', email: `mara.${tag}@example.com` },
    { firstName: `Theo${tag}`, lastName: 'Park', email: `theo.${tag}@example.com` },
  ];

  beforeAll(async () => {
    ({ browser, page, user, project } = await signedInWithProvisionedProject({ firstName: 'Edit', lastName: 'Tester' }, `Edits ${tag}`, people));
  });
  closedAfterTests('account-edit', () => ({ browser, page }));

  const accountsTable = () => page.getByRole('table', { name: 'Accounts of this project' });
  /** The row menu's item, chosen once the menu has opened (its opening animation ended). */
  const choose = async (name: string, item: 'Edit' | 'History') => {
    await page.getByRole('button', { name: `Actions for ${name}` }).click();
    const entry = page.getByRole('menuitem', { name: item });
    await entry.waitFor();
    await settle(page);
    await entry.click();
  };

  it('edits an account from the project page: a bad e-mail is refused under its field, the new values show, marked as not yet on the platform', async () => {
    await page.goto(`${app}/projects/${project.id}`);
    await accountsTable().getByText(people[0]!.email).waitFor();
    await choose(`${people[0]!.firstName} Quinn`, 'Edit');
    const dialog = page.getByRole('dialog', { name: 'Edit account' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('First name').inputValue()).toBe(people[0]!.firstName);

    await dialog.getByLabel('Email').fill('not-an-email');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Valid email is required').waitFor();
    const violations = await axeViolations(page);
    expect(describeViolations('edit dialog (light)', violations)).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-edit-dialog-light') });

    await dialog.getByLabel('Last name').fill('Quinn-Ortega');
    await dialog.getByLabel('Email').fill(`mara.q.${tag}@example.com`);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    // On a platform: 'Update on <platform>' is offered at once, and nothing is sent unless chosen.
    const offer = page.getByRole('dialog', { name: 'Account saved: update it on Local SCIM directory?' });
    await offer.getByText('Nothing is updated unless you choose to.').waitFor();
    await offer.getByRole('button', { name: 'Not now' }).click();
    await offer.waitFor({ state: 'hidden' });

    const row = accountsTable().getByRole('row').filter({ hasText: `mara.q.${tag}@example.com` });
    await row.getByText(`${people[0]!.firstName} Quinn-Ortega`).waitFor();
    // Under the status (desktop) or under the name (phone): the one on screen.
    await row.getByText('Changed here: not yet updated on Local SCIM directory').locator('visible=true').waitFor();
    const stored = (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts`)).items[0]!;
    expect(stored).toMatchObject({ lastName: 'Quinn-Ortega', email: `mara.q.${tag}@example.com`, platformChange: { platform: 'Local SCIM directory' } });
  });

  it('shows the history in a drawer: edited (old -> new), synced, created, newest first', async () => {
    await choose(`${people[0]!.firstName} Quinn-Ortega`, 'History');
    const drawer = page.getByRole('dialog', { name: `History of ${people[0]!.firstName} Quinn-Ortega` });
    const list = drawer.getByRole('list', { name: /newest first/ });
    await list.getByText('Edited').waitFor();
    const titles = await list.locator(':scope > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-kind')));
    expect(titles).toEqual(['edited', 'provisioned', 'created']);
    await drawer.getByText('Synced on Local SCIM directory').waitFor();
    await drawer.getByText(`mara.q.${tag}@example.com`).waitFor();
    expect(describeViolations('history drawer (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-history-drawer-light') });
    await drawer.getByRole('button', { name: 'Close the history' }).click();
    await drawer.waitFor({ state: 'hidden' });
  });

  it('after an e-mail change on an account that was e-mailed, asks before sending the credentials to the new address, then sends them with the existing send', async () => {
    const theo = (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts`)).items[1]!;
    await user.json(`/api/projects/${project.id}/send-credentials`, { body: { scope: 'account', accountId: theo.id } });
    await until('the first e-mail', () => mailsTo(people[1]!.email), (n) => n === 1);
    await until(
      "Theo's e-mail status",
      async () => (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts`)).items[1]!.emailStatus,
      (status) => status === 'sent' || status === 'delivered',
    );
    await page.goto(`${app}/projects/${project.id}`);
    await choose(`${people[1]!.firstName} Park`, 'Edit');
    const dialog = page.getByRole('dialog', { name: 'Edit account' });
    const newAddress = `theo.new.${tag}@example.com`;
    await dialog.getByLabel('Email').fill(newAddress);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    // Theo is on the platform too: the same step offers the update there and asks about the credentials.
    const ask = page.getByRole('dialog', { name: 'Account saved: update it on Local SCIM directory?' });
    await ask.getByRole('button', { name: 'Update on Local SCIM directory' }).waitFor();
    await ask.getByText('Nothing is sent or updated unless you choose to.').waitFor();
    await ask.getByText(`The credentials were e-mailed to ${people[1]!.email}.`, { exact: false }).waitFor();
    expect(describeViolations('send to the new address (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-edit-send-new-address-light') });
    // Behind the question (the page is hidden from the accessibility tree while it is open): the
    // row's e-mail status is that of the e-mail to the old address, and says so.
    const previousAddress = page.getByText('To the previous address');
    await previousAddress.waitFor();
    expect(await mailsTo(newAddress)).toBe(0);
    await ask.getByRole('button', { name: 'Send credentials' }).click();

    const resend = page.getByRole('dialog', { name: 'Resend credentials' });
    await resend.getByText(`(${newAddress})`, { exact: false }).waitFor();
    // The edit dialog, unmounting, returns focus to the row's menu button, sometimes only after the
    // send dialog is open (on a busy machine): focus moved there must not close the send dialog.
    await page.evaluate((label) => document.querySelector<HTMLElement>(`[aria-label="${label}"]`)?.focus(), `Actions for ${people[1]!.firstName} Park`);
    await settle(page);
    await resend.getByText(`(${newAddress})`, { exact: false }).waitFor();
    await resend.getByRole('button', { name: 'Send 1 e-mail' }).click();
    await resend.waitFor({ state: 'hidden' });
    await until('the e-mail to the new address', () => mailsTo(newAddress), (n) => n === 1);
    // Sent again since the change: the status is the new address's.
    await previousAddress.waitFor({ state: 'detached' });

    // The Account Database finds the account by its new address, with the same row menu.
    await page.goto(`${app}/accounts`);
    await page.getByLabel('Search accounts').fill(newAddress);
    await page.getByRole('table').getByRole('row').filter({ hasText: newAddress }).waitFor();
    await choose(`${people[1]!.firstName} Park`, 'History');
    const drawer = page.getByRole('dialog', { name: `History of ${people[1]!.firstName} Park` });
    await drawer.getByText('Credentials e-mailed').waitFor();
    await settle(page);
    const kinds = await drawer.getByRole('list', { name: /newest first/ }).locator(':scope > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-kind')));
    expect(kinds.slice(-3)).toEqual(['edited', 'provisioned', 'created']);
    expect(kinds).toContain('emailed');
    await page.screenshot({ path: screenshotPath('account-database-history-light') });
    await drawer.getByRole('button', { name: 'Close the history' }).click();
    await drawer.waitFor({ state: 'hidden' });
  });

  it('dark, and at 390 px: the row actions stay in reach; the dialog and the drawer read and pass axe', async () => {
    await onProjectPageInEachLook(page, project.id, async (theme, width) => {
      const name = `${people[1]!.firstName} Park`;
      const trigger = page.getByRole('button', { name: `Actions for ${name}` });
      await trigger.waitFor();
      // Kept at the row's end while the table scrolls: on screen without scrolling sideways.
      const box = (await trigger.boundingBox())!;
      expect(box.x + box.width, `${theme} ${width}`).toBeLessThanOrEqual(width);
      await trigger.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`account-rows-${theme}-${width}`) });

      await choose(name, 'Edit');
      const dialog = page.getByRole('dialog', { name: 'Edit account' });
      await dialog.getByLabel('First name').fill('');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByText('First name is required').waitFor();
      expect(describeViolations(`edit dialog (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-edit-dialog-${theme}-${width}`) });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });

      await choose(name, 'History');
      const drawer = page.getByRole('dialog', { name: `History of ${name}` });
      await drawer.getByText('Synced on Local SCIM directory').waitFor();
      expect(describeViolations(`history drawer (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-history-drawer-${theme}-${width}`) });
      await drawer.getByRole('button', { name: 'Close the history' }).click();
      await drawer.waitFor({ state: 'hidden' });
    });
  });
});
