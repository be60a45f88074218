import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Project } from '../../shared/schemas/project';
import { people, upgradeToPro, type ApiUser } from '../support/api';
import { reminderRunner } from '../support/expiry';
import { serverRenderTools } from '../../functions/mail/render-tools';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { openProjectEdit, screenshotPath, userInChromium } from '../support/browser';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * The project's 'Remind account holders N days before' in its Edit dialog (docs/lifecycle.md,
 * "Expiry reminders"): off by default, a number saved on the project, emptied to turn it off, a bad
 * value refused with its words; axe-clean, light and dark, 1280 and 390 px.
 */
describe('the expiry reminder setting', () => {
  const session = userInChromium('expiry-reminder', { firstName: 'Rita', lastName: 'Reminder' });
  let page: Page;
  let user: ApiUser;
  let project: Project;

  beforeAll(async () => {
    ({ page, user } = session);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminded', expirationDate: '2044-06-30', csvData: people(2, 'Reminded') } })).project;
  });

  const openEdit = () => openProjectEdit(page, project.id);
  const field = /Remind account holders N days before/;
  const saved = () => until('the project', async () => (await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)!, () => true);

  it('is off by default, saves N, refuses 0 in words, and turns off when emptied', async () => {
    let dialog = await openEdit();
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      // The theme is set before the dialog opens (setting it reloads the page).
      await useTheme(page, theme);
      dialog = await openEdit();
      const input = dialog.getByLabel(field);
      expect(await input.inputValue()).toBe('');
      await input.fill('0');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByText('Remind at least 1 day before').waitFor();
      await input.fill('7');
      found.push(...describeViolations(`edit (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`expiry-reminder-edit-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`expiry-reminder-edit-390-${theme}`), fullPage: true });
      found.push(...describeViolations(`edit (${theme}, 390 px)`, await axeViolations(page)));
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await saved()).reminderDays).toBe(7);

    dialog = await openEdit();
    expect(await dialog.getByLabel(field).inputValue()).toBe('7');
    await dialog.getByLabel(field).fill('');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await saved()).reminderDays).toBeUndefined();
  });

  it("picks one of the user's e-mail templates for the reminder (the built-in text by default), axe-clean, light and dark, 1280 and 390 px", async () => {
    await upgradeToPro(user);
    const template = await user.json<{ id: string }>('/api/email-templates', {
      body: { name: 'Your account ends', subject: '{{projectName}} ends {{expirationDate}}', htmlContent: '<p>Your account ends on {{expirationDate}}.</p>', brandLogoUrl: '', isDefault: false, isActive: true },
    });
    const found: string[] = [];
    let dialog = await openEdit();
    for (const theme of ['light', 'dark'] as const) {
      await useTheme(page, theme);
      dialog = await openEdit();
      const select = dialog.getByLabel('Reminder e-mail');
      expect(await select.inputValue()).toBe('');
      await select.selectOption({ label: 'Your account ends' });
      found.push(...describeViolations(`reminder e-mail (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`expiry-reminder-template-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`expiry-reminder-template-390-${theme}`), fullPage: true });
      found.push(...describeViolations(`reminder e-mail (${theme}, 390 px)`, await axeViolations(page)));
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await saved()).reminderTemplateId).toBe(template.id);
    dialog = await openEdit();
    expect(await dialog.getByLabel('Reminder e-mail').inputValue()).toBe(template.id);
    await dialog.getByLabel('Reminder e-mail').selectOption({ label: 'Built-in reminder text' });
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await saved()).reminderTemplateId).toBeUndefined();
  });

  it("shows how many expiry reminders were sent on the project page, axe-clean, light and dark, 1280 and 390 px", async () => {
    await user.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: project.name, accountType: project.accountType, expirationDate: '2044-06-30', reminderDays: 2 } });
    // The reminder's walk on its day (as the mail worker runs it), with a mailer that takes every e-mail.
    let n = 0;
    const walk = reminderRunner({
      mailer: { send: async () => ({ kind: 'sent', messageId: `e2e-${project.id}-${++n}` }) },
      tools: serverRenderTools,
      now: () => new Date('2044-06-28T12:00:00Z'),
      rate: () => 0,
    });
    await walk({ type: 'expiry-reminder', userId: user.sub, projectId: project.id, expirationDate: '2044-06-30', days: 2, shard: 0, afterRow: 0 });
    expect(n).toBe(2);
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await useTheme(page, theme);
      await page.goto(`${app}/projects/${project.id}`);
      await page.getByText('2 expiry reminders sent').waitFor();
      found.push(...describeViolations(`project page (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`expiry-reminders-sent-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`expiry-reminders-sent-390-${theme}`), fullPage: true });
      found.push(...describeViolations(`project page (${theme}, 390 px)`, await axeViolations(page)));
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(found).toEqual([]);
  });
});
