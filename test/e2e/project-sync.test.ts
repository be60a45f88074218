/// <reference lib="dom" />
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { AccountView, Page as AccountPage, Project } from '../../shared/schemas/project';
import { people, upgradeToPro, type ApiUser } from '../support/api';
import { screenshotPath, userInChromium } from '../support/browser';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { until } from '../support/until';

const app = inject('stack').urls.app;
const themes = ['light', 'dark'] as const;

/**
 * 'Update from a file' in Chromium (issue 28, item 4): a changed CSV dropped on the project page,
 * its preview read (counts, the changed row's old and new value), the changes chosen, confirmed
 * with their counts and applied; axe-clean in both themes, screenshots light and dark, desktop and
 * 390 px wide.
 */
describe('update a project from a changed file (Chromium)', () => {
  const session = userInChromium('project-sync', { firstName: 'Syd', lastName: 'Sync' });
  let page: Page;
  let user: ApiUser;
  let project: Project;

  beforeAll(async () => {
    ({ page, user } = session);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Semester', csvData: people(4, 'Sem') } })).project;
  });

  const csv = 'First Name,Last Name,Email\r\nSem0,Tester,sem0@example.com\r\nSem1,Moved,sem1@example.com\r\nSem2,Tester,sem2@example.com\r\nNew,Student,new.student@example.com\r\n';
  const dialog = () => page.getByRole('dialog', { name: 'Update from a file' });
  /** The dialog opened on the project page with the file dropped and its preview read. */
  const openWithPreview = async (file = csv, read = '4 rows in the file:') => {
    await page.goto(`${app}/projects/${project.id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Update from a file' }).click();
    await dialog().getByLabel('Upload CSV').setInputFiles({ name: 'semester.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
    await dialog().getByText(read).waitFor({ timeout: 60_000 });
    return dialog();
  };

  it('reads the preview of a changed CSV and applies it', async () => {
    const found: string[] = [];
    for (const theme of themes) {
      await useTheme(page, theme);
      const opened = await openWithPreview();
      await opened.getByText('1 new, 1 changed, 2 unchanged, 0 rejected').waitFor();
      await opened.getByText('4 accounts in the project:').waitFor();
      await opened.getByRole('tab', { name: /Changed/ }).click();
      await opened.getByText('Moved').waitFor();
      await opened.getByRole('radio', { name: /Deactivate them/ }).check({ force: true });
      await opened.getByRole('button', { name: 'Apply changes' }).click();
      await opened.getByText('Apply these changes?').waitFor();
      found.push(...describeViolations(`sync dialog (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`project-sync-preview-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`project-sync-preview-390-${theme}`) });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
    // The last one open (dark): the confirmation names the counts; apply.
    await dialog().getByText('Create 1 new account').waitFor();
    await dialog().getByText('Update 1 changed account', { exact: false }).waitFor();
    await dialog().getByText('Deactivate 1 account missing from the file').waitFor();
    await dialog().getByRole('button', { name: 'Confirm and apply' }).click();
    await dialog().getByText('Changes applied').waitFor({ timeout: 120_000 });
    await dialog().getByText('New accounts created: 1 of 1').waitFor();
    await page.screenshot({ path: screenshotPath('project-sync-applied-dark') });
    expect(describeViolations('sync applied (dark)', await axeViolations(page))).toEqual([]);
    await dialog().getByRole('button', { name: 'Done' }).click();
    const accounts = await until('the accounts', () => user.json<AccountPage<AccountView>>(`/api/projects/${project.id}/accounts?limit=50`), (p) => p.items.length === 5);
    expect(accounts.items.find((a) => a.email === 'sem1@example.com')?.lastName).toBe('Moved');
    expect(accounts.items.find((a) => a.email === 'sem3@example.com')?.isActive).toBe(false);
    await page.getByRole('cell', { name: 'new.student@example.com' }).waitFor();
    await useTheme(page, 'light');
  });

  it('e-mails the new people their credentials when asked (Pro), with the send\'s progress', async () => {
    await upgradeToPro(user);
    const next = `${csv}New,Mailed,new.mailed@example.com\r\n`;
    const rowsOfThePreview = (url: URL) => url.pathname.includes('/sync-previews/') && url.pathname.endsWith('/rows');
    const open = async () => {
      // The section's rows are held back until the choices below them have been measured: the
      // rows arriving must not move the box under the pointer (a click landing then used to miss it).
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const routed: Promise<void>[] = [];
      await page.route(rowsOfThePreview, (route) => {
        const continued = held.then(() => route.continue());
        routed.push(continued);
        return continued;
      });
      try {
        await openWithPreview(next, '1 new, 0 changed, 4 unchanged, 0 rejected');
        const label = dialog().getByText('E-mail the 1 new person their credentials once they are created');
        await label.waitFor();
        const before = await label.boundingBox();
        release();
        await dialog().getByRole('cell', { name: 'new.mailed@example.com' }).waitFor();
        const after = await label.boundingBox();
        expect(after?.y).toBeCloseTo(before?.y ?? Number.NaN, 0);
        await label.click();
      } finally {
        release();
        await Promise.allSettled(routed);
        await page.unroute(rowsOfThePreview);
      }
      await dialog().getByText('The e-mail carries').waitFor();
      expect(await dialog().getByRole('checkbox', { name: 'E-mail the 1 new person their credentials once they are created' }).isChecked()).toBe(true);
    };
    const found: string[] = [];
    for (const theme of themes) {
      await useTheme(page, theme);
      await open();
      found.push(...describeViolations(`sync dialog, e-mail the new people (${theme})`, await axeViolations(page)));
      await dialog().getByText('The e-mail carries').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`project-sync-mail-new-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await dialog().getByText('The e-mail carries').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`project-sync-mail-new-390-${theme}`) });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
    await dialog().getByRole('button', { name: 'Apply changes' }).click();
    await dialog().getByText('Create 1 new account and e-mail their holders their credentials').waitFor();
    await dialog().getByRole('button', { name: 'Confirm and apply' }).click();
    await dialog().getByText('Changes applied').waitFor({ timeout: 120_000 });
    await dialog().getByText(/Credential e-mails with/).first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: screenshotPath('project-sync-mail-new-applied-dark') });
    const mailed = await until('the new account e-mailed', () => user.json<AccountPage<AccountView>>(`/api/projects/${project.id}/accounts?limit=50`), (p) => p.items.some((a) => a.email === 'new.mailed@example.com' && a.emailStatus !== undefined));
    expect(mailed.items.find((a) => a.email === 'new.mailed@example.com')!.emailStatus).toMatch(/queued|sent|delivered/);
    await useTheme(page, 'light');
  });
});
