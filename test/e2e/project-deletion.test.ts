import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Project } from '../../shared/schemas/project';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { timeOrderedId } from '../../functions/core/ids';
import { apiUser, people, testDb, type ApiUser } from '../support/api';
import { axeViolations, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { provisionedProject } from '../support/provisioned-project';
import { until } from '../support/until';

const stack = inject('stack');
const app = stack.urls.app;
const desktop = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Delete project, as a person does it: a free user at the project limit opens a project, reads the
 * confirmation (the counts), deletes it, lands on Projects with a toast and makes a new project at
 * once. A Pro user's provisioned project offers to remove the accounts from the platform too, with
 * what the platform does. Light and dark, desktop and 390 px; axe on the dialog.
 */
describe('Delete project in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  const tag = `${Date.now() % 100_000}`;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: desktop })).newPage();
    user = await apiUser({ firstName: 'Dele', lastName: 'Tester' });
    for (const n of [1, 2, 3]) await user.json('/api/bulk-create', { body: { projectName: `Cohort ${n} ${tag}`, csvData: people(n === 2 ? 40 : 3, `Del${n}x${tag}`) } });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-project-deletion-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it('a free user deletes a project after a confirmation that names the counts, lands on Projects, and creates a new project at once', async () => {
    const doomed = (await user.json<Project[]>('/api/projects')).find((p) => p.name === `Cohort 2 ${tag}`)!;
    await page.goto(`${app}/bulk-creator`);
    await page.getByText('You have reached your project limit.').waitFor();

    await page.goto(`${app}/projects/${doomed.id}`);
    await page.getByRole('heading', { name: `Cohort 2 ${tag}`, level: 1 }).waitFor();
    const title = `Delete "Cohort 2 ${tag}" and its 40 accounts?`;
    const dialog = page.getByRole('alertdialog', { name: title });
    for (const [theme, viewport] of [['light', desktop], ['dark', desktop], ['dark', phone], ['light', phone]] as const) {
      await useTheme(page, theme);
      await page.setViewportSize(viewport);
      await page.getByRole('button', { name: 'Delete project' }).click();
      await dialog.waitFor();
      // No platform here: nothing to ask about one.
      expect(await dialog.getByRole('checkbox').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath(`project-delete-confirm-${theme}-${viewport.width}`) });
      if (theme === 'light' && viewport === phone) break;
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
    }
    await page.setViewportSize(desktop);
    // The page it leaves never says 'Project not found' on the way (its list is read again only on Projects).
    await page.evaluate(() => {
      const seen = window as unknown as { notFoundSeen?: boolean };
      new MutationObserver(() => {
        if (document.body.innerText.includes('Project not found')) seen.notFoundSeen = true;
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await page.waitForURL(`${app}/projects`);
    await page.getByText(`"Cohort 2 ${tag}" and its 40 accounts were deleted.`).waitFor();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { notFoundSeen?: boolean }).notFoundSeen ?? false)).toBe(false);
    await page.screenshot({ path: screenshotPath('project-deleted-toast-light') });
    await page.getByRole('article', { name: `Cohort 1 ${tag}` }).waitFor();
    expect(await page.getByRole('article', { name: `Cohort 2 ${tag}` }).count()).toBe(0);

    // The plan's place is free at once: a new project by manual entry.
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('tab', { name: 'Manual Entry' }).click();
    await page.getByLabel('Project name').fill(`Cohort 4 ${tag}`);
    await page.getByLabel('First name').fill('Newcomer');
    await page.getByLabel('Last name').fill('Tester');
    await page.getByLabel('Email').fill(`newcomer.${tag}@example.com`);
    await page.getByRole('button', { name: 'Create Accounts' }).click();
    await until('the new project', () => user.json<Project[]>('/api/projects'), (list) => list.some((p) => p.name === `Cohort 4 ${tag}`), 90_000, 300);
    await page.goto(`${app}/projects`);
    await page.getByRole('article', { name: `Cohort 4 ${tag}` }).waitFor();
    expect(await page.getByRole('article').count()).toBe(3);
  });

  it("a project being deleted says 'Deleting...' with its progress on its card and its page", async () => {
    const project = (await user.json<Project[]>('/api/projects')).find((p) => p.name === `Cohort 1 ${tag}`)!;
    // A deletion under way, as its job and lock look while it runs (its chunks are not run here).
    const jobId = timeOrderedId();
    const at = new Date().toISOString();
    await testDb().send(
      new PutCommand({
        TableName: 'bulkonboard',
        Item: { ...keys.projectDeletion(user.sub, jobId), entityType: 'ProjectDeletion', id: jobId, userId: user.sub, projectId: project.id, projectName: project.name, status: 'running', total: 3, removed: 1, removedOnPlatform: 0, kept: 0, removeFromPlatform: false, chunks: 2, chunksDone: 0, createdAt: at, updatedAt: at },
      }),
    );
    const key = keys.project(user.sub, project.id);
    await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: key, UpdateExpression: 'SET activeProjectDeletion = :job, projectDeletionId = :job', ExpressionAttributeValues: { ':job': jobId } }));
    try {
      for (const theme of ['light', 'dark'] as const) {
        await useTheme(page, theme);
        await page.goto(`${app}/projects`);
        const card = page.getByRole('article', { name: project.name });
        await card.getByText('Deleting...').waitFor();
        await card.getByText('1 of 3 accounts deleted').waitFor();
        expect(await axeViolations(page)).toEqual([]);
        await page.screenshot({ path: screenshotPath(`project-deleting-card-${theme}`) });
        await page.goto(`${app}/projects/${project.id}`);
        await page.getByTestId('project-deleting').getByText('1 of 3 accounts deleted').waitFor();
        expect(await page.getByRole('button', { name: 'Deleting...' }).isDisabled()).toBe(true);
        await page.screenshot({ path: screenshotPath(`project-deleting-page-${theme}`) });
      }
    } finally {
      await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: key, UpdateExpression: 'REMOVE activeProjectDeletion, projectDeletionId' }));
      await useTheme(page, 'light');
    }
  });

  it("a provisioned project's dialog offers to remove the accounts from the platform too (on by default), saying what the platform does", async () => {
    const pro = await apiUser({ firstName: 'Prov', lastName: 'Deleter' });
    const context = await browser.newContext({ viewport: desktop });
    const proPage = await context.newPage();
    try {
      // The sign-in beside the API set-up: neither waits for the other.
      const [{ project }] = await Promise.all([provisionedProject(pro, `Synced ${tag}`, people(3, `Syn${tag}`)), signInThroughApp(proPage, app, pro)]);
      await proPage.goto(`${app}/projects/${project.id}`);
      await proPage.getByRole('button', { name: 'Delete project' }).click();
      const dialog = proPage.getByRole('alertdialog', { name: `Delete "Synced ${tag}" and its 3 accounts?` });
      const checkbox = dialog.getByRole('checkbox', { name: 'Remove the accounts from Local SCIM directory too' });
      expect(await checkbox.isChecked()).toBe(true);
      await dialog.getByText('The SCIM provider deletes the user (DELETE).').waitFor();
      expect(await axeViolations(proPage)).toEqual([]);
      await proPage.screenshot({ path: screenshotPath('project-delete-confirm-platform-light') });
      await dialog.getByText('Remove the accounts from Local SCIM directory too').click();
      await dialog.getByText('The 3 accounts on Local SCIM directory stay there').waitFor();
      await dialog.getByText('Remove the accounts from Local SCIM directory too').click();
      // The race a busy machine made (CI, 2026-11-29): the list the page reads again after the
      // DELETE was answered once the project was gone, before the page had seen its deletion end.
      // Made certain here: that list waits until the project is gone, and the deletion's progress
      // until that list has reached the page. The page says 'Deleting...' meanwhile, never
      // 'Project not found', and leaves for Projects with the toast once it sees the end.
      let listServed = false;
      await proPage.route(`${app}/api/projects`, async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        await until('the project gone', () => pro.json<Project[]>('/api/projects'), (list) => !list.some((candidate) => candidate.id === project.id), 90_000, 200);
        await route.continue();
        listServed = true;
      });
      await proPage.route(`${app}/api/project-deletions/*`, async (route) => {
        await until('the list read again without the project', () => Promise.resolve(listServed), (served) => served, 90_000, 50);
        await route.continue();
      });
      await proPage.evaluate(() => {
        const seen = window as unknown as { notFoundSeen?: boolean };
        new MutationObserver(() => {
          if (document.body.innerText.includes('Project not found')) seen.notFoundSeen = true;
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      await dialog.getByRole('button', { name: 'Delete project' }).click();
      // Said in words while it ends, not a bare skeleton.
      await proPage.getByRole('status', { name: 'Deleting the project' }).filter({ hasText: 'Deleting...' }).waitFor();
      await proPage.waitForURL(`${app}/projects`);
      await proPage.getByText(`"Synced ${tag}" and its 3 accounts were deleted.`).waitFor();
      expect(await proPage.evaluate(() => (window as unknown as { notFoundSeen?: boolean }).notFoundSeen ?? false)).toBe(false);
    } catch (error) {
      // The afterEach screenshots `page`; this test's page closes with its context.
      await proPage.screenshot({ path: screenshotPath('failed-project-deletion-provisioned') }).catch(() => undefined);
      throw error;
    } finally {
      await context.close();
    }
  });
});
