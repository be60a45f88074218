/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

interface StoredMail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string };
}

/** The verification codes e-mailed to an address, oldest first, from the local mail viewer. */
async function codesMailedTo(email: string, count: number): Promise<string[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { emails } = (await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: StoredMail[] };
    const codes = emails
      .filter((m) => m.destination.to.includes(email) && m.subject === 'Verify your new account')
      .map((m) => /is (\d{6})/.exec(m.body.text ?? '')?.[1] ?? '');
    if (codes.length >= count) return codes;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${count} verification e-mails reached ${email}`);
}

describe('confirm page: Resend code', () => {
  let browser: Browser;
  let page: Page;
  const email = `resend-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'Str0ng-Passw0rd!';

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-${context.task.name.slice(0, 40)}`) });
  });

  it('sends a new code by e-mail, the old one stops working, the new one confirms; a confirmed account is told so', async () => {
    await page.goto(`${app}/sign-up`);
    await page.getByLabel('First name').fill('Ida');
    await page.getByLabel('Last name').fill('Rhodes');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/confirm/);
    const [first] = await codesMailedTo(email, 1);
    if (!(await page.getByLabel('Email').inputValue())) await page.getByLabel('Email').fill(email);

    const resend = page.getByRole('button', { name: 'Resend code' });
    await resend.click();
    await page.getByText('Code sent').waitFor();
    await page.getByText(`A new code is on its way to ${email}.`).waitFor();
    expect(await resend.isEnabled()).toBe(true);
    const codes = await codesMailedTo(email, 2);
    expect(codes).toHaveLength(2);
    expect(codes[0]).toBe(first);
    expect(codes[1]).not.toBe(first);

    await page.getByLabel('Confirmation code').fill(first!);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.getByText('The code is incorrect. Check it and try again.').waitFor();

    await page.getByLabel('Confirmation code').fill(codes[1]!);
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL(/\/sign-in/);

    await page.goto(`${app}/confirm?email=${encodeURIComponent(email)}`);
    await page.getByRole('button', { name: 'Resend code' }).click();
    await page.getByText('Could not send a new code').waitFor();
    await page.getByText('This account is already confirmed. You can sign in.').waitFor();
    expect(await codesMailedTo(email, 2)).toHaveLength(2);
  });
});
