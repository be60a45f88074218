import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AccountView, Page as ListPage, Project } from '../../shared/schemas/project';
import { people, type ApiUser } from '../support/api';
import { axeViolations, useTheme } from '../support/a11y';
import { screenshotPath } from '../support/browser';
import { signedInWithProvisionedProject } from '../support/provisioned-project';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * Reset Passwords from the Security page, as a person does it: a project of three accounts on the
 * Local SCIM directory, the quick action, the confirmation that says what will happen, the
 * progress and the result counts; light and dark.
 */
describe('Reset Passwords in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;
  const tag = `${Date.now() % 100_000}`;

  beforeAll(async () => {
    ({ browser, page, user, project } = await signedInWithProvisionedProject({ firstName: 'Reset', lastName: 'Tester' }, `Onboarding ${tag}`, people(3, `Reset${tag}`)));
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-reset-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  const passwords = async () => (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts?limit=10&showPasswords=true`)).items.map((a) => a.password);

  it('asks first, saying what will happen, then shows the progress and the counts; the passwords are new', async () => {
    const before = await passwords();
    await page.goto(`${app}/security`);
    await page.getByRole('button', { name: 'Reset Passwords' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reset Passwords' });
    await dialog.waitFor();
    await expect.poll(() => dialog.getByLabel('Project').inputValue()).toBe(project.id);
    await dialog.getByText('Every one of the 3 accounts in').waitFor();
    await dialog.getByText('The 3 accounts provisioned to a platform get the new password there too.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('reset-passwords-confirm-light') });

    await dialog.getByRole('button', { name: 'Reset passwords' }).click();
    await dialog.getByText('Completed').waitFor();
    await dialog.getByRole('status').filter({ hasText: '3 reset, 0 failed, 0 pending of 3' }).waitFor();
    const results = dialog.getByLabel('Reset results');
    await expect.poll(() => results.innerText()).toContain('Updated on Local SCIM directory');
    expect(await results.innerText()).toMatch(/New passwords\s*3/);
    await dialog.getByRole('link', { name: 'the project' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('reset-passwords-done-light') });

    const after = await passwords();
    after.forEach((password, i) => expect(password).not.toBe(before[i]));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('dark: the confirmation and the result read', async () => {
    await useTheme(page, 'dark');
    await page.goto(`${app}/security`);
    await page.getByRole('button', { name: 'Reset Passwords' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Reset Passwords' });
    await dialog.getByText('Every one of the 3 accounts in').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('reset-passwords-confirm-dark') });
    await dialog.getByRole('button', { name: 'Reset passwords' }).click();
    await dialog.getByText('Completed').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('reset-passwords-done-dark') });
  });
});
