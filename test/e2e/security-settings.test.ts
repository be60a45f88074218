/// <reference lib="dom" />
import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { PASSWORD_EXPIRED_MESSAGE, SESSION_EXPIRED_MESSAGE, SESSION_REPLACED_MESSAGE, type SecuritySettings } from '../../shared/schemas/security';
import { TWO_FACTOR_WRONG_CODE_MESSAGE } from '../../shared/schemas/two-factor';
import { apiUser, testDb, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { accessTokenSignedInAt } from '../support/signed-in-at';

const app = inject('stack').urls.app;

const setOnUserItem = (user: ApiUser, name: string, value: unknown) =>
  testDb().send(
    new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET #n = :v', ExpressionAttributeNames: { '#n': name }, ExpressionAttributeValues: { ':v': value } }),
  );

/**
 * The Security Center's settings card and two-factor dialog as a person uses them, and what the
 * app does when the API ends a session or asks for a new password.
 */
describe('Security settings in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Katherine', lastName: 'Johnson' });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it('shows the defaults, refuses values out of range under their fields, saves with the spec\'s toast', async () => {
    await page.goto(`${app}/security`);
    const card = page.getByRole('heading', { name: 'Security Settings', level: 2 });
    await card.waitFor();
    expect(await page.getByLabel('Session timeout (hours)').inputValue()).toBe('24');
    expect(await page.getByLabel('Password expiry (days)').inputValue()).toBe('90');
    expect(await page.getByLabel('Max login attempts').inputValue()).toBe('5');
    expect(await page.getByRole('switch', { name: 'Two-factor authentication' }).isChecked()).toBe(false);
    expect(await page.getByRole('switch', { name: 'Allow concurrent sessions' }).isChecked()).toBe(true);

    await page.getByLabel('Session timeout (hours)').fill('200');
    await page.getByLabel('Max login attempts').fill('abc');
    await page.getByRole('button', { name: 'Update Settings' }).click();
    await page.getByText('Session timeout must be between 1 and 168 hours').waitFor();
    await page.getByText('Max login attempts must be between 3 and 10 attempts').waitFor();
    expect(await user.json<SecuritySettings>('/api/security/settings')).toMatchObject({ sessionTimeout: 24, maxLoginAttempts: 5 });

    await page.getByLabel('Session timeout (hours)').fill('12');
    await page.getByLabel('Max login attempts').fill('4');
    await page.getByText('Require password change').click();
    await page.getByRole('button', { name: 'Update Settings' }).click();
    await page.getByText('Security settings have been updated successfully.').waitFor();
    await page.getByText('Session timeout must be between 1 and 168 hours').waitFor({ state: 'detached' });
    expect(await user.json<SecuritySettings>('/api/security/settings')).toEqual({
      twoFactorEnabled: false,
      sessionTimeout: 12,
      passwordExpiryDays: 90,
      maxLoginAttempts: 4,
      requirePasswordChange: true,
      allowConcurrentSessions: true,
    });
    // The form shows what was saved after a reload.
    await page.reload();
    await page.getByLabel('Session timeout (hours)').waitFor();
    expect(await page.getByLabel('Session timeout (hours)').inputValue()).toBe('12');
    expect(await page.getByRole('switch', { name: 'Require password change' }).isChecked()).toBe(true);
  });

  it('turns two-factor authentication on with the QR dialog and a code from the shown secret, then off with a code', async () => {
    await page.goto(`${app}/security`);
    const twoFactor = page.getByRole('switch', { name: 'Two-factor authentication' });
    await twoFactor.waitFor();
    await page.getByText('Two-factor authentication', { exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Turn on two-factor authentication' });
    await dialog.waitFor();
    await dialog.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await dialog.getByTestId('two-factor-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await settle(page);
    expect(describeViolations('two-factor dialog', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('security-two-factor-dialog-light') });

    // A wrong code: the message under the field, and it stays off.
    const right = await generate({ secret });
    await dialog.getByLabel('Authentication code').fill(right === '000000' ? '111111' : '000000');
    await dialog.getByRole('button', { name: 'Turn On' }).click();
    await dialog.getByText(TWO_FACTOR_WRONG_CODE_MESSAGE).waitFor();
    expect((await user.json<SecuritySettings>('/api/security/settings')).twoFactorEnabled).toBe(false);

    await dialog.getByLabel('Authentication code').fill(await generate({ secret }));
    await dialog.getByRole('button', { name: 'Turn On' }).click();
    await page.getByText('Signing in now asks for a code from your authenticator app.').first().waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(await twoFactor.isChecked()).toBe(true);
    expect((await user.json<SecuritySettings>('/api/security/settings')).twoFactorEnabled).toBe(true);

    // Off asks for a code too: the app's next one.
    await page.getByText('Two-factor authentication', { exact: true }).click();
    const off = page.getByRole('dialog', { name: 'Turn off two-factor authentication' });
    await off.waitFor();
    await off.getByLabel('Authentication code').fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await off.getByRole('button', { name: 'Turn Off' }).click();
    await page.getByText('Signing in no longer asks for a code.').waitFor();
    await off.waitFor({ state: 'detached' });
    expect(await twoFactor.isChecked()).toBe(false);
    expect((await user.json<SecuritySettings>('/api/security/settings')).twoFactorEnabled).toBe(false);
  });

  it('cancelling the two-factor setup leaves the switch off, input and all, and the next click opens the dialog again', async () => {
    await page.goto(`${app}/security`);
    const twoFactor = page.getByRole('switch', { name: 'Two-factor authentication' });
    await twoFactor.waitFor({ state: 'attached' });
    for (const [attempt, how] of [[1, 'label'], [2, 'keyboard'], [3, 'label']] as const) {
      if (how === 'label') await page.getByText('Two-factor authentication', { exact: true }).click();
      else {
        await twoFactor.focus();
        await page.keyboard.press('Space');
      }
      const dialog = page.getByRole('dialog', { name: 'Turn on two-factor authentication' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      // What a screen reader hears is the input's state: it must say off, as the switch shows.
      await page.waitForFunction(() => {
        const input = document.querySelector<HTMLInputElement>('input[name="twoFactorEnabled"]');
        return input !== null && !input.checked;
      });
      expect(await twoFactor.isChecked(), `attempt ${attempt}`).toBe(false);
      expect(await page.locator('[data-part="root"]:has(input[name="twoFactorEnabled"])').getAttribute('data-state'), `attempt ${attempt}`).toBe('unchecked');
    }
    expect((await user.json<SecuritySettings>('/api/security/settings')).twoFactorEnabled).toBe(false);
  });

  it('light and dark, desktop and phone: screenshots of the card and the dialog', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await page.goto(`${app}/security`);
      await useTheme(page, theme);
      for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
        await page.setViewportSize(viewport);
        await page.getByRole('heading', { name: 'Security Settings', level: 2 }).waitFor();
        await settle(page);
        expect(describeViolations(`security settings ${theme} ${name}`, await axeViolations(page))).toEqual([]);
        await page.screenshot({ path: screenshotPath(`security-settings-${theme}-${name}`), fullPage: true });
      }
      await page.getByText('Two-factor authentication', { exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Turn on two-factor authentication' });
      await dialog.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
      await settle(page);
      expect(describeViolations(`two-factor dialog ${theme}`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`security-two-factor-dialog-${theme}-phone`) });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await useTheme(page, 'light');
  });

  it('an expired password sends the user to the change-password form with the message', async () => {
    const other = await apiUser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const second = await context.newPage();
    await signInThroughApp(second, app, other);
    await setOnUserItem(other, 'passwordChangedAt', new Date(Date.now() - 100 * 24 * 3600 * 1000).toISOString());
    await second.goto(`${app}/projects`);
    await second.waitForURL((url) => url.pathname === '/security' && url.searchParams.get('change-password') === '1');
    await second.getByText(PASSWORD_EXPIRED_MESSAGE).first().waitFor();
    await context.close();
  });

  it('a session older than the session timeout is signed out with the reason on the sign-in page', async () => {
    const other = await apiUser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const second = await context.newPage();
    await signInThroughApp(second, app, other);
    expect((await other.call('/api/security/settings', { method: 'PUT', body: { sessionTimeout: 1 } })).status).toBe(200);
    // The browser's token as it is after refreshes two hours into the session (auth_time kept).
    const stored = await second.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.endsWith('.accessToken'))!;
      return { key, token: localStorage.getItem(key)! };
    });
    const authTime = (JSON.parse(Buffer.from(stored.token.split('.')[1]!, 'base64url').toString('utf8')) as { auth_time: number }).auth_time;
    const old = await accessTokenSignedInAt(stored.token, authTime - 2 * 3600);
    await second.evaluate(({ key, token }) => localStorage.setItem(key, token), { key: stored.key, token: old });
    await second.goto(`${app}/projects`);
    await second.waitForURL((url) => url.pathname === '/sign-in');
    await second.getByText(SESSION_EXPIRED_MESSAGE).first().waitFor();
    await context.close();
  });

  it('a session signed out by a sign-in elsewhere (concurrent sessions off) ends with the reason on the sign-in page', async () => {
    const other = await apiUser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const second = await context.newPage();
    await signInThroughApp(second, app, other);
    expect((await other.call('/api/security/settings', { method: 'PUT', body: { allowConcurrentSessions: false } })).status).toBe(200);
    // A sign-in elsewhere a second after this one, as the sign-in trigger records it.
    const authTime = await second.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.endsWith('.accessToken'))!;
      return (JSON.parse(atob(localStorage.getItem(key)!.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { auth_time: number }).auth_time;
    });
    await setOnUserItem(other, 'sessionsNotBefore', authTime + 1);
    await second.goto(`${app}/projects`);
    await second.waitForURL((url) => url.pathname === '/sign-in');
    await second.getByText(SESSION_REPLACED_MESSAGE).first().waitFor();
    await second.getByLabel('Email').waitFor();
    await second.screenshot({ path: screenshotPath('security-session-replaced-sign-in') });
    await context.close();
  });
});
