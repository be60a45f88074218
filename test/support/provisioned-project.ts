import { afterAll, afterEach, expect, inject } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { Project } from '../../shared/schemas/project';
import { apiUser, upgradeToPro, type ApiUser } from './api';
import { useTheme } from './a11y';
import { launchChromium, screenshotPath, signInThroughApp } from './browser';
import { until } from './until';

export interface Person {
  firstName: string;
  lastName: string;
  email: string;
}

/** The stack's Local SCIM directory as an integration's settings (what its quick-setup card fills in). */
export const localScimDirectory = () => {
  const { scim } = inject('stack');
  return { name: 'Local SCIM directory', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token: scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } };
};

/** What a provisioned project may need beyond its people. */
export interface ProvisionedProjectOptions {
  /** The project's expiration date (YYYY-MM-DD). */
  expirationDate?: string;
  /** Of `people`, those whose user names someone else already holds on the directory: their sync fails. */
  failingToSync?: readonly Person[];
}

/** Someone else holding `person`'s user name (as the app generates it this year) on the stack's Local SCIM directory. */
async function takeUsernameOnScim(person: Person): Promise<void> {
  const { scim } = inject('stack');
  const taken = await fetch(`${scim.url}/Users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scim.token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: baseUsername(person.firstName, person.lastName, usernameYear(new Date())), emails: [{ value: `someone.else.${person.email}`, primary: true }], active: true }),
  });
  expect(taken.status).toBe(201);
}

/**
 * Through the API, as the app would: the user upgraded to Pro, the Local SCIM directory added as an
 * integration, and a project of `people` created and provisioned there; answers once the run completed.
 */
export async function provisionedProject(user: ApiUser, projectName: string, people: readonly Person[], options: ProvisionedProjectOptions = {}): Promise<{ project: Project; integration: Integration; run: ProvisioningJob }> {
  await upgradeToPro(user);
  for (const person of options.failingToSync ?? []) await takeUsernameOnScim(person);
  const integration = await user.json<Integration>('/api/integrations', { body: localScimDirectory() });
  const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
    body: { projectName, ...(options.expirationDate ? { expirationDate: options.expirationDate } : {}), csvData: people, apiIntegrationId: integration.id, createExternalAccounts: true },
  });
  const run = await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (r) => r.status === 'completed');
  return { project: created.project, integration, run };
}

/**
 * The set-up of the e2e files that work on a provisioned project's accounts (account actions,
 * account edit, Reset Passwords, the bulk bar, expiry): a page of its own (1280 x 900) signed in
 * through the app's sign-in screen as a new user who has such a project. The sign-in and the API
 * set-up do not depend on each other and run side by side; the caller closes `browser` after its
 * tests (see `closedAfterTests`).
 */
export async function signedInWithProvisionedProject(
  names: { firstName: string; lastName: string },
  projectName: string,
  people: readonly Person[],
  options: ProvisionedProjectOptions = {},
): Promise<{ browser: Browser; page: Page; user: ApiUser; project: Project; run: ProvisioningJob }> {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const user = await apiUser(names);
    const [{ project, run }] = await Promise.all([provisionedProject(user, projectName, people, options), signInThroughApp(page, inject('stack').urls.app, user)]);
    return { browser, page, user, project, run };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * The hooks of such a describe block: a screenshot of the page named `failed-<file>-<test>` when a
 * test fails; after its tests the stored theme choice removed and the browser closed. `opened`
 * reads the block's browser and page (set in its beforeAll).
 */
export function closedAfterTests(file: string, opened: () => { browser?: Browser; page?: Page }): void {
  afterAll(async () => {
    const { browser, page } = opened();
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await opened().page?.screenshot({ path: screenshotPath(`failed-${file}-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });
}

/**
 * The project page in the looks these files check beyond light at 1280 px: dark at 1280 px, then
 * dark and light at 390 px (390 x 844, a phone); `check` runs on each, told which.
 */
export async function onProjectPageInEachLook(page: Page, projectId: string, check: (theme: 'light' | 'dark', width: number) => Promise<void>): Promise<void> {
  for (const [theme, width] of [
    ['dark', 1280],
    ['dark', 390],
    ['light', 390],
  ] as const) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto(`${inject('stack').urls.app}/projects/${projectId}`);
    await useTheme(page, theme);
    await check(theme, width);
  }
}
