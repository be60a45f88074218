/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { User } from '../../shared/schemas/user';
import { apiUser, type ApiUser } from '../support/api';
import { useTheme } from '../support/a11y';
import { launchChromium, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/** A real image made by the browser itself (a gradient with a circle), as PNG bytes. */
async function portrait(page: Page): Promise<Buffer> {
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 640;
    canvas.height = 480;
    const context = canvas.getContext('2d')!;
    const gradient = context.createLinearGradient(0, 0, 640, 480);
    gradient.addColorStop(0, '#2563eb');
    gradient.addColorStop(1, '#f59e0b');
    context.fillStyle = gradient;
    context.fillRect(0, 0, 640, 480);
    context.fillStyle = '#ffffff';
    context.beginPath();
    context.arc(320, 200, 90, 0, Math.PI * 2);
    context.fill();
    return canvas.toDataURL('image/png');
  });
  return Buffer.from(dataUrl.split(',')[1]!, 'base64');
}

const toast = (page: Page, text: string) => page.locator('[data-scope="toast"]').getByText(text, { exact: true }).first();

/**
 * The first run as a new user meets it: 'Tell us about yourself' before anything else (name
 * required, the photo checked in the browser and on the server), the welcome dialog with the
 * photo, dismissed for good, and the Profile with the last sign-in and the photo's controls.
 */
describe('first run in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    user = await apiUser({ firstName: 'Katherine', lastName: 'Johnson' });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it("shows 'Tell us about yourself' first, refuses a blank name and files that are not photos", async () => {
    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tell us about yourself' }).waitFor();
    const name = page.getByPlaceholder('Enter your name');
    expect(await name.inputValue()).toBe('Katherine Johnson');
    expect(await page.getByRole('heading', { name: 'Dashboard' }).count()).toBe(0);

    await name.fill('   ');
    await page.getByRole('button', { name: "Let's Go!" }).click();
    await toast(page, 'Name required').waitFor();
    await page.getByText('Please enter your name to continue.').waitFor();
    expect((await user.json<User>('/api/auth/user')).onboarded).toBe(false);

    const photo = page.getByLabel('Photo', { exact: true });
    await photo.setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b,c\n') });
    await toast(page, 'Invalid file type').waitFor();
    await photo.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(6 * 1024 * 1024, 1) });
    await page.getByText('Please select an image smaller than 5MB.').waitFor();
    // Says it is a PNG, is not one: the browser cannot decode it, nothing is uploaded.
    await photo.setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not really an image') });
    await expect.poll(() => page.locator('[data-scope="toast"]').getByText('Invalid file type').count()).toBeGreaterThan(0);
    expect(await page.getByRole('img', { name: 'Your photo' }).count()).toBe(0);
  });

  it("saves the name and the photo with 'Let's Go!', then greets with the welcome dialog, which stays dismissed", async () => {
    await page.getByLabel('Photo', { exact: true }).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await portrait(page) });
    await page.getByRole('img', { name: 'Your photo' }).waitFor();
    await page.getByPlaceholder('Enter your name').fill('  Katherine   G. Johnson ');
    await page.screenshot({ path: screenshotPath('first-run-onboarding-light') });
    await page.getByRole('button', { name: "Let's Go!" }).click();

    const dialog = page.getByRole('dialog');
    await dialog.getByText('Welcome, Katherine!').waitFor();
    await page.waitForURL(`${app}/`);
    // The photo, square and re-encoded, in the dialog and the top bar.
    await expect.poll(() => dialog.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
    await page.screenshot({ path: screenshotPath('first-run-welcome-light') });
    const stored = await user.json<User>('/api/auth/user');
    expect(stored).toMatchObject({ firstName: 'Katherine', lastName: 'G. Johnson', onboarded: true });
    expect(stored.profileImageUrl).toMatch(/^http/);

    await dialog.getByRole('button', { name: "Let's Get Started!" }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'User menu' }).locator('img').waitFor();
    // Another device (a new browser context, signed in afresh) sees neither again.
    const other = await (await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' })).newPage();
    await other.goto(`${app}/sign-in`);
    await other.getByLabel('Email').fill(user.email);
    await other.getByLabel('Password').fill(user.password);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await other.waitForTimeout(1000);
    expect(await other.getByRole('button', { name: "Let's Get Started!" }).count()).toBe(0);
    expect(await other.getByRole('heading', { name: 'Tell us about yourself' }).count()).toBe(0);
    await other.close();
  });

  it('the profile shows the last sign-in, and the photo can be changed and removed', async () => {
    await page.goto(`${app}/profile`);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    await page.getByText(/^Last sign-in /).waitFor();
    await page.getByText(/^Joined /).waitFor();
    await page.getByRole('img', { name: 'Your photo' }).waitFor();
    await page.screenshot({ path: screenshotPath('first-run-profile-light') });
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Your initials show instead.').waitFor();
    await page.getByRole('button', { name: 'Choose photo' }).waitFor();
    expect((await user.json<User>('/api/auth/user')).profileImageUrl).toBeUndefined();
    await page.getByLabel('Photo', { exact: true }).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await portrait(page) });
    await page.getByText('Your new photo is on your profile.').waitFor();
    await page.getByRole('img', { name: 'Your photo' }).waitFor();
    expect((await user.json<User>('/api/auth/user')).profileImageUrl).toMatch(/^http/);
  });
});

describe('first run at phone width, dark', () => {
  it('onboarding and the welcome dialog fit a phone', async () => {
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' })).newPage();
      const user = await apiUser({ firstName: 'Mary', lastName: 'Jackson' });
      await page.goto(`${app}/sign-in`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Tell us about yourself' }).waitFor();
      await useTheme(page, 'dark');
      await page.getByRole('heading', { name: 'Tell us about yourself' }).waitFor();
      await page.screenshot({ path: screenshotPath('first-run-onboarding-phone-dark') });
      const go = await page.getByRole('button', { name: "Let's Go!" }).boundingBox();
      expect(go!.x + go!.width).toBeLessThanOrEqual(390);
      await page.getByRole('button', { name: "Let's Go!" }).click();
      await page.getByRole('dialog').getByText('Welcome, Mary!').waitFor();
      await page.screenshot({ path: screenshotPath('first-run-welcome-phone-dark') });
      const start = await page.getByRole('button', { name: "Let's Get Started!" }).boundingBox();
      expect(start!.x + start!.width).toBeLessThanOrEqual(390);
    } finally {
      await browser.close();
    }
  });
});
