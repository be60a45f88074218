import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Download, type LaunchOptions, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { projectRoot } from '../../bin/local/settings';
import { WELCOME_WINDOW_MS } from '../../shared/schemas/user';
import { BROWSER_WAIT_MS } from './wait-limits';
import { apiUser, upgradeToPro, type ApiUser } from './api';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The e2e lanes' Chromium servers (test/e2e/global-setup.ts): lane n connects to chromiumEndpoints[n - 1]. */
    chromiumEndpoints: string[];
  }
}

/** Debian's Chromium, headless, with the flags this sandboxed, offline machine needs. */
function chromiumOptions(): LaunchOptions {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  return {
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  };
}

/**
 * A Chromium for a test file. In the e2e project, a connection to its lane's Chromium, started
 * once by the global setup (launching one costs about 2 s a file): the file gets fresh contexts
 * of its own, and `close()` closes them and disconnects. Elsewhere, a Chromium of its own.
 */
export async function launchChromium(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoints')?.[Number(process.env.VITEST_POOL_ID ?? '1') - 1];
  const browser = endpoint ? await chromium.connect(endpoint) : await chromium.launch(chromiumOptions());
  // Every context (newPage makes one too) waits up to BROWSER_WAIT_MS (test/support/wait-limits.ts).
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(BROWSER_WAIT_MS);
    return context;
  };
  return browser;
}

/** One Chromium server per lane, for launchChromium to connect to (the e2e global setup). */
export async function startChromiumServers(lanes: number): Promise<{ endpoints: string[]; stop: () => Promise<void> }> {
  const servers = await Promise.all(Array.from({ length: lanes }, () => chromium.launchServer(chromiumOptions())));
  return { endpoints: servers.map((s) => s.wsEndpoint()), stop: () => Promise.all(servers.map((s) => s.close())).then(() => undefined) };
}

/** A finished download's bytes, read from the browser's stream (a connected Chromium has no local path); no file is left behind. */
export async function downloadedBytes(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export const screenshotDir = path.join(projectRoot, 'screenshots');
export const screenshotPath = (name: string): string => {
  fs.mkdirSync(screenshotDir, { recursive: true });
  return path.join(screenshotDir, `${name}.png`);
};

/**
 * The confirmation code the Cognito emulator sent to an address: it prints it in its log (the
 * `npm start` console) and keeps it on the user in <dataDir>/cognito/.cognito/db/<pool>.json.
 */
export async function confirmationCode(dataDir: string, userPoolId: string, email: string): Promise<string> {
  const file = path.join(dataDir, 'cognito', '.cognito', 'db', `${userPoolId}.json`);
  for (let i = 0; i < 50; i++) {
    if (fs.existsSync(file)) {
      const db = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        Users?: Record<string, { Attributes: { Name: string; Value: string }[]; ConfirmationCode?: string }>;
      };
      const user = Object.values(db.Users ?? {}).find((u) => u.Attributes.some((a) => a.Name === 'email' && a.Value === email));
      if (user?.ConfirmationCode) return user.ConfirmationCode;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`No confirmation code for ${email}`);
}

/**
 * Signs a confirmed user in through the app's own sign-in screen and waits for the dashboard. A
 * new user first meets 'Tell us about yourself' (their name is prefilled: 'Let's Go!') and then the
 * welcome dialog ('Let's Get Started!'), as a person would; test/e2e/first-run.test.ts looks at
 * both closely.
 */
export async function signInThroughApp(page: Page, app: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${app}/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await passFirstRun(page);
}

/**
 * What the app will decide about the welcome dialog, from the same data (GET /api/auth/user with
 * the token the app stored) and the same rule (frontend/src/app/layout/welcome-dialog.tsx): open
 * while the account is under WELCOME_WINDOW_MS old and not dismissed. Asked, not guessed from how
 * long the dialog takes to show, which a busy machine stretches.
 */
async function welcomeDialogFor(page: Page): Promise<{ open: boolean; closesInMs: number }> {
  return page.evaluate(async (windowMs) => {
    const key = Object.keys(localStorage).find((name) => name.startsWith('CognitoIdentityServiceProvider.') && name.endsWith('.accessToken'));
    const response = await fetch('/api/auth/user', { headers: { Authorization: `Bearer ${key ? localStorage.getItem(key) : ''}` } });
    if (!response.ok) throw new Error(`GET /api/auth/user answered ${response.status}`);
    const user = (await response.json()) as { createdAt: string; welcomeDismissed?: boolean };
    const closesInMs = Date.parse(user.createdAt) + windowMs - Date.now();
    return { open: !user.welcomeDismissed && closesInMs > 0, closesInMs };
  }, WELCOME_WINDOW_MS);
}

/** From the first screen after sign-in to the dashboard: onboarding and the welcome dialog when they show. */
export async function passFirstRun(page: Page): Promise<void> {
  const dashboard = page.getByRole('heading', { name: 'Dashboard', level: 1 });
  const onboarding = page.getByRole('heading', { name: 'Tell us about yourself' });
  // The welcome dialog is modal: while it shows, the page behind it is hidden from the accessibility tree.
  const welcome = page.getByRole('button', { name: "Let's Get Started!" });
  await dashboard.or(onboarding).or(welcome).first().waitFor();
  if (await onboarding.isVisible()) {
    await page.getByRole('button', { name: "Let's Go!" }).click();
    await dashboard.or(welcome).first().waitFor();
  }
  const dialog = await welcomeDialogFor(page);
  // One that closes by itself in a moment is left to do so (the dashboard wait below sees it go).
  if (dialog.open && dialog.closesInMs > 10_000) {
    await welcome.click();
    await welcome.waitFor({ state: 'hidden' });
  }
  await dashboard.waitFor();
}

/**
 * A describe block's Chromium with one page signed in as a new user (`pro`: paid through the local
 * checkout first, as a person upgrades): launched before the block's own set-up, closed after it,
 * and a screenshot `failed-<name>-<test>` of the page when a test fails. Read `page` and `user`
 * inside the tests (or copy them in a beforeAll of the block).
 */
export function userInChromium(name: string, names: { firstName: string; lastName: string }, options: { pro?: boolean; viewport?: { width: number; height: number } } = {}) {
  const session = {} as { browser: Browser; page: Page; user: ApiUser };
  beforeAll(async () => {
    session.browser = await launchChromium();
    session.page = await (await session.browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    session.user = await apiUser(names);
    if (options.pro) await upgradeToPro(session.user);
    await signInThroughApp(session.page, inject('stack').urls.app, session.user);
  });
  afterAll(async () => {
    await session.browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await session.page?.screenshot({ path: screenshotPath(`failed-${name}-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });
  return session;
}

/** userInChromium for a Pro user. */
export const proUserInChromium = (name: string, names: { firstName: string; lastName: string }, viewport = { width: 1280, height: 900 }) => userInChromium(name, names, { pro: true, viewport });

/**
 * Records the text of every element added to the page from now on (until it navigates). A toast
 * can come and go between two of Playwright's polls (an export that is ready at once replaces its
 * 'Export started'): waitForAddedText finds it in the record.
 */
export async function recordAddedTexts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const record = window as unknown as { addedTexts?: string[] };
    record.addedTexts = [];
    new MutationObserver((mutations) => {
      for (const mutation of mutations) for (const node of mutation.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) record.addedTexts!.push(node.textContent ?? '');
    }).observe(document.body, { childList: true, subtree: true });
  });
}

/** Waits until an element with `text` was added since recordAddedTexts (shown, even if gone since). */
export async function waitForAddedText(page: Page, text: string, timeout = 90_000): Promise<void> {
  await page.waitForFunction((wanted) => ((window as unknown as { addedTexts?: string[] }).addedTexts ?? []).some((added) => added.includes(wanted)), text, { timeout, polling: 100 });
}

/** The project's page, then its Edit dialog (returned once open). */
export async function openProjectEdit(page: Page, projectId: string): Promise<Locator> {
  await page.goto(`${inject('stack').urls.app}/projects/${projectId}`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit project' });
  await dialog.waitFor();
  return dialog;
}
