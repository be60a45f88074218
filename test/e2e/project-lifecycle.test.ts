/// <reference lib="dom" />
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Project } from '../../shared/schemas/project';
import { people, type ApiUser } from '../support/api';
import { screenshotPath, userInChromium } from '../support/browser';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';

const app = inject('stack').urls.app;
const themes = ['light', 'dark'] as const;

/**
 * A project after its creation, in Chromium (issue 27, part 3): Add people by typing them in and
 * by a CSV file, Edit, Complete (the badge) and Reopen; the dialogs axe-clean in both themes;
 * screenshots light and dark, desktop and 390 px wide.
 */
describe('a project after its creation (Chromium)', () => {
  const session = userInChromium('project-lifecycle', { firstName: 'Pat', lastName: 'Lifecycle' });
  let page: Page;
  let user: ApiUser;
  let project: Project;

  beforeAll(async () => {
    ({ page, user } = session);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Team', csvData: people(3, 'Team') } })).project;
  });

  const openProject = async () => {
    await page.goto(`${app}/projects/${project.id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  };
  const accountsBadge = () => page.getByRole('heading', { name: 'Accounts', level: 2 }).locator('xpath=..').getByText(/^\d+$/);
  /** Axe and a screenshot of a dialog in each theme: the theme's reload closes it, so `open` opens it (and fills it) again. */
  const a11y = async (open: () => Promise<Locator>, name: string) => {
    const found: string[] = [];
    for (const theme of themes) {
      await useTheme(page, theme);
      await open();
      found.push(...describeViolations(`${name} (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`project-${name}-${theme}`) });
      // The same open dialog 390 px wide (a phone), then back.
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`project-${name}-390-${theme}`) });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    return found;
  };

  it('adds people typed in: checked and previewed, then after the last row', async () => {
    await openProject();
    const dialog = page.getByRole('dialog', { name: 'Add people to Team' });
    const openAndType = async () => {
      await page.getByRole('button', { name: 'Add people' }).click();
      await dialog.getByLabel('First name, person 1').fill('Ada');
      await dialog.getByLabel('Last name, person 1').fill('Typed');
      await dialog.getByLabel('Email, person 1').fill('ada.typed@example.com');
      await dialog.getByRole('button', { name: 'Add another person' }).click();
      await dialog.getByLabel('First name, person 2').fill('Bo');
      await dialog.getByLabel('Last name, person 2').fill('Typed');
      await dialog.getByLabel('Email, person 2').fill('not-an-address');
      await dialog.getByRole('button', { name: 'Check these people' }).click();
      // The same checks and preview as a file: one to add, one refused with its reason.
      await dialog.getByText('1 valid', { exact: true }).waitFor();
      await dialog.getByText('1 invalid', { exact: true }).waitFor();
      return dialog;
    };
    expect(await a11y(openAndType, 'add-people-dialog')).toEqual([]);
    // The dialog is open (dark theme) with the typed people checked: add the valid one.
    await dialog.getByRole('button', { name: 'Add people' }).click();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'ada.typed@example.com' }).waitFor();
    await expect.poll(() => accountsBadge().innerText()).toBe('4');
  });

  it('adds people from a CSV file', async () => {
    await openProject();
    await page.getByRole('button', { name: 'Add people' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add people to Team' });
    const csv = 'First Name,Last Name,Email\r\nCarl,File,carl.file@example.com\r\nDee,File,dee.file@example.com\r\n';
    await dialog.getByLabel('Upload CSV').setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog.getByText('2 valid', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Add people' }).click();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'dee.file@example.com' }).waitFor();
    await expect.poll(() => accountsBadge().innerText()).toBe('6');
    // The newest last: the file's order after the earlier people.
    const emails = await page.getByRole('cell', { name: /@example\.com$/ }).allInnerTexts();
    expect(emails.slice(-3)).toEqual(['ada.typed@example.com', 'carl.file@example.com', 'dee.file@example.com']);
  });

  it('edits the project with the creator’s rules', async () => {
    await openProject();
    const dialog = page.getByRole('dialog', { name: 'Edit project' });
    const openWithError = async () => {
      await page.getByRole('button', { name: 'Edit' }).click();
      await dialog.getByLabel('Project name').fill('');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByText('Project name is required').waitFor();
      return dialog;
    };
    expect(await a11y(openWithError, 'edit-dialog')).toEqual([]);
    await dialog.getByLabel('Project name').fill('Team renamed');
    await dialog.getByLabel('Account type').selectOption('Training Account');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Team renamed', level: 1 }).waitFor();
  });

  it('completes the project (badge, no Add people), then reopens it', async () => {
    await openProject();
    await page.getByRole('button', { name: 'Complete' }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    await page.getByText('Completed', { exact: true }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Add people' }).isDisabled()).toBe(true);
    for (const theme of themes) {
      await useTheme(page, theme);
      await page.getByText('Completed', { exact: true }).first().waitFor();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: screenshotPath(`project-completed-desktop-${theme}`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: screenshotPath(`project-completed-390-${theme}`), fullPage: true });
      expect(describeViolations(`completed project (${theme})`, await axeViolations(page))).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app}/projects`);
    await page.getByText('Team renamed').first().waitFor();
    await page.getByText('Completed', { exact: true }).first().waitFor();
    await page.screenshot({ path: screenshotPath('projects-with-completed') });
    await openProject();
    await page.getByRole('button', { name: 'Reopen' }).click();
    await page.getByRole('button', { name: 'Complete' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add people' }).isDisabled()).toBe(false);
  });
});
