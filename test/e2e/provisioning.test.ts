/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { Integration, IntegrationTemplate } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import { PAUSED_CREDENTIALS, type ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { expectToastClearOf } from '../support/screen-layout';

const stack = inject('stack');
const app = stack.urls.app;
const DIRECTORY = 'Local SCIM directory';

/** The user's own tenant of the stack's SCIM directory (the token their quick-setup card carries). */
let tenantToken = '';

/** The user's tenant of the SCIM directory, read and written as a platform's admin would: with its bearer token. */
async function scim<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.scim.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${tenantToken}`, 'content-type': 'application/scim+json', accept: 'application/scim+json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

interface ScimList {
  totalResults: number;
  Resources?: { id: string; userName: string; emails?: { value: string }[]; active?: boolean }[];
}
const directoryUser = async (userName: string) =>
  (await scim<ScimList>(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.Resources?.[0];


const csv = (rows: [string, string, string][]) => ['First Name,Last Name,Email', ...rows.map((row) => row.join(','))].join('\r\n');

/**
 * Provisioning as a new user meets it: free, the bulk dialog's platform section is gated; Pro,
 * they set up the Local SCIM directory from its quick-setup card, bulk-create three people onto
 * it and see them Synced on the project page (and on the directory itself). A person whose user
 * name someone else holds on the platform is Sync Failed with the platform's reason, on the
 * project page and in the Account Database; once the name is free, Retry failed syncs them.
 */
describe('provisioning in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  const year = usernameYear(new Date());
  // Names unique to this run: the directory keeps its users for the whole stack.
  const tag = `${Date.now() % 100_000}`;
  const people: [string, string, string][] = [
    ['Ada', `Lovelace${tag}`, `ada${tag}@example.com`],
    ['Alan', `Turing${tag}`, `alan${tag}@example.com`],
    ['Grace', `Hopper${tag}`, `grace${tag}@example.com`],
  ];
  const usernameOf = ([first, last]: [string, string, string]) => baseUsername(first, last, year);

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Provisioning', lastName: 'Tester' });
    tenantToken = (await user.json<IntegrationTemplate[]>('/api/integration-templates')).find((card) => card.id === 'local-scim')?.ready?.authConfig.token ?? '';
    expect(tenantToken).not.toBe('');
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
  const toast = (title: string) => page.getByRole('status').filter({ hasText: title });
  const openBulkDialog = async (rows: [string, string, string][]) => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(rows)) });
    await dialog().getByText(`${rows.length} valid`).waitFor();
  };
  const platformSection = () => dialog().getByRole('group', { name: 'Create accounts on a platform' });

  it('shows a free user the platform section behind the API Integrations gate', async () => {
    await openBulkDialog(people.slice(0, 1));
    await platformSection().getByRole('button', { name: 'Create on a platform' }).click();
    const gate = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await gate.getByText('Upgrade to Pro to access API Integrations.', { exact: false }).waitFor();
    await gate.getByRole('button', { name: 'Maybe Later' }).click();
    await gate.waitFor({ state: 'hidden' });
    await platformSection().scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('provisioning-bulk-free') });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  it('after upgrading, creates the Local SCIM directory integration from its quick-setup card as it is', async () => {
    await upgradeToPro(user);
    await page.goto(`${app}/integrations`);
    await page.getByRole('button', { name: 'Add Integration', exact: true }).first().waitFor();
    await page.getByRole('button', { name: `Set up ${DIRECTORY}` }).click();
    const add = page.getByRole('dialog', { name: 'Add Integration' });
    await add.waitFor();
    expect(await add.getByLabel('Name', { exact: true }).inputValue()).toBe(DIRECTORY);
    expect(await add.getByLabel('Base URL').inputValue()).toBe(stack.scim.url);
    await add.getByRole('button', { name: 'Create Integration' }).click();
    await toast('Integration created').waitFor();
    await add.waitFor({ state: 'hidden' });
    const item = page.getByRole('region', { name: 'Active Integrations' }).getByRole('listitem').filter({ hasText: DIRECTORY });
    await item.getByRole('button', { name: 'Test' }).click();
    await item.getByText('Test passed', { exact: true }).waitFor();
    // A Workday integration is kept, but it can never be a target (the server refuses it too).
    const workday = await user.call('/api/integrations', {
      body: { name: 'Workday HR', platform: 'workday', baseUrl: `${stack.fakePlatformOrigin}/`, authMethod: 'basic_auth', authConfig: { username: 'u', password: 'p' } },
    });
    expect(workday.status).toBe(201);
  });

  it('bulk-creates three people onto the directory and sees them Synced on the project page', async () => {
    await openBulkDialog(people);
    await dialog().getByLabel('Project name').fill(`Provisioned ${tag}`);
    const section = platformSection();
    await section.getByText('Workday HR', { exact: true }).waitFor();
    await section.getByText(/Workday creates workers through hiring.*cannot be a provisioning target/).waitFor();
    const select = section.getByRole('combobox', { name: 'Integration' });
    expect(await select.isDisabled()).toBe(true);
    await section.getByText('Also create these accounts on the platform of an integration').click();
    expect(await select.isDisabled()).toBe(false);
    const [integration] = (await user.json<Integration[]>('/api/integrations')).filter((entry) => entry.name === DIRECTORY);
    expect(await select.inputValue()).toBe(integration!.id);
    expect(await select.locator('option', { hasText: 'Workday HR' }).isDisabled()).toBe(true);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('provisioning-bulk-section') });

    await dialog().getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog().getByText('3 accounts created').waitFor();
    const progress = dialog().getByRole('group', { name: `Provisioning to ${DIRECTORY}` });
    await progress.getByText('3 synced, 0 failed, 0 pending of 3').waitFor();
    await progress.getByText('Completed').waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-bulk-complete') });

    // On the platform itself: each person, under the user name the app gave them.
    for (const person of people) {
      const found = await directoryUser(usernameOf(person));
      expect(found?.emails?.[0]?.value).toBe(person[2]);
    }

    await dialog().getByRole('link', { name: 'View project' }).click();
    const counts = page.getByRole('region', { name: 'On the platform' });
    await counts.getByText('Synced', { exact: true }).waitFor();
    await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 3 Sync Failed 0 Pending 0');
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    await expect.poll(() => table.getByText('Synced', { exact: true }).filter({ visible: true }).count()).toBe(3);
    await page.screenshot({ path: screenshotPath('provisioning-project-synced'), fullPage: true });

    // The project's card in Projects says so too.
    await page.goto(`${app}/projects`);
    const card = page.getByRole('article', { name: `Provisioned ${tag}` });
    await card.getByText('3 of 3').waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-project-card') });
  });

  it('shows a person whose user name is taken on the platform as Sync Failed with the reason, on the project page and in the Account Database', async () => {
    const katherine: [string, string, string] = ['Katherine', `Johnson${tag}`, `katherine${tag}@example.com`];
    const dorothy: [string, string, string] = ['Dorothy', `Vaughan${tag}`, `dorothy${tag}@example.com`];
    // Someone else already holds Katherine's user name on the directory.
    const taken = await scim<{ id: string }>('/Users', {
      body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: usernameOf(katherine), emails: [{ value: `someone.else${tag}@example.com`, primary: true }], active: true },
    });
    expect(taken.status).toBe(201);

    await openBulkDialog([katherine, dorothy]);
    await dialog().getByLabel('Project name').fill(`Conflict ${tag}`);
    await platformSection().getByText('Also create these accounts on the platform of an integration').click();
    // The dry run says so before anything is created, and writes nothing.
    const usersBefore = (await scim<ScimList>('/Users?count=1')).body.totalResults;
    await platformSection().getByRole('button', { name: 'Check against platform' }).click();
    const check = platformSection().getByLabel('Check against platform: result');
    await check.getByText('Name taken: will fail: 1').waitFor();
    await check.getByText('New: 1').waitFor();
    await check.getByText(`Row 2, ${katherine[2]}`).waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-check'), fullPage: true });
    expect((await scim<ScimList>('/Users?count=1')).body.totalResults).toBe(usersBefore);
    await dialog().getByRole('button', { name: 'Generate Accounts' }).click();
    const progress = dialog().getByRole('group', { name: `Provisioning to ${DIRECTORY}` });
    await progress.getByText('1 synced, 1 failed, 0 pending of 2').waitFor();
    await dialog().getByRole('link', { name: 'View project' }).click();

    const counts = page.getByRole('region', { name: 'On the platform' });
    await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 1 Sync Failed 1 Pending 0');
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    const failedRow = table.getByRole('row').filter({ hasText: `Johnson${tag}` });
    await failedRow.getByText('Sync Failed', { exact: true }).filter({ visible: true }).waitFor();
    const reason = `The user name "${usernameOf(katherine)}" is already taken on the platform by another person (someone.else${tag}@example.com).`;
    await failedRow.getByText(reason).filter({ visible: true }).waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-project-failed'), fullPage: true });

    // The same in the Account Database.
    await page.goto(`${app}/accounts`);
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill(`Johnson${tag}`);
    const found = page.getByRole('table').getByRole('row').filter({ hasText: `Johnson${tag}` });
    await found.getByText('Sync Failed', { exact: true }).filter({ visible: true }).waitFor();
    await found.getByText(reason).filter({ visible: true }).waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-accounts-failed') });
  });

  it('looks right in light and dark, on a desktop and a 390 px phone (no sideways scrolling of the page, no axe violation)', async () => {
    const conflict = `Conflict ${tag}`;
    const [project] = (await user.json<Project[]>('/api/projects')).filter((entry) => entry.name === conflict);
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
        const name = `${theme}-${width > 600 ? 'desktop' : 'phone'}`;
        await page.goto(`${app}/projects/${project!.id}`);
        await page.waitForFunction((dark) => document.documentElement.classList.contains('dark') === dark, theme === 'dark');
        const counts = page.getByRole('region', { name: 'On the platform' });
        await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 1 Sync Failed 1 Pending 0');
        await page.getByRole('table', { name: 'Accounts of this project' }).getByText(/is already taken on the platform/).filter({ visible: true }).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: screenshotPath(`provisioning-project-${name}`), fullPage: true });
        expect(await axeViolations(page)).toEqual([]);

        await openBulkDialog(people.slice(0, 2));
        await platformSection().getByText('Also create these accounts on the platform of an integration').click();
        await platformSection().scrollIntoViewIfNeeded();
        await page.screenshot({ path: screenshotPath(`provisioning-bulk-section-${name}`) });
        // The file's preview scrolls sideways on a phone: it must be reachable by keyboard.
        expect(await axeViolations(page)).toEqual([]);
        await dialog().getByRole('button', { name: 'Cancel' }).click();
        await dialog().waitFor({ state: 'hidden' });
      }
    }
    await page.evaluate(() => localStorage.removeItem('theme'));
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('Retry failed syncs the failed person once their user name is free on the platform, and only them', async () => {
    const katherine: [string, string, string] = ['Katherine', `Johnson${tag}`, `katherine${tag}@example.com`];
    const other = await directoryUser(usernameOf(katherine));
    expect(other?.emails?.[0]?.value).toBe(`someone.else${tag}@example.com`);
    expect((await scim(`/Users/${other!.id}`, { method: 'DELETE' })).status).toBe(204);
    const [project] = (await user.json<Project[]>('/api/projects')).filter((entry) => entry.name === `Conflict ${tag}`);
    await page.goto(`${app}/projects/${project!.id}`);
    const counts = page.getByRole('region', { name: 'On the platform' });
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    await counts.getByRole('button', { name: 'Retry failed' }).click();
    await toast('Retry started').waitFor();
    await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 2 Sync Failed 0 Pending 0');
    await expect.poll(() => table.getByText('Synced', { exact: true }).filter({ visible: true }).count()).toBe(2);
    expect(await counts.getByRole('button', { name: 'Retry failed' }).count()).toBe(0);
    expect((await directoryUser(usernameOf(katherine)))?.emails?.[0]?.value).toBe(katherine[2]);
    const [after] = (await user.json<Project[]>('/api/projects')).filter((entry) => entry.id === project!.id);
    expect(await user.json<ProvisioningJob>(`/api/provisioning-jobs/${after!.provisioningJobId}`)).toMatchObject({ mode: 'retry', status: 'completed', total: 1, synced: 1, failed: 0, pending: 0 });
  });

  it('Undo on platform asks first, then deactivates the accounts there and keeps them here marked Removed', async () => {
    const counts = page.getByRole('region', { name: 'On the platform' });
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    await counts.getByRole('button', { name: 'Undo on platform' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Undo on platform?' });
    await confirm.getByText(`The 2 synced accounts of Conflict ${tag} will be deactivated or deleted`, { exact: false }).waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-undo-confirm'), animations: 'disabled' });
    await confirm.getByRole('button', { name: 'Undo on platform' }).click();
    await toast('Undo started').waitFor();
    await confirm.waitFor({ state: 'hidden' });
    await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 0 Sync Failed 0 Removed 2 Pending 0');
    await counts.getByRole('group', { name: `Undo on ${DIRECTORY}` }).getByText('2 removed, 0 failed, 0 pending of 2').waitFor();
    await expect.poll(() => table.getByText('Removed from platform', { exact: true }).filter({ visible: true }).count()).toBe(2);
    await page.screenshot({ path: screenshotPath('provisioning-project-removed'), fullPage: true });
    // The SCIM adapter's default undo deactivates: the person is still on the directory, inactive.
    const katherine = await directoryUser(baseUsername('Katherine', `Johnson${tag}`, year));
    expect(katherine?.active).toBe(false);
    expect(await counts.getByRole('button', { name: 'Undo on platform' }).count()).toBe(0);
  });

  it('pauses a run whose credentials the platform refuses, says why with the way to the integration, and resumes once it is edited and tested', async () => {
    // The directory's token is changed to one it refuses.
    await page.goto(`${app}/integrations`);
    const item = page.getByRole('region', { name: 'Active Integrations' }).getByRole('listitem').filter({ hasText: DIRECTORY });
    const editToken = async (token: string) => {
      await item.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('dialog', { name: 'Edit Integration' });
      const field = edit.getByLabel('Token (optional)');
      expect(await field.getAttribute('placeholder')).toBe('Stored - leave empty to keep');
      await field.fill(token);
      await edit.getByRole('button', { name: 'Save Changes' }).click();
      await toast('Integration saved').waitFor();
      await edit.waitFor({ state: 'hidden' });
      // What comes next is Test: the toast leaves it clear.
      await expectToastClearOf(page, { "the integration's Test button": item.getByRole('button', { name: 'Test' }) });
    };
    await editToken('not-the-directory-token');

    const rows = [
      { firstName: 'Mary', lastName: `Jackson${tag}`, email: `mary${tag}@example.com` },
      { firstName: 'Annie', lastName: `Easley${tag}`, email: `annie${tag}@example.com` },
    ];
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: `Paused ${tag}`, csvData: rows } });
    await page.goto(`${app}/projects/${created.project.id}`);
    const counts = page.getByRole('region', { name: 'On the platform' });
    await counts.getByText('These accounts have not been created on a platform.', { exact: false }).waitFor();
    await counts.getByRole('button', { name: 'Provision to...' }).click();
    const choose = page.getByRole('dialog', { name: 'Provision to...' });
    await choose.getByText(`Create the 2 pending accounts of Paused ${tag} on a platform.`).waitFor();
    expect(await choose.getByRole('combobox', { name: 'Integration' }).locator('option', { hasText: 'Workday HR' }).isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('provisioning-provision-to-dialog'), animations: 'disabled' });
    await choose.getByRole('button', { name: 'Start provisioning' }).click();
    await toast('Provisioning started').waitFor();
    await choose.waitFor({ state: 'hidden' });
    await expectToastClearOf(page, { 'the provisioning counts': counts.getByRole('group', { name: `Provisioning to ${DIRECTORY}` }) });

    const run = counts.getByRole('group', { name: `Provisioning to ${DIRECTORY}` });
    await run.getByText('Paused', { exact: true }).waitFor();
    await run.getByText(PAUSED_CREDENTIALS).waitFor();
    await run.getByText('0 synced, 0 failed, 2 pending of 2').waitFor();
    // Nobody is failed for the integration's fault, and nothing starts twice meanwhile.
    expect(await counts.getByRole('button', { name: 'Provision to...' }).isDisabled()).toBe(true);
    await page.screenshot({ path: screenshotPath('provisioning-project-paused'), fullPage: true });

    await run.getByRole('link', { name: 'Open API Integrations' }).click();
    await page.getByRole('heading', { name: 'API Integrations', level: 1 }).waitFor();
    await editToken(tenantToken);
    await item.getByRole('button', { name: 'Test' }).click();
    await item.getByText('Test passed', { exact: true }).waitFor();

    await page.goto(`${app}/projects/${created.project.id}`);
    await expect.poll(async () => (await counts.locator('dl').innerText()).replace(/\s+/g, ' ')).toBe('Synced 2 Sync Failed 0 Pending 0');
    await run.getByText('Completed', { exact: true }).waitFor();
    for (const row of rows) expect((await directoryUser(baseUsername(row.firstName, row.lastName, year)))?.emails?.[0]?.value).toBe(row.email);
  });
});
