/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Project } from '../../shared/schemas/project';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import type { MailSend } from '../../shared/schemas/mail-send';
import { apiUser, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

interface StoredMail {
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
}
/** The SES emulator's mail viewer store: what the account holders received. */
const mailsTo = async (address: string): Promise<StoredMail[]> => {
  const { emails } = (await (await fetch(`${stack.urls.ses}/store`)).json()) as { emails: StoredMail[] };
  return emails.filter((mail) => mail.destination.to.includes(address));
};

/** The project's e-mail counts as shown: not sent, accepted by SES (Sent, or Delivered since), failed. */
const accepted = (shown: string) => {
  const count = (label: string) => Number(new RegExp(`${label}\\s+(\\d+)`).exec(shown)?.[1] ?? 0);
  return { notSent: count('Not sent'), accepted: count('Sent') + count('Delivered'), failed: count('Failed') };
};

const csv = (rows: [string, string, string][]) => ['First Name,Last Name,Email', ...rows.map((row) => row.map((v) => `"${v.replace(/"/g, '""')}"`).join(','))].join('\r\n');

/**
 * Credential e-mails as a Pro user meets them: the bulk dialog's 'E-mail the account holders'
 * (the built-in template preselected), the complete stage's count of queued e-mails, the mails in
 * the SES emulator's store (rendered, escaped, with a text part), each account's e-mail status on
 * the project page and in the Account Database, 'Send credentials' and a per-account Resend, the
 * built-in template's 'Copy and edit'; in light and dark, and at phone width.
 */
describe('credential e-mails in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  const tag = `${Date.now() % 100_000}`;
  const people: [string, string, string][] = [
    [`<b>Eve</b>`, `Hostile${tag}`, `eve${tag}@example.com`],
    ['Ada', `Lovelace${tag}`, `ada${tag}@example.com`],
    ['Alan', `Turing${tag}`, `alan${tag}@example.com`],
  ];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Mail', lastName: 'Tester' });
    await upgradeToPro(user);
    await user.json('/api/user/profile', { method: 'PUT', body: { firstName: 'Mail', lastName: 'Tester', company: 'Northwind' } });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  const dialog = () => page.getByRole('dialog', { name: 'Bulk Create Accounts' });

  it('bulk-creates three people and e-mails them their credentials; the complete stage says how many were queued', async () => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(people)) });
    await dialog().getByText('3 valid').waitFor();
    await dialog().getByLabel('Project name').fill(`Mailed ${tag}`);
    const section = dialog().getByRole('group', { name: 'E-mail the account holders' });
    await section.getByText('E-mail each account holder their credentials once the accounts are created').click();
    const template = section.getByRole('combobox', { name: 'Template' });
    await expect.poll(() => template.inputValue()).toBe('builtin');
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('credentials-bulk-option') });

    await dialog().getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog().getByText('3 accounts created').waitFor();
    await dialog().getByText('3 credential e-mails queued.').waitFor();
    await dialog().getByTestId('mail-send-counts').filter({ hasText: '3 sent, 0 failed of 3' }).waitFor();
    await page.screenshot({ path: screenshotPath('credentials-bulk-complete') });

    const [eve] = await mailsTo(people[0]![2]);
    expect(eve?.subject).toBe(`Your Mailed ${tag} account at Northwind`);
    expect(eve?.body.html).toContain('&#60;b&#62;Eve&#60;/b&#62;');
    expect(eve?.body.html).not.toContain('<b>Eve</b>');
    expect(eve?.body.text).toContain('Hi <b>Eve</b>');
    expect(eve?.body.text).toMatch(/Password\s+\S+/);
    for (const person of people) expect(await mailsTo(person[2])).toHaveLength(1);
  });

  it('shows each account as Sent on the project page and in the Account Database, and Resend sends one again', async () => {
    await dialog().getByRole('link', { name: 'View project' }).click();
    const emails = page.getByRole('region', { name: 'Credential e-mails' });
    await expect.poll(async () => accepted(await emails.getByTestId('email-counts').innerText())).toEqual({ notSent: 0, accepted: 3, failed: 0 });
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    // Sent, or Delivered once the stack's SES Delivery event has come.
    await expect.poll(() => table.getByTestId('email-status').filter({ hasText: /^(Sent|Delivered)$/ }).count()).toBe(3);
    await page.screenshot({ path: screenshotPath('credentials-project-light'), fullPage: true });

    await table.getByRole('button', { name: `Resend credentials to Ada Lovelace${tag}` }).click();
    const resend = page.getByRole('dialog', { name: 'Resend credentials' });
    await resend.getByText(`E-mail Ada Lovelace${tag} (${people[1]![2]}) their credentials.`).waitFor();
    await resend.getByRole('button', { name: 'Send 1 e-mail' }).click();
    await resend.waitFor({ state: 'hidden' });
    await emails.getByTestId('mail-send-counts').filter({ hasText: '1 sent, 0 failed of 1' }).waitFor();
    await expect.poll(async () => (await mailsTo(people[1]![2])).length).toBe(2);

    await page.goto(`${app}/accounts`);
    await page.getByLabel('Search accounts').fill(`Lovelace${tag}`);
    const found = page.getByRole('table').getByRole('row').filter({ hasText: `Lovelace${tag}` });
    await found.getByTestId('email-status').filter({ hasText: /^(Sent|Delivered)$/ }).waitFor();
    await page.screenshot({ path: screenshotPath('credentials-account-database') });
  });

  it("the project page's Send credentials e-mails those not sent yet; dark mode and phone width", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', {
      body: { projectName: `Later ${tag}`, csvData: [{ firstName: 'Grace', lastName: `Hopper${tag}`, email: `grace${tag}@example.com` }, { firstName: 'Katherine', lastName: `Johnson${tag}`, email: `katherine${tag}@example.com` }] },
    });
    await page.goto(`${app}/projects/${created.project.id}`);
    const emails = page.getByRole('region', { name: 'Credential e-mails' });
    await expect.poll(async () => accepted(await emails.getByTestId('email-counts').innerText())).toEqual({ notSent: 2, accepted: 0, failed: 0 });
    await emails.getByRole('button', { name: 'Send credentials' }).click();
    await page.getByRole('menuitem', { name: /Not sent yet/ }).click();
    const send = page.getByRole('dialog', { name: 'Send credentials' });
    await send.getByRole('combobox', { name: 'Template' }).waitFor();
    await page.screenshot({ path: screenshotPath('credentials-send-dialog') });
    await send.getByRole('button', { name: 'Send 2 e-mails' }).click();
    await send.waitFor({ state: 'hidden' });
    await emails.getByTestId('mail-send-counts').filter({ hasText: '2 sent, 0 failed of 2' }).waitFor();
    await expect.poll(async () => accepted(await emails.getByTestId('email-counts').innerText())).toEqual({ notSent: 0, accepted: 2, failed: 0 });
    expect(await mailsTo(`grace${tag}@example.com`)).toHaveLength(1);

    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
    await emails.getByTestId('email-counts').waitFor();
    await page.screenshot({ path: screenshotPath('credentials-project-dark'), fullPage: true });
    await page.evaluate(() => localStorage.removeItem('theme'));

    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInThroughApp(phone, app, user);
    await phone.goto(`${app}/projects/${created.project.id}`);
    await phone.getByRole('region', { name: 'Credential e-mails' }).getByTestId('email-counts').waitFor();
    await phone.getByRole('table', { name: 'Accounts of this project' }).getByTestId('email-status').first().waitFor();
    await phone.screenshot({ path: screenshotPath('credentials-project-phone'), fullPage: true });
    await phone.context().close();
  });

  it("a paused send: the 'Paused' badge and when it resumes, in light and dark, at 1280 and 390 px (the state seeded: the emulator never refuses for a quota)", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', {
      body: { projectName: `Paused ${tag}`, csvData: [{ firstName: 'Paula', lastName: `Paused${tag}`, email: `paula${tag}@example.com` }] },
    });
    const started = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'all' } });
    await expect.poll(async () => (await user.json<MailSend>(`/api/mail-sends/${started.id}`)).status).toBe('completed');
    // As a chunk records it when the customer's daily cap is used (send-credentials.ts, sendPaused).
    const resumesAt = new Date(Date.UTC(2026, 10, 29, 0, 0)).toISOString();
    await testDb().send(
      new UpdateCommand({
        TableName: 'bulkonboard',
        Key: keys.mailSend(user.sub, started.id),
        UpdateExpression: 'SET #status = :running, pausedReason = :reason, pausedMessage = :message, resumesAt = :at, sent = :zero REMOVE completedAt',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running', ':reason': 'daily-cap', ':message': 'The daily limit of 200 e-mails per customer is used.', ':at': resumesAt, ':zero': 0 },
      }),
    );
    const shot = async (target: Page, name: string) => {
      await target.goto(`${app}/projects/${created.project.id}`);
      const emails = target.getByRole('region', { name: 'Credential e-mails' });
      const line = emails.getByTestId('mail-send-paused');
      await line.waitFor();
      const when = await target.evaluate((iso) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso)), resumesAt);
      expect(await line.innerText()).toBe(`Paused: today's e-mail limit for your account is used; resumes at ${when}. No account fails because of it.`);
      await emails.getByText('Paused', { exact: true }).waitFor();
      await emails.scrollIntoViewIfNeeded();
      await target.screenshot({ path: screenshotPath(name) });
    };
    await shot(page, 'credentials-paused-light');
    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await shot(page, 'credentials-paused-dark');
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await signInThroughApp(phone, app, user);
    await phone.evaluate(() => localStorage.setItem('theme', 'dark'));
    await shot(phone, 'credentials-paused-phone-dark');
    await phone.evaluate(() => localStorage.removeItem('theme'));
    await shot(phone, 'credentials-paused-phone-light');
    await page.evaluate(() => localStorage.removeItem('theme'));
    await phone.context().close();
  });

  it("'Copy and edit' makes the built-in template an editable one; the preview shows the text part", async () => {
    await page.goto(`${app}/email-templates`);
    const card = page.getByRole('region', { name: 'Built-in default' });
    await card.getByRole('button', { name: 'Copy and edit' }).click();
    await page.getByRole('status').filter({ hasText: 'Template created' }).first().waitFor();
    await expect.poll(() => page.getByLabel('Template Name').inputValue()).toBe('Credentials');
    await page.getByRole('tab', { name: 'Preview' }).click();
    await page.getByText('Plain-text version').click();
    await expect.poll(async () => await page.getByTestId('text-preview').innerText()).toContain('Username');
    expect(await page.getByTestId('subject-preview').innerText()).toBe('Your Sample Project account at Your Company');
    await page.screenshot({ path: screenshotPath('credentials-template-copy'), fullPage: true });
  });
});
