import { inject } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { Project } from '../../shared/schemas/project';
import { apiUser, upgradeToPro, type ApiUser } from './api';
import { launchChromium, signInThroughApp } from './browser';
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

/**
 * Through the API, as the app would: the user upgraded to Pro, the Local SCIM directory added as an
 * integration, and a project of `people` created and provisioned there; answers once the run completed.
 */
export async function provisionedProject(user: ApiUser, projectName: string, people: readonly Person[]): Promise<{ project: Project; integration: Integration }> {
  await upgradeToPro(user);
  const integration = await user.json<Integration>('/api/integrations', { body: localScimDirectory() });
  const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
    body: { projectName, csvData: people, apiIntegrationId: integration.id, createExternalAccounts: true },
  });
  await until('the provisioning run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${created.summary.provisioningJobId!}`), (run) => run.status === 'completed');
  return { project: created.project, integration };
}

/**
 * The set-up of the e2e files that work on a provisioned project's accounts (account actions,
 * account edit, Reset Passwords): a page of its own (1280 x 900) signed in through the app's sign-in
 * screen as a new user who has such a project. The sign-in and the API set-up do not depend on
 * each other and run side by side; the caller closes `browser` after its tests.
 */
export async function signedInWithProvisionedProject(names: { firstName: string; lastName: string }, projectName: string, people: readonly Person[]): Promise<{ browser: Browser; page: Page; user: ApiUser; project: Project }> {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const user = await apiUser(names);
    const [{ project }] = await Promise.all([provisionedProject(user, projectName, people), signInThroughApp(page, inject('stack').urls.app, user)]);
    return { browser, page, user, project };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
