/// <reference lib="dom" />
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Integration, IntegrationTemplate } from '../../shared/schemas/integrations';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/** Never to be seen again once submitted: not in the page, not in an API answer. */
const API_KEY = 'e2e-okta-api-key-do-not-show';
/** The server refuses private addresses (no request to them is ever made). */
const REFUSED_URL = 'https://127.0.0.1:9/';
/** The one private origin the test stack lets integrations call: a fake Okta answers there. */
const PLATFORM_URL = `${stack.fakePlatformOrigin}/`;

/** A fake Okta org: refuses every API token until `acceptKey` is set. */
const fakeOkta = { acceptKey: '', seen: [] as string[] };

/**
 * API Integrations as a person uses them: a free user meets the gate; after upgrading, creates an
 * Okta integration from its quick-setup card (a private address is refused and explained first),
 * tests it, sees why it failed and then that it passes, and deletes it.
 */
describe('API Integrations in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let okta: IntegrationTemplate;
  let platform: http.Server;

  beforeAll(async () => {
    const origin = new URL(stack.fakePlatformOrigin);
    platform = http.createServer((req, res) => {
      fakeOkta.seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      const ok = !!fakeOkta.acceptKey && req.headers.authorization === `SSWS ${fakeOkta.acceptKey}`;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? [{ id: '00u1' }] : { errorCode: 'E0000011' }));
    });
    await new Promise<void>((resolve) => platform.listen(Number(origin.port), origin.hostname, resolve));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Integration', lastName: 'Tester' });
    const templates = await user.json<IntegrationTemplate[]>('/api/integration-templates');
    okta = templates.find((template) => template.platform === 'okta')!;
    expect(okta).toBeDefined();
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
    await new Promise<void>((resolve) => (platform ? platform.close(() => resolve()) : resolve()));
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  const activeIntegrations = () => page.getByRole('region', { name: 'Active Integrations' });
  const upgradePrompt = () => page.getByRole('dialog', { name: 'Upgrade to Pro' });
  const toast = (title: string) => page.getByRole('status').filter({ hasText: title });

  it('shows a free user the templates and the gate, with no Add Integration in the header', async () => {
    await page.goto(`${app}/integrations`);
    await page.getByRole('heading', { name: 'API Integrations', level: 1 }).waitFor();
    await activeIntegrations().getByText('Add Your First Integration').waitFor();
    for (const name of ['Salesforce', 'Active Directory', 'Okta']) {
      await page.getByRole('button', { name: `Set up ${name}` }).waitFor();
    }
    // The only 'Add Integration' is the empty state's, which opens the gate.
    await expect.poll(() => page.getByRole('button', { name: 'Add Integration', exact: true }).count()).toBe(1);
    await activeIntegrations().getByRole('button', { name: 'Add Integration', exact: true }).click();
    await upgradePrompt().getByText('Upgrade to Pro to access API Integrations.', { exact: false }).waitFor();
    await page.screenshot({ path: screenshotPath('integrations-free-gate'), animations: 'disabled' });
    await upgradePrompt().getByRole('button', { name: 'Maybe Later' }).click();
    await upgradePrompt().waitFor({ state: 'hidden' });

    // A template card is gated too.
    await page.getByRole('button', { name: 'Set up Okta' }).click();
    await upgradePrompt().waitFor();
    await upgradePrompt().getByRole('button', { name: 'Maybe Later' }).click();
    await upgradePrompt().waitFor({ state: 'hidden' });
    expect(await page.getByRole('dialog', { name: 'Add Integration' }).count()).toBe(0);
  });

  it('after upgrading, creates an Okta integration from its quick-setup card', async () => {
    await upgradeToPro(user);
    await page.reload();
    await page.getByRole('region', { name: 'Plan' }).getByText('Pro Active').waitFor();
    await page.getByRole('button', { name: 'Add Integration', exact: true }).waitFor();
    await activeIntegrations().getByText('Add Your First Integration').waitFor();

    await page.getByRole('button', { name: 'Set up Okta' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Integration' });
    await dialog.waitFor();
    expect(await dialog.getByRole('combobox', { name: 'Platform', exact: true }).inputValue()).toBe('okta');
    expect(await dialog.getByRole('combobox', { name: 'API type' }).inputValue()).toBe(okta.apiType);
    expect(await dialog.getByRole('combobox', { name: 'Authentication method' }).inputValue()).toBe(okta.authMethod);
    expect(await dialog.getByLabel('Base URL').getAttribute('placeholder')).toBe(okta.baseUrlExample);
    expect(await dialog.getByLabel('Test path (optional)').inputValue()).toBe(okta.testPath);

    // Nothing filled in: the shared schema's messages, and no request.
    await dialog.getByRole('button', { name: 'Create Integration' }).click();
    await dialog.getByText('Name is required').waitFor();
    await dialog.getByText('Base URL is required').waitFor();
    await dialog.getByText('API key is required').waitFor();

    await dialog.getByLabel('Name', { exact: true }).fill('Okta e2e');
    await dialog.getByLabel('Description (optional)').fill('Created by the end-to-end test');
    await dialog.getByLabel('Base URL').fill(REFUSED_URL);
    const apiKey = dialog.getByLabel('API key', { exact: true });
    expect(await apiKey.getAttribute('type')).toBe('password');
    await apiKey.fill(API_KEY);
    await page.screenshot({ path: screenshotPath('integrations-create-dialog'), animations: 'disabled' });

    // A private address: the server's reason under the spec's title, and the dialog keeps its fields.
    await dialog.getByRole('button', { name: 'Create Integration' }).click();
    const refused = toast('Error');
    await refused.getByText(/^Refused: 127\.0\.0\.1 is a private or reserved address/).waitFor();
    // ...and under the field it is about.
    await dialog.getByText(/^Refused: 127\.0\.0\.1 is a private or reserved address/).waitFor();
    expect(await dialog.getByLabel('Base URL').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: screenshotPath('integrations-create-refused'), animations: 'disabled' });
    expect(await dialog.getByLabel('Name', { exact: true }).inputValue()).toBe('Okta e2e');
    expect(await user.json<Integration[]>('/api/integrations')).toEqual([]);

    await dialog.getByLabel('Base URL').fill(PLATFORM_URL);
    await dialog.getByText(/^Refused: /).waitFor({ state: 'hidden' });
    await dialog.getByRole('button', { name: 'Create Integration' }).click();

    await toast('Integration created').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const item = activeIntegrations().getByRole('listitem').filter({ hasText: 'Okta e2e' });
    await item.getByText('Not tested', { exact: true }).waitFor();
    await item.getByText('Active', { exact: true }).waitFor();
    await item.getByText(PLATFORM_URL).waitFor();
    await item.getByText(/^Okta · REST · /).waitFor();

    // The key is write-only: not in the page, and the API only says that it is set.
    expect(await page.content()).not.toContain(API_KEY);
    const response = await user.call('/api/integrations');
    const text = await response.text();
    expect(text).not.toContain(API_KEY);
    const [stored] = JSON.parse(text) as Integration[];
    expect(stored).toMatchObject({ name: 'Okta e2e', platform: 'okta', authMethod: 'api_key', baseUrl: PLATFORM_URL });
    expect(stored!.authFieldsSet).toEqual(['apiKey']);
    expect(stored!.apiConfig).toEqual({ testPath: okta.testPath });
  });

  it('tests it: the platform refuses the key, and the page says why', async () => {
    const item = activeIntegrations().getByRole('listitem').filter({ hasText: 'Okta e2e' });
    await item.getByRole('button', { name: 'Test' }).click();
    const failed = toast('Test failed');
    await failed.getByText('Integration test failed. HTTP 401 Unauthorized: the credentials were refused.').waitFor();
    // The stored key went to the platform the way Okta expects it.
    expect(fakeOkta.seen).toEqual([`GET ${okta.testPath} SSWS ${API_KEY}`]);
    const [stored] = await user.json<Integration[]>('/api/integrations');
    expect(stored).toMatchObject({ lastTestStatus: 'failed', lastTestMessage: 'HTTP 401 Unauthorized: the credentials were refused.' });

    await item.getByText('Test failed', { exact: true }).waitFor();
    await item.getByText(/^Last tested .+: HTTP 401 Unauthorized: the credentials were refused\.$/).waitFor();
    expect(await item.getByText('Not tested', { exact: true }).count()).toBe(0);

    await page.screenshot({ path: screenshotPath('integrations-light'), fullPage: true });

    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
    await item.getByText('Test failed', { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('integrations-dark'), fullPage: true });
    await page.getByRole('button', { name: 'Set up Salesforce' }).click();
    await page.getByRole('dialog', { name: 'Add Integration' }).getByLabel('Client secret').waitFor();
    // Salesforce's own provisioning settings, and why they are needed, until they are filled in.
    const salesforce = page.getByRole('dialog', { name: 'Add Integration' });
    await salesforce.getByText(/^Provisioning to Salesforce needs the integration's Salesforce settings/).waitFor();
    await salesforce.getByLabel('Profile id').fill('00e000000000001');
    await salesforce.getByLabel('User name domain').fill('example.com');
    await salesforce.getByText(/^Provisioning to Salesforce needs/).waitFor({ state: 'hidden' });
    await page.screenshot({ path: screenshotPath('integrations-create-dialog-dark'), animations: 'disabled' });
    await page.getByRole('dialog', { name: 'Add Integration' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog', { name: 'Add Integration' }).waitFor({ state: 'hidden' });
    await page.evaluate(() => localStorage.removeItem('theme'));
    await page.reload();
    await page.waitForFunction(() => !document.documentElement.classList.contains('dark'));
  });

  it('edits it: the stored key is never shown, and left empty it is kept', async () => {
    const item = activeIntegrations().getByRole('listitem').filter({ hasText: 'Okta e2e' });
    await item.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Integration' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Name', { exact: true }).inputValue()).toBe('Okta e2e');
    expect(await dialog.getByLabel('Base URL').inputValue()).toBe(PLATFORM_URL);
    const apiKey = dialog.getByLabel('API key (optional)');
    expect(await apiKey.inputValue()).toBe('');
    expect(await apiKey.getAttribute('placeholder')).toBe('Stored - leave empty to keep');
    expect(await page.content()).not.toContain(API_KEY);
    // The platform stays (its accounts and runs belong to it); stored secrets go to the same host only.
    expect(await dialog.getByRole('combobox', { name: 'Platform', exact: true }).locator('option').allInnerTexts()).toEqual(['Okta']);
    await dialog.getByLabel('Base URL').fill('https://another-org.example.com/');
    expect(await dialog.getByLabel('API key', { exact: true }).getAttribute('placeholder')).toBeNull();
    await dialog.getByLabel('Base URL').fill(PLATFORM_URL);
    await dialog.getByLabel('API key (optional)').waitFor();

    // A pace that is not a whole number: the shared schema's message, and no request.
    await dialog.getByLabel('Requests per minute (optional)').fill('2.5');
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await dialog.getByText('Requests per minute must be a whole number').waitFor();
    await dialog.getByLabel('Requests per minute (optional)').fill('120');
    await dialog.getByLabel('Name', { exact: true }).fill('Okta e2e edited');
    await dialog.getByLabel('Undo action').selectOption('delete');
    await dialog.getByLabel('Okta login').selectOption('email');
    await dialog.getByLabel('Undo action').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('integrations-edit-dialog'), animations: 'disabled' });
    await dialog.getByRole('button', { name: 'Save Changes' }).click();
    await toast('Integration saved').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await item.getByText('Okta e2e edited').waitFor();
    const [stored] = await user.json<Integration[]>('/api/integrations');
    expect(stored).toMatchObject({ name: 'Okta e2e edited', authFieldsSet: ['apiKey'], apiConfig: { testPath: okta.testPath, provisioning: { requestsPerMinute: 120, undo: 'delete', oktaLogin: 'email' } } });
  });

  it('tests it again once the platform accepts the key (the key kept through the edit)', async () => {
    fakeOkta.acceptKey = API_KEY;
    const item = activeIntegrations().getByRole('listitem').filter({ hasText: 'Okta e2e' });
    await item.getByRole('button', { name: 'Test' }).click();
    await toast('Test completed').getByText('Connected (HTTP 200 OK)').waitFor();
    await item.getByText('Test passed', { exact: true }).waitFor();
    await item.getByText(/^Last tested .+: Connected \(HTTP 200 OK\)$/).waitFor();
  });

  it('deletes it after asking', async () => {
    const item = activeIntegrations().getByRole('listitem').filter({ hasText: 'Okta e2e' });
    await item.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete integration?' });
    await confirm.getByText('Okta e2e edited').waitFor();
    await page.screenshot({ path: screenshotPath('integrations-delete'), animations: 'disabled' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast('Integration deleted').waitFor();
    await activeIntegrations().getByText('Add Your First Integration').waitFor();
    expect(await user.json<Integration[]>('/api/integrations')).toEqual([]);
  });
});
