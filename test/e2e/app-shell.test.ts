/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { confirmationCode, launchChromium, passFirstRun, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

const navigation = [
  ['Dashboard', '/', 'Dashboard'],
  ['Projects', '/projects', 'Projects'],
  ['Bulk Creator', '/bulk-creator', 'Bulk Account Creator'],
  ['Integrations', '/integrations', 'API Integrations'],
  ['Account Database', '/accounts', 'Account Database'],
  ['Export Center', '/exports', 'Export Center'],
  ['Email Templates', '/email-templates', 'Email Templates'],
  ['Security', '/security', 'Security Center'],
  ['Analytics', '/analytics', 'Analytics'],
  ['Settings', '/settings', 'Settings'],
] as const;

describe('app shell in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = `e2e-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'Str0ng-Passw0rd!';

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    // A failed step leaves a picture of what the browser showed.
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  it('shows the landing page signed out, and the fallback page on other paths', async () => {
    await page.goto(app);
    await expect(page.getByRole('link', { name: 'Create account' }).first().isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Sign in' }).first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: screenshotPath('landing-light'), fullPage: true });
    // The theme preference is kept in local storage ('theme'); 'system' follows the OS.
    await page.evaluate(() => localStorage.setItem('theme', 'system'));
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    await page.waitForFunction(() => document.documentElement.classList.contains('dark'));
    await page.getByRole('link', { name: 'Create account' }).first().waitFor();
    await page.screenshot({ path: screenshotPath('landing-dark'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.evaluate(() => localStorage.removeItem('theme'));

    await page.goto(`${app}/projects`);
    await page.getByRole('link', { name: 'Sign in' }).first().waitFor();
    expect(await page.getByText('404 Page Not Found').count()).toBe(0);
  });

  it('signs up, confirms with the e-mailed code and signs in', async () => {
    await page.goto(app);
    await page.getByRole('link', { name: 'Create account' }).first().click();
    await page.waitForURL(/\/sign-up$/);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await page.getByLabel('First name').fill('Edith');
    await page.getByLabel('Last name').fill('Clarke');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/confirm/);

    const code = await confirmationCode(stack.dataDir, stack.userPool.userPoolId, email);
    const emailField = page.getByLabel('Email');
    if (!(await emailField.inputValue())) await emailField.fill(email);
    await page.getByLabel('Confirmation code').fill(code);
    await page.getByRole('button', { name: /confirm/i }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/`);
    await passFirstRun(page);
    await page.getByRole('button', { name: 'User menu' }).getByText('Edith Clarke').waitFor();
  });

  it('visits every navigation entry and marks the active one', async () => {
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    for (const [label, path, heading] of navigation) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await page.waitForURL(`${app}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await nav.getByRole('link', { name: label, exact: true }).getAttribute('aria-current')).toBe('page');
    }
    await expect(nav.locator('[aria-current="page"]').count()).resolves.toBe(1);
    await page.getByText('Free Plan').waitFor();
    await page.getByRole('button', { name: 'Upgrade Now' }).waitFor();
  });

  it('shows the 404 page for unknown paths', async () => {
    await page.goto(`${app}/no-such-page`);
    await page.getByText('404 Page Not Found').waitFor();
    await page.getByText('Did you forget to add the page to the router?').waitFor();
  });

  it('switches the theme and keeps it across reloads', async () => {
    await page.goto(app);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await chooseTheme('Dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
    await page.screenshot({ path: screenshotPath('dashboard-dark'), fullPage: true });

    await chooseTheme('Light');
    await page.screenshot({ path: screenshotPath('dashboard-light'), fullPage: true });
  });

  /**
   * Theme menu, then the choice, until the page shows it: under two test lanes a click on the menu
   * item was once lost (the menu stayed or closed without a choice: the page kept its theme for
   * 30 s), so a choice not shown within 20 s is made again, three times at most.
   */
  async function chooseTheme(name: 'Dark' | 'Light') {
    const dark = name === 'Dark';
    for (let attempt = 1; ; attempt++) {
      if (await page.getByRole('menuitemradio', { name }).isHidden()) await page.getByRole('button', { name: 'Theme' }).click();
      await page.getByRole('menuitemradio', { name }).click();
      const shown = await page.waitForFunction((want) => document.documentElement.classList.contains('dark') === want, dark, { timeout: 20_000 }).then(() => true, () => false);
      if (shown) return;
      if (attempt === 3) throw new Error(`The ${name} theme was chosen three times and never shown`);
    }
  }

  it('collapses the navigation into a drawer at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app}/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Open navigation' }).click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL(`${app}/projects`);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.screenshot({ path: screenshotPath('projects-phone') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('updates the profile, and the top bar follows', async () => {
    await page.goto(`${app}/profile`);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await page.getByLabel('First name').fill('Edie');
    await page.getByLabel('Company (optional)').fill('Clarke Engineering');
    await page.getByRole('button', { name: 'Save Changes' }).click();
    await page.getByText('Your profile has been updated successfully.').waitFor();
    await page.getByRole('button', { name: 'User menu' }).getByText('Edie Clarke').waitFor();
    await page.reload();
    expect(await page.getByLabel('Company (optional)').inputValue()).toBe('Clarke Engineering');
  });

  it('on a 401 shows the Unauthorized toast and goes to sign-in', async () => {
    await page.goto(app);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // Replace the stored access token with one the API will refuse (signature broken).
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage)) {
        if (key.endsWith('.accessToken')) {
          const [h, p] = localStorage.getItem(key)!.split('.');
          localStorage.setItem(key, `${h}.${p}.invalid-signature`);
        }
      }
    });
    // The toast shows for 500 ms before the browser leaves (spec 8): every toast the page puts up
    // is noted as it appears (in sessionStorage, which the tab keeps across the redirect) and
    // checked once on the sign-in page, instead of polled for in a half-second window that a busy
    // machine can miss.
    await page.addInitScript(() => {
      const noted: string[] = JSON.parse(sessionStorage.getItem('e2e-toasts') ?? '[]') as string[];
      new MutationObserver(() => {
        for (const toast of document.querySelectorAll('[data-scope="toast"][data-part="root"]')) {
          const text = toast.textContent ?? '';
          if (text && !noted.includes(text)) {
            noted.push(text);
            sessionStorage.setItem('e2e-toasts', JSON.stringify(noted));
          }
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.reload();
    await page.waitForURL(/\/sign-in$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const toasts = await page.evaluate(() => JSON.parse(sessionStorage.getItem('e2e-toasts') ?? '[]') as string[]);
    expect(toasts.some((text) => text.includes('Unauthorized') && text.includes('You are logged out. Logging in again...')), JSON.stringify(toasts)).toBe(true);
  });

  it('signs out from the user menu', async () => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(`${app}/`);
    await page.getByRole('link', { name: 'Create account' }).first().waitFor();
    const tokens = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('Token')));
    expect(tokens).toEqual([]);
  });

  it('resets a forgotten password with the e-mailed code', async () => {
    const newPassword = 'N3w-Passw0rd!!';
    await page.goto(`${app}/sign-in`);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(/\/forgot-password/);
    await page.getByRole('button', { name: 'Send code' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Reset code').waitFor();
    const code = await confirmationCode(stack.dataDir, stack.userPool.userPoolId, email);
    await page.getByLabel('Reset code').fill(code);
    await page.getByLabel('New password').fill(newPassword);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    await page.getByLabel('Password').fill(password);
    if (!(await page.getByLabel('Email').inputValue())) await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Incorrect e-mail or password.').waitFor();

    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  });
});
