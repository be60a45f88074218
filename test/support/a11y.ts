/// <reference lib="dom" />
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * The rules the product is held to: WCAG 2.1 A and AA, and axe's best practices (heading order,
 * landmarks), which the outside review measured too.
 */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

// axe-core's own bundle, injected into each page as a script (it runs in the page, not in Node).
const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/**
 * Waits until the page stands still: no request in flight and no finite animation running (a
 * dialog fading in has, for a moment, text too faint to pass the contrast rule). Spinners and
 * skeleton pulses run forever and are not waited for.
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => {
      const iterations = animation.effect?.getTiming().iterations ?? 1;
      return iterations === Infinity || animation.playState !== 'running';
    }),
  );
}

/** Runs axe-core over the whole page as it is now; returns what breaks WCAG 2.1 AA. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await settle(page);
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  }, AXE_TAGS);
}

/** One line per violation, naming the screen, the rule and the first elements it found. */
export function describeViolations(screen: string, violations: AxeViolation[]): string[] {
  return violations.map(
    (v) =>
      `${screen}: ${v.id} (${v.impact ?? 'n/a'}) ${v.help} - ${v.nodes.length} element(s): ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(' | ')}`,
  );
}

/** Sets the theme the way the theme menu keeps it (next-themes, key 'theme') and reloads. */
export async function useTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload();
  await page.waitForFunction((value) => document.documentElement.classList.contains(value), theme);
}

/** A screen to check: where it is, and what to do there first (open a dialog, choose a file). */
export interface Screen {
  name: string;
  path: string;
  prepare?: (page: Page) => Promise<void>;
}

export const signedOutScreens: Screen[] = [
  { name: 'landing', path: '/' },
  { name: 'sign-in', path: '/sign-in' },
  { name: 'sign-up', path: '/sign-up' },
  { name: 'confirm', path: '/confirm' },
  { name: 'forgot-password', path: '/forgot-password' },
  { name: 'signed-out fallback', path: '/no-such-page' },
];

const settingsTabs = ['account', 'subscription', 'notifications', 'preferences', 'security', 'data'];

const peopleCsv = 'First Name,Last Name,Email\nAda,Lovelace,ada@example.com\nAlan,Turing,alan@example.com\nBad,Row,not-an-email\n';

/** Every signed-in screen a user on either plan can reach, with the bulk dialog open on a file. */
export function signedInScreens(projectId: string): Screen[] {
  return [
    { name: 'dashboard', path: '/' },
    { name: 'projects', path: '/projects' },
    { name: 'project detail', path: `/projects/${encodeURIComponent(projectId)}` },
    { name: 'bulk creator', path: '/bulk-creator' },
    {
      name: 'bulk creator dialog',
      path: '/bulk-creator',
      prepare: async (page) => {
        await page.locator('input[type="file"]').first().setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(peopleCsv) });
        await page.getByRole('dialog', { name: 'Bulk Create Accounts' }).getByText('people.csv').first().waitFor();
      },
    },
    { name: 'integrations', path: '/integrations' },
    { name: 'accounts', path: '/accounts' },
    { name: 'exports', path: '/exports' },
    { name: 'email templates', path: '/email-templates' },
    { name: 'security', path: '/security' },
    { name: 'analytics', path: '/analytics' },
    ...settingsTabs.map((tab) => ({ name: `settings ${tab}`, path: `/settings?tab=${tab}` })),
    {
      name: 'settings data, Delete Account dialog',
      path: '/settings?tab=data',
      prepare: async (page) => {
        await page.getByRole('button', { name: 'Delete Account' }).click();
        await page.getByRole('alertdialog', { name: 'Delete Account' }).waitFor();
      },
    },
    { name: 'profile', path: '/profile' },
    { name: 'not found', path: '/no-such-page' },
  ];
}

/** Opens a screen, waits for its heading and for it to settle, prepares it and runs axe-core. */
export async function checkScreen(page: Page, app: string, screen: Screen, theme: string): Promise<string[]> {
  await page.goto(`${app}${screen.path}`);
  await page.locator('h1').first().waitFor();
  await settle(page);
  await screen.prepare?.(page);
  return describeViolations(`${screen.name} (${theme})`, await axeViolations(page));
}
