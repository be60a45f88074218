import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { sqsMailSender } from '../../functions/mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects } from '../../functions/schedules/sweep-expired-projects';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { PROJECT_EXPIRED_MESSAGE, type AccountView, type Page as ListPage, type Project } from '../../shared/schemas/project';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

/**
 * Expiry as a person sees it: a project provisioned to the Local SCIM directory whose expiration
 * date has come (the hourly sweep run with the clock moved to that date), its page, its card and
 * the dashboard say 'Expired', and so does each account (and its history). Light and dark,
 * desktop and 390 px, axe clean.
 */
describe('An expired project, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;
  const tag = `${Date.now() % 100_000}`;
  const people = ['Ada', 'Ben'].map((first) => ({ firstName: `${first}${tag}`, lastName: 'Expiry', email: `${first.toLowerCase()}.exp${tag}@example.com` }));

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Expiry', lastName: 'Tester' });
    await upgradeToPro(user);
    const integration = await user.json<Integration>('/api/integrations', {
      body: { name: 'Local SCIM directory', platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: `Expiring ${tag}`, expirationDate: '2035-06-01', csvData: people, apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    project = created.project;
    await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (run) => run.status === 'completed');

    // The schedule's run, with the clock moved to the morning of the date (UTC, the user's timezone).
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials }));
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials });
    const result = await sweepExpiredProjects({
      db,
      tableName: 'bulkonboard',
      queue: sqsProvisioningQueue(sqs, stack.queueUrls.provisioning!),
      mail: sqsMailSender(sqs, stack.queueUrls.mail!),
      now: () => new Date('2035-06-01T09:00:00Z'),
      newId: timeOrderedId,
      integrationName: async (userId, id) => (await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.integration(userId, id) }))).Item?.name as string | undefined,
    })();
    const jobId = result.started.find((s) => s.projectId === project.id)?.jobId;
    expect(jobId).toBeDefined();
    await until('the expiry', () => user.json<AccountActionJob>(`/api/account-actions/${jobId!}`), (job) => job.status === 'completed');
    db.destroy();
    sqs.destroy();
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-project-expiry-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  const accountsTable = () => page.getByRole('table', { name: 'Accounts of this project' });

  it("shows Expired on the project page and on each account, and the history says so; the accounts are inactive on the directory", async () => {
    const accounts = (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts`)).items;
    for (const account of accounts) {
      const answer = await fetch(`${stack.scim.url}/Users?filter=${encodeURIComponent(`userName eq "${account.username}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
      expect(((await answer.json()) as { Resources?: { active?: boolean }[] }).Resources?.[0]?.active).toBe(false);
    }
    await page.goto(`${app}/projects/${project.id}`);
    await page.getByRole('heading', { name: `Expiring ${tag}` }).waitFor();
    await page.locator('main').getByText('Expired', { exact: true }).first().waitFor();
    await page.locator('main').getByText('Expired 06/01/2035', { exact: true }).waitFor();
    // An expired project takes no new people: Add people is disabled, saying why.
    const addPeople = page.getByRole('button', { name: 'Add people' });
    expect(await addPeople.isDisabled()).toBe(true);
    expect(await addPeople.getAttribute('title')).toBe(PROJECT_EXPIRED_MESSAGE);
    for (const person of people) await accountsTable().getByRole('row').filter({ hasText: person.email }).getByText('Expired', { exact: true }).locator('visible=true').waitFor();
    expect(await accountsTable().getByText('Deactivated', { exact: true }).locator('visible=true').count()).toBe(0);
    await settle(page);
    expect(describeViolations('expired project (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('project-expired-light') });

    await page.getByRole('button', { name: `Actions for ${people[0]!.firstName} Expiry` }).click();
    const history = page.getByRole('menuitem', { name: 'History' });
    await history.waitFor();
    await settle(page);
    await history.click();
    const drawer = page.getByRole('dialog', { name: `History of ${people[0]!.firstName} Expiry` });
    await drawer.locator('[data-kind="expired"]').getByText('Expired', { exact: true }).waitFor();
    await settle(page);
    expect(describeViolations('expired account history (light)', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('project-expired-history-light') });
    await drawer.getByRole('button', { name: 'Close the history' }).click();
    await drawer.waitFor({ state: 'hidden' });
  });

  it('the project card and the dashboard say Expired too', async () => {
    await page.goto(`${app}/projects`);
    const card = page.getByRole('article', { name: `Expiring ${tag}` });
    await card.getByText('Expired', { exact: true }).waitFor();
    await page.goto(`${app}/`);
    const recent = page.locator('main li').filter({ has: page.getByRole('link', { name: `Expiring ${tag}` }) });
    await recent.getByText('Expired', { exact: true }).waitFor();
    await settle(page);
    await page.screenshot({ path: screenshotPath('project-expired-dashboard-light') });
  });

  it('dark, and at 390 px: the project page passes axe', async () => {
    for (const [theme, width] of [
      ['dark', 1280],
      ['dark', 390],
      ['light', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app}/projects/${project.id}`);
      await useTheme(page, theme);
      await page.getByRole('heading', { name: `Expiring ${tag}` }).waitFor();
      await page.locator('main').getByText('Expired', { exact: true }).first().waitFor();
      await settle(page);
      expect(describeViolations(`expired project (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`project-expired-${theme}-${width}`), fullPage: true });
    }
  });
});
