/// <reference lib="dom" />
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PASSWORD_CHANGE_NOTICE, sampleTemplateValues, type EmailTemplate } from '../../shared/schemas/email-templates';
import { upgradeToPro, type ApiUser } from '../support/api';
import { screenshotPath, userInChromium } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/** A template whose HTML tries to run a script three ways; the server stores it sanitised. */
const hostileHtml = [
  '{{brandLogo}}',
  '<h1>Hello {{accountHolderName}}</h1>',
  '<p>Your account for {{projectName}} is ready.</p>',
  '<p>Username: {{username}}<br>Password: {{password}}</p>',
  '<script>document.title = "pwned"; window.parent.document.title = "pwned";</script>',
  '<p onclick="document.title = \'pwned\'">Sign in</p>',
  '<a href="javascript:document.title=\'pwned\'">Open</a>',
].join('\n');

/**
 * The template editor as a person uses it: a free user meets the gate; a Pro user creates a
 * template (stored sanitised, previewed with sample values in a sandboxed frame), makes it the
 * default, edits it, adds an inactive one and deletes both.
 */
describe('Email Templates in Chromium', () => {
  const session = userInChromium('email-templates', { firstName: 'Template', lastName: 'Tester' });
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    ({ page, user } = session);
  });

  const templateList = () => page.getByRole('list', { name: 'Email templates' });
  const listItem = (name: string) => templateList().getByRole('button', { name: new RegExp(`^${name}`) });
  const previewFrame = () => page.frameLocator('iframe[title="Email preview"]');

  async function setTheme(theme: 'light' | 'dark') {
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    await page.reload();
    await page.waitForFunction((value) => document.documentElement.classList.contains(value), theme);
  }

  it('shows a free user the gate, and the server refuses a free user a template', async () => {
    await page.goto(`${app}/email-templates`);
    await page.getByRole('heading', { name: 'Email Templates', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create your first template' }).click();
    const gate = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await gate.getByText('Upgrade to Pro to access Email Templates.', { exact: false }).waitFor();
    await page.screenshot({ path: screenshotPath('email-templates-free-gate'), animations: 'disabled' });
    await gate.getByRole('button', { name: 'Maybe Later' }).click();
    await gate.waitFor({ state: 'hidden' });
    expect(await page.getByRole('heading', { name: 'Create Template' }).count()).toBe(0);

    const refused = await user.call('/api/email-templates', {
      body: { name: 'Welcome', subject: 'Hello', htmlContent: '<p>Hello {{accountHolderName}}</p>' },
    });
    expect(refused.status).toBe(403);
  });

  it('lets a Pro user create a template, stored sanitised and previewed with sample values', async () => {
    await upgradeToPro(user);
    await page.goto(`${app}/email-templates`);
    await page.getByRole('heading', { name: 'Create Template' }).waitFor();
    await page.getByText('No templates yet').waitFor();

    // The schema's messages.
    await page.getByRole('button', { name: 'Create Template' }).click();
    for (const message of ['Template name is required', 'Subject is required', 'HTML content is required']) {
      await page.getByText(message).waitFor();
    }

    await page.getByLabel('Template Name').fill('Welcome e-mail');
    await page.getByLabel('Email Subject').fill('Welcome to {{companyName}}, {{accountHolderName}} ({{username}})');
    await page.getByLabel('Brand Logo URL').fill('https://example.com/logo.png');

    // HTML that is nothing but a script: the server refuses it and says why under the field.
    await page.getByLabel('HTML Content').fill('<script>document.title = "pwned"</script>');
    await page.getByRole('button', { name: 'Create Template' }).click();
    await page.getByText('Create failed').waitFor();
    await page.getByText('Nothing of the HTML content is left', { exact: false }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Create Template' }).count()).toBe(1);

    await page.getByLabel('HTML Content').fill(hostileHtml);
    await page.getByRole('button', { name: 'Create Template' }).click();
    await page.getByText('Template created').waitFor();

    // The editor now holds what the server stored: the variables kept, the script gone.
    await page.getByRole('heading', { name: 'Edit Template' }).waitFor();
    await expect.poll(() => page.getByLabel('HTML Content').inputValue()).not.toMatch(/<script|onclick|javascript:/i);
    const stored = await page.getByLabel('HTML Content').inputValue();
    expect(stored).toContain('Hello {{accountHolderName}}');
    expect(stored).toContain('{{brandLogo}}');
    await listItem('Welcome e-mail').waitFor();
    expect(await listItem('Welcome e-mail').getAttribute('aria-current')).toBe('true');

    await page.getByRole('tab', { name: 'Preview' }).click();
    await previewFrame().getByRole('heading', { name: 'Hello John Doe' }).waitFor();
    await previewFrame().getByText('Sample Project', { exact: false }).waitFor();
    await previewFrame().getByText('johndoe', { exact: false }).waitFor();
    expect(await previewFrame().locator('script').count()).toBe(0);
    const logo = previewFrame().getByRole('img', { name: 'Brand logo' });
    expect(await logo.getAttribute('src')).toBe('https://example.com/logo.png');
    expect(await logo.evaluate((img) => getComputedStyle(img).maxWidth)).toBe('200px');
    // The subject preview fills in only the company, account holder and project names.
    expect(await page.getByTestId('subject-preview').textContent()).toBe('Welcome to Your Company, John Doe ({{username}})');
    // The frame is sandboxed without scripts: nothing ran, here or in it.
    expect(await page.locator('iframe[title="Email preview"]').getAttribute('sandbox')).toBe('');
    await previewFrame().getByText('Sign in').click();
    expect(await page.title()).not.toBe('pwned');
    await page.screenshot({ path: screenshotPath('email-templates-preview-light'), fullPage: true });
  });

  it('makes it the default and updates it', async () => {
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByText('Default Template', { exact: true }).click();
    expect(await page.getByLabel('Default Template', { exact: true }).isChecked()).toBe(true);
    await page.getByLabel('Email Subject').fill('Your {{projectName}} account, {{accountHolderName}}');
    await page.getByRole('button', { name: 'Update Template' }).click();
    await page.getByText('Template updated').waitFor();

    const item = listItem('Welcome e-mail');
    await item.getByText('Default', { exact: true }).waitFor();
    await item.getByText('Your {{projectName}} account, {{accountHolderName}}').waitFor();
    const [saved] = await user.json<EmailTemplate[]>('/api/email-templates');
    expect(saved).toMatchObject({ name: 'Welcome e-mail', subject: 'Your {{projectName}} account, {{accountHolderName}}', isDefault: true, isActive: true });
    await page.screenshot({ path: screenshotPath('email-templates-edit-light'), fullPage: true });
  });

  it('adds an inactive template; the default stays first', async () => {
    await page.getByRole('button', { name: 'New Template' }).click();
    await page.getByRole('heading', { name: 'Create Template' }).waitFor();
    expect(await page.getByLabel('Template Name').inputValue()).toBe('');
    await page.getByLabel('Template Name').fill('Reminder');
    await page.getByLabel('Email Subject').fill('A reminder about {{projectName}}');
    await page.getByLabel('HTML Content').fill('<p>Hi ');
    // A variable goes in where the cursor is.
    await page.getByRole('button', { name: 'Insert {{accountHolderName}}' }).click();
    await page.getByLabel('HTML Content').press('End');
    await page.getByLabel('HTML Content').pressSequentially(',</p>');
    expect(await page.getByLabel('HTML Content').inputValue()).toBe('<p>Hi {{accountHolderName}},</p>');
    await page.getByText('Active', { exact: true }).click();
    expect(await page.getByLabel('Active', { exact: true }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Create Template' }).click();
    await page.getByRole('heading', { name: 'Edit Template' }).waitFor();

    await expect.poll(() => templateList().getByRole('listitem').count()).toBe(2);
    const items = templateList().getByRole('listitem');
    await items.first().getByText('Welcome e-mail', { exact: true }).waitFor();
    await items.nth(1).getByText('Reminder', { exact: true }).waitFor();
    await items.nth(1).getByText('Inactive', { exact: true }).waitFor();

    // Both themes.
    await setTheme('dark');
    await listItem('Welcome e-mail').click();
    await page.getByRole('heading', { name: 'Edit Template' }).waitFor();
    await page.screenshot({ path: screenshotPath('email-templates-edit-dark'), fullPage: true });
    await page.getByRole('tab', { name: 'Preview' }).click();
    await previewFrame().getByRole('heading', { name: 'Hello John Doe' }).waitFor();
    await page.screenshot({ path: screenshotPath('email-templates-preview-dark'), fullPage: true });

    // On a phone the list is above the editor.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'Edit' }).click();
    const listBox = await templateList().boundingBox();
    const editorBox = await page.getByRole('heading', { name: 'Edit Template' }).boundingBox();
    expect(listBox!.y + listBox!.height).toBeLessThan(editorBox!.y);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: screenshotPath('email-templates-phone-dark'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await setTheme('light');
  });

  it('shows a past-due user the templates read-only; saving or a new template opens the upgrade prompt', async () => {
    const { portalUrl } = await user.json<{ portalUrl: string }>('/api/subscription/create-portal', { method: 'POST' });
    const portal = (action: string) => fetch(`${portalUrl}/${action}`, { method: 'POST', redirect: 'manual' });
    expect((await portal('fail-payment')).status).toBe(303);

    await page.goto(`${app}/email-templates`);
    // The first (default) template is shown, read-only.
    await page.getByRole('heading', { name: 'Edit Template' }).waitFor();
    await page.getByText('Editing and creating templates is part of the Pro plan.', { exact: false }).waitFor();
    expect(await page.getByLabel('Template Name').inputValue()).toBe('Welcome e-mail');
    expect(await page.getByLabel('Template Name').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByLabel('HTML Content').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByRole('button', { name: 'Insert {{accountHolderName}}' }).count()).toBe(0);
    await page.screenshot({ path: screenshotPath('email-templates-read-only'), fullPage: true });

    const gate = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await page.getByRole('button', { name: 'Update Template' }).click();
    await gate.getByText('Your last Pro payment failed.', { exact: false }).waitFor();
    await gate.getByRole('button', { name: 'Maybe Later' }).click();
    await gate.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'New Template' }).click();
    await gate.getByText('Upgrade to Pro to access Email Templates.', { exact: false }).waitFor();
    await gate.getByRole('button', { name: 'Maybe Later' }).click();
    await gate.waitFor({ state: 'hidden' });
    expect(await page.getByRole('heading', { name: 'Create Template' }).count()).toBe(0);
    // Previewing still works.
    await page.getByRole('tab', { name: 'Preview' }).click();
    await previewFrame().getByRole('heading', { name: 'Hello John Doe' }).waitFor();

    expect((await portal('pay-overdue')).status).toBe(303);
    await page.goto(`${app}/email-templates`);
    await page.getByRole('heading', { name: 'Create Template' }).waitFor();
  });

  it('deletes templates after a confirmation', async () => {
    await listItem('Reminder').click();
    await page.getByRole('heading', { name: 'Edit Template' }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete template?' });
    await confirm.getByText('“Reminder” will be deleted.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await templateList().getByRole('listitem').count()).toBe(2);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete Template' }).click();
    await page.getByText('Template deleted').waitFor();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Create Template' }).waitFor();
    await expect.poll(() => templateList().getByRole('listitem').count()).toBe(1);

    await listItem('Welcome e-mail').click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete Template' }).click();
    await page.getByText('No templates yet').waitFor();
    expect(await user.json<EmailTemplate[]>('/api/email-templates')).toEqual([]);
  });
  it("previews the built-in template as it is sent: the sample sign-in address, the password-change sentence only with the Security setting on", async () => {
    const builtIn = page.getByRole('region', { name: 'Built-in default' });
    const openPreview = async () => {
      await page.goto(`${app}/email-templates`);
      await builtIn.getByRole('button', { name: 'Preview' }).click();
      await page.getByRole('dialog', { name: 'Built-in default' }).waitFor();
      await previewFrame().getByText('Sign in at', { exact: false }).waitFor();
      return (await previewFrame().locator('body').innerText()).replace(/\s+/g, ' ');
    };
    const off = await openPreview();
    expect(off).toContain(`Sign in at ${sampleTemplateValues.loginUrl} with the details below.`);
    expect(off).not.toContain(PASSWORD_CHANGE_NOTICE);
    await user.json('/api/security/settings', { method: 'PUT', body: { requirePasswordChange: true } });
    expect(await openPreview()).toContain(PASSWORD_CHANGE_NOTICE);
    await user.json('/api/security/settings', { method: 'PUT', body: { requirePasswordChange: false } });
  });
});
