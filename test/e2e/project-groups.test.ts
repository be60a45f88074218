/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Integration } from '../../shared/schemas/integrations';
import type { AccountView, Page as ListPage, Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { people, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { openProjectEdit, screenshotPath, userInChromium } from '../support/browser';
import { localScimDirectory } from '../support/provisioned-project';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;
const themes = ['light', 'dark'] as const;

/**
 * A project's platform groups in Chromium (issue 28 item 5): a free user meets the upgrade prompt;
 * a Pro user names two groups in the project's Edit (chips, 'Create groups that do not exist'),
 * the project page lists them, and once provisioned to the stack's Local SCIM directory every
 * account is a member of both there; a new project from the Bulk Creator names its group beside
 * its platform, and its accounts join it. The dialogs and the page axe-clean, light and dark,
 * 1280 and 390 px wide.
 */
describe('project groups (Chromium)', () => {
  const session = userInChromium('project-groups', { firstName: 'Gia', lastName: 'Groups' });
  let page: Page;
  let user: ApiUser;
  let project: Project;
  // The stack's directory is shared with other files: names of this run only.
  const tag = randomBytes(3).toString('hex');
  const groups = [`Staff ${tag}`, `Interns ${tag}`];

  beforeAll(async () => {
    ({ page, user } = session);
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Grouped', csvData: people(3, 'Grouped') } })).project;
  });

  const openEdit = () => openProjectEdit(page, project.id);
  const shot = async (name: string, check: () => Promise<Locator | void>) => {
    const found: string[] = [];
    for (const theme of themes) {
      await useTheme(page, theme);
      await check();
      found.push(...describeViolations(`${name} (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`project-groups-${name}-${theme}`) });
      await page.setViewportSize({ width: 390, height: 844 });
      await settle(page);
      await page.screenshot({ path: screenshotPath(`project-groups-${name}-390-${theme}`), fullPage: true });
      found.push(...describeViolations(`${name} (${theme}, 390 px)`, await axeViolations(page)));
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    return found;
  };

  it('a free user is offered the upgrade instead of the groups field', async () => {
    const dialog = await openEdit();
    await dialog.getByRole('button', { name: 'Add groups' }).click();
    const gate = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await gate.getByText(/Upgrade to Pro to access API Integrations/).waitFor();
    await gate.getByRole('button', { name: 'Maybe Later' }).click();
    await gate.waitFor({ state: 'hidden' });
  });

  it('a Pro user names groups (chips) with the create switch; the project page lists them', async () => {
    await upgradeToPro(user);
    const fill = async () => {
      const dialog = await openEdit();
      const input = dialog.getByRole('textbox', { name: 'Groups on the platform' });
      for (const name of groups) {
        await input.fill(name);
        await input.press('Enter');
      }
      await dialog.getByText(groups[1]!, { exact: true }).waitFor();
      // The label is the switch's clickable row (its input is visually hidden).
      await dialog.getByText('Create groups that do not exist', { exact: true }).click();
      await expect.poll(() => dialog.getByRole('switch', { name: 'Create groups that do not exist' }).isChecked()).toBe(true);
      return dialog;
    };
    expect(await shot('edit-dialog', fill)).toEqual([]);
    const dialog = page.getByRole('dialog', { name: 'Edit project' });
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const shown = page.getByRole('group', { name: 'Groups on the platform' });
    for (const name of groups) await shown.getByText(name, { exact: true }).waitFor();
    await shown.getByText('(created if missing)').waitFor();
    expect((await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)).toMatchObject({ groups, createGroups: true });
  });

  it('provisioned to the Local SCIM directory, every account is a member of both groups there; the page passes axe', async () => {
    const integration = await user.json<Integration>('/api/integrations', { body: localScimDirectory() });
    const run = await user.json<ProvisioningJob>(`/api/projects/${project.id}/provision`, { body: { integrationId: integration.id, mode: 'provision' } });
    expect(await until('the run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${run.id}`), (r) => r.status === 'completed' || r.status === 'failed')).toMatchObject({ status: 'completed', synced: 3 });
    const ids = (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts?limit=10`)).items.map((a) => a.externalAccountId).sort();
    for (const name of groups) {
      const answer = await fetch(`${stack.scim.url}/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
      const found = ((await answer.json()) as { Resources: { members?: { value: string }[] }[] }).Resources;
      expect(found).toHaveLength(1);
      expect((found[0]!.members ?? []).map((m) => m.value).sort()).toEqual(ids);
    }
    const showPage = async () => {
      await page.goto(`${app}/projects/${project.id}`);
      await page.getByRole('group', { name: 'Groups on the platform' }).getByText(groups[0]!, { exact: true }).waitFor();
      await page.getByText('Synced').first().waitFor();
    };
    expect(await shot('page', showPage)).toEqual([]);
    // The Edit names what the project's platform does with groups, before anything is changed.
    const dialog = await openEdit();
    await dialog.getByText(/^Local SCIM directory: The SCIM provider adds each account to the project's groups/).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it("groups changed after provisioning: 'Apply to the 3 accounts already on' the platform, then the action's progress; the accounts move there", async () => {
    const volunteers = `Volunteers ${tag}`;
    const fill = async () => {
      const dialog = await openEdit();
      const input = dialog.getByRole('textbox', { name: 'Groups on the platform' });
      // The last chip (the second group) out with Backspace, a new group in.
      await input.click();
      await input.press('Backspace');
      await input.press('Backspace');
      await input.fill(volunteers);
      await input.press('Enter');
      await dialog.getByText(volunteers, { exact: true }).waitFor();
      const apply = dialog.getByRole('checkbox', { name: 'Apply to the 3 accounts already on Local SCIM directory' });
      await expect.poll(() => apply.isChecked()).toBe(true);
      await apply.scrollIntoViewIfNeeded();
      return dialog;
    };
    expect(await shot('edit-apply', fill)).toEqual([]);
    await page.getByRole('dialog', { name: 'Edit project' }).getByRole('button', { name: 'Save changes' }).click();
    const progress = page.getByRole('alertdialog', { name: /^Update the groups of 3 accounts/ });
    await progress.getByText(/^3 moved to the groups \(3 on Local SCIM directory too\), 0 not changed/).waitFor({ timeout: 60_000 });
    // The progress as it ended (a theme change reloads the page, closing it): this theme, 1280 and 390 px wide.
    expect(describeViolations('apply-progress', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('project-groups-apply-progress') });
    await page.setViewportSize({ width: 390, height: 844 });
    await settle(page);
    await page.screenshot({ path: screenshotPath('project-groups-apply-progress-390') });
    await page.setViewportSize({ width: 1280, height: 900 });
    const ids = (await user.json<ListPage<AccountView>>(`/api/projects/${project.id}/accounts?limit=10`)).items.map((a) => a.externalAccountId).sort();
    const membersOf = async (name: string) => {
      const answer = await fetch(`${stack.scim.url}/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
      const [group] = ((await answer.json()) as { Resources: { members?: { value: string }[] }[] }).Resources;
      return (group?.members ?? []).map((m) => m.value).sort();
    };
    expect(await membersOf(groups[0]!)).toEqual(ids);
    expect(await membersOf(volunteers)).toEqual(ids);
    expect(await membersOf(groups[1]!)).toEqual([]);
    await progress.getByRole('button', { name: 'Close', exact: true }).last().click();
    await progress.waitFor({ state: 'hidden' });
  });

  it('the Bulk Creator names the new project\'s group beside its platform; the accounts join it', async () => {
    const mentors = `Mentors ${tag}`;
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    const platform = dialog.getByRole('group', { name: 'Create accounts on a platform' });
    const fill = async () => {
      await page.goto(`${app}/bulk-creator`);
      await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
      const csv = ['First Name,Last Name,Email', `Mia,Mentor${tag},mia${tag}@example.com`, `Max,Mentor${tag},max${tag}@example.com`].join('\r\n');
      await page.getByLabel('Upload CSV').setInputFiles({ name: 'mentors.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await dialog.getByText('2 valid').waitFor();
      await dialog.getByLabel('Project name').fill(`Mentors ${tag}`);
      await platform.getByText('Also create these accounts on the platform of an integration').click();
      const input = platform.getByRole('textbox', { name: 'Groups on the platform' });
      await input.fill(mentors);
      await input.press('Enter');
      await platform.getByText('Create groups that do not exist', { exact: true }).click();
      await platform.getByText(/^Local SCIM directory: The SCIM provider adds each account/).waitFor();
      await platform.getByText(mentors, { exact: true }).scrollIntoViewIfNeeded();
    };
    expect(await shot('bulk-creator', fill)).toEqual([]);
    await dialog.getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog.getByText('2 synced, 0 failed, 0 pending of 2').waitFor({ timeout: 60_000 });
    const answer = await fetch(`${stack.scim.url}/Groups?filter=${encodeURIComponent(`displayName eq "${mentors}"`)}`, { headers: { authorization: `Bearer ${stack.scim.token}` } });
    const [group] = ((await answer.json()) as { Resources: { members?: { value: string }[] }[] }).Resources;
    expect(group?.members).toHaveLength(2);
  });
});
