/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { issueCredentialLink } from '../../functions/credential-links/issue-credential-link';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { axeViolations, describeViolations } from '../support/a11y';
import { apiUser, testDb, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;
const db = testDb();
const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));

describe('one-time credential link page in Chromium', () => {
  let browser: Browser;
  let owner: ApiUser;
  let project: Project;
  let accounts: CreatedAccount[];
  const contexts: BrowserContext[] = [];
  let current: Page | undefined;

  /** A link for an account as the sender issues it. */
  const linkFor = async (account: CreatedAccount, now?: Date, companyName?: string) => {
    const { Items = [] } = await db.send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(owner.sub, project.id).PK } }));
    const item = Items.find((i) => i.id === account.id)!;
    const issued = await issueCredentialLink(
      { db, tableName: 'bulkonboard', cipher, appUrl: app, ...(now ? { now: () => now } : {}) },
      { userId: owner.sub, projectId: project.id, accountId: account.id, accountPK: String(item.PK), accountSK: String(item.SK), sendId: timeOrderedId(), expiresInDays: 3, ...(companyName ? { companyName } : {}) },
    );
    return issued.url;
  };

  /** A fresh browser profile: nobody is signed in, in the chosen theme and width. */
  const signedOutPage = async (theme: 'light' | 'dark', width = 1280) => {
    const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 } });
    contexts.push(context);
    await context.addInitScript((value) => localStorage.setItem('theme', value), theme);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    current = await context.newPage();
    return current;
  };

  const noViolations = async (page: Page, screen: string) => expect(describeViolations(screen, await axeViolations(page))).toEqual([]);

  beforeAll(async () => {
    browser = await launchChromium();
    owner = await apiUser({ firstName: 'Link', lastName: 'Sender' });
    const created = await owner.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
      body: {
        projectName: 'Harbour Clinic <staff>',
        platformUrl: 'https://portal.example.com/login',
        csvData: Array.from({ length: 5 }, (_, i) => ({ firstName: `Nurse${i}`, lastName: 'Holder', email: `nurse${i}@example.com` })),
      },
    });
    project = created.project;
    accounts = created.accounts;
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await current?.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-').slice(0, 40)}`) }).catch(() => undefined);
  });

  it('signed out: loading the page reveals nothing; the button shows the credentials once; a reload says used', async () => {
    const account = accounts[0]!;
    const url = await linkFor(account);
    const page = await signedOutPage('light');
    await page.goto(url);
    await page.getByRole('heading', { name: 'Your account credentials', level: 1 }).waitFor();
    await page.getByText('Harbour Clinic <staff>').waitFor();
    expect(page.url()).toBe(url);
    expect(await page.locator('meta[name="referrer"]').getAttribute('content')).toBe('no-referrer');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toContain('noindex');
    expect(await page.content()).not.toContain(account.plainPassword);
    await noViolations(page, 'credential link ready (light)');
    await page.screenshot({ path: screenshotPath('credential-link-ready-light') });

    // Loading it again (a scanner, the holder twice) spent nothing.
    await page.reload();
    await page.getByRole('button', { name: 'Show my credentials' }).click();
    await page.getByText(account.plainPassword, { exact: true }).waitFor();
    await page.getByText(account.username, { exact: true }).waitFor();
    await page.getByText('They will not be shown again').waitFor();
    expect(await page.getByRole('link', { name: 'Go to sign-in' }).getAttribute('href')).toBe('https://portal.example.com/login');
    await page.getByRole('button', { name: 'Copy password' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(account.plainPassword);
    await noViolations(page, 'credential link revealed (light)');
    await page.screenshot({ path: screenshotPath('credential-link-revealed-light') });

    await page.reload();
    await page.getByRole('heading', { name: 'These credentials were already shown', level: 1 }).waitFor();
    await page.getByText('Ask the person who sent you the link (Harbour Clinic <staff>) for a new one.').waitFor();
    expect(await page.content()).not.toContain(account.plainPassword);
    await noViolations(page, 'credential link used (light)');
    await page.screenshot({ path: screenshotPath('credential-link-used-light') });
  });

  it('the owner sees Credentials viewed on the account, the others not', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    current = await context.newPage();
    await signInThroughApp(current, app, owner);
    await current.goto(`${app}/projects/${encodeURIComponent(project.id)}`);
    const row = current.getByRole('row').filter({ hasText: accounts[0]!.email });
    await row.getByText(/^Credentials viewed /).waitFor();
    expect(await current.getByText(/^Credentials viewed /).count()).toBe(1);
    await row.screenshot({ path: screenshotPath('credential-link-account-viewed-marker') });
    // Opening a link while signed in shows the same public page, and sends no session along.
    const url = await linkFor(accounts[1]!);
    const requests: { url: string; authorization?: string }[] = [];
    current.on('request', (request) => requests.push({ url: request.url(), authorization: request.headers().authorization }));
    await current.goto(url);
    await current.getByRole('button', { name: 'Show my credentials' }).waitFor();
    const linkCalls = requests.filter((r) => r.url.includes('/api/credential-links/'));
    expect(linkCalls.length).toBeGreaterThan(0);
    // The token (the URL's fragment) reaches no server in any URL: only in the POST bodies.
    const token = new URL(url).hash.slice(1);
    expect(token).toHaveLength(43);
    expect(requests.every((r) => !r.url.includes(token))).toBe(true);
    expect(linkCalls.every((r) => r.authorization === undefined)).toBe(true);
  });

  it('dark theme and phone width: ready, revealed, expired and not valid', async () => {
    const page = await signedOutPage('dark', 390);
    await page.goto(await linkFor(accounts[2]!));
    await page.getByRole('button', { name: 'Show my credentials' }).waitFor();
    await noViolations(page, 'credential link ready (dark, phone)');
    await page.screenshot({ path: screenshotPath('credential-link-ready-dark-phone'), fullPage: true });
    await page.getByRole('button', { name: 'Show my credentials' }).click();
    await page.getByText(accounts[2]!.plainPassword, { exact: true }).waitFor();
    // Nothing runs off the side of a phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await noViolations(page, 'credential link revealed (dark, phone)');
    await page.screenshot({ path: screenshotPath('credential-link-revealed-dark-phone'), fullPage: true });

    await page.goto(await linkFor(accounts[3]!, new Date(Date.now() - 5 * 86_400_000)));
    await page.getByRole('heading', { name: 'This link has expired', level: 1 }).waitFor();
    await page.getByText('Ask the person who sent you the link (Harbour Clinic <staff>) for a new one.').waitFor();
    await noViolations(page, 'credential link expired (dark, phone)');
    await page.screenshot({ path: screenshotPath('credential-link-expired-dark-phone'), fullPage: true });

    await page.goto(`${app}/credentials/${'A'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This link is not valid', level: 1 }).waitFor();
    await noViolations(page, 'credential link not valid (dark, phone)');
    await page.screenshot({ path: screenshotPath('credential-link-invalid-dark-phone'), fullPage: true });
  });

  it('names the sender the e-mail names (the company), the project as what the account is for', async () => {
    const account = accounts[4]!;
    const url = await linkFor(account, undefined, 'Acme Health');
    const page = await signedOutPage('light');
    await page.goto(url);
    await page.getByText('Acme Health sent you the username and password of your new account in Harbour Clinic <staff>.').waitFor();
    await page.getByRole('button', { name: 'Show my credentials' }).click();
    await page.getByText(account.plainPassword, { exact: true }).waitFor();
    await page.getByText('From Acme Health, for Harbour Clinic <staff>').waitFor();
    await page.reload();
    await page.getByText('Ask the person who sent you the link (Acme Health, Harbour Clinic <staff>) for a new one.').waitFor();
  });
});
