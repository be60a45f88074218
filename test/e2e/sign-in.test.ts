/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateSync } from 'otplib';
import { AssociateSoftwareTokenCommand, CognitoIdentityProviderClient, SetUserMFAPreferenceCommand, VerifySoftwareTokenCommand } from '@aws-sdk/client-cognito-identity-provider';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { accountLockedMessage, LOCKOUT_MINUTES, PASSWORD_EXPIRED_MESSAGE } from '../../shared/schemas/security';
import { INCORRECT_TOTP_MESSAGE } from '../../shared/schemas/sign-in';
import { apiUser, testDb } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

async function enableTotp(accessToken: string): Promise<string> {
  const client = new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint: stack.urls.cognito, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken: accessToken }));
  await client.send(new VerifySoftwareTokenCommand({ AccessToken: accessToken, UserCode: generateSync({ secret: SecretCode! }) }));
  await client.send(new SetUserMFAPreferenceCommand({ AccessToken: accessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }));
  client.destroy();
  return SecretCode!;
}

/** A user past the first run (onboarding and the welcome dialog are test/e2e/first-run.test.ts's), so sign-in lands on the dashboard. */
async function readyUser() {
  const user = await apiUser();
  await testDb().send(
    new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET onboarded = :yes, welcomeDismissed = :yes', ExpressionAttributeValues: { ':yes': true } }),
  );
  return user;
}

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Sign-in through the API as a person meets it, in light and in dark: the TOTP step, the lock, an expired password. */
describe.each(['light', 'dark'] as const)('sign-in in Chromium (%s)', (theme) => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  // Each test starts signed out, in its own browser context, on the sign-in page in the theme.
  const open = async () => {
    await context?.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    await page.goto(`${app}/sign-in`);
    await useTheme(page, theme);
  };
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-sign-in-${theme}-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it('asks for the authenticator code, refuses a wrong one, signs in with the right one and stays signed in', async () => {
    const user = await readyUser();
    const secret = await enableTotp(user.accessToken);
    await open();
    await fillSignIn(page, user.email, user.password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByText('Enter the 6-digit code from your authenticator app').waitFor();
    // The resting page: the pointer left on the button just clicked would check its hover colour.
    await page.mouse.move(0, 0);
    await settle(page);
    expect(describeViolations(theme, await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath(`sign-in-totp-${theme}`) });

    await page.getByLabel('Authentication code').fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 600 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText(INCORRECT_TOTP_MESSAGE).waitFor();
    await page.getByLabel('Authentication code').fill(generateSync({ secret }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // The tokens sit where Amplify reads them: a reload keeps the session.
    expect(await page.evaluate(() => Object.keys(localStorage).some((key) => key.startsWith('CognitoIdentityServiceProvider.') && key.endsWith('.LastAuthUser')))).toBe(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  });

  it('says the account is locked after too many wrong passwords', async () => {
    const user = await readyUser();
    await open();
    for (let i = 0; i < 4; i++) {
      await fillSignIn(page, user.email, `Wrong-Passw0rd!${i}`);
      await page.getByText('Incorrect e-mail or password.').waitFor();
    }
    await fillSignIn(page, user.email, 'Wrong-Passw0rd!4');
    await page.getByText(accountLockedMessage(LOCKOUT_MINUTES)).waitFor();
    // The resting page: the pointer left on the button just clicked would check its hover colour.
    await page.mouse.move(0, 0);
    await settle(page);
    expect(describeViolations(theme, await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath(`sign-in-locked-${theme}`) });
    // The right password while locked: still refused.
    await fillSignIn(page, user.email, user.password);
    await page.getByText(accountLockedMessage(LOCKOUT_MINUTES)).waitFor();
    expect(page.url()).toContain('/sign-in');
  });

  it('an expired password asks for a new one before going on', async () => {
    const user = await readyUser();
    await testDb().send(
      new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET passwordChangedAt = :old', ExpressionAttributeValues: { ':old': new Date(Date.now() - 200 * 86_400_000).toISOString() } }),
    );
    await open();
    await fillSignIn(page, user.email, user.password);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByText(PASSWORD_EXPIRED_MESSAGE).waitFor();
    // The resting page: the pointer left on the button just clicked would check its hover colour.
    await page.mouse.move(0, 0);
    await settle(page);
    expect(describeViolations(theme, await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath(`sign-in-expired-${theme}`) });
    await page.getByLabel('New password', { exact: true }).fill('Fresh-Passw0rd!');
    await page.getByLabel('Confirm new password').fill('Fresh-Passw0rd?');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('The passwords do not match').waitFor();
    await page.getByLabel('Confirm new password').fill('Fresh-Passw0rd!');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    // The old password no longer signs in; the new one does, without the expiry step.
    await context.close();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    await page.goto(`${app}/sign-in`);
    await fillSignIn(page, user.email, user.password);
    await page.getByText('Incorrect e-mail or password.').waitFor();
    await fillSignIn(page, user.email, 'Fresh-Passw0rd!');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  });
});
