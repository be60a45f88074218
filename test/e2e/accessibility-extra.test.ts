/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { apiUser } from '../support/api';
import { launchChromium, passFirstRun, screenshotPath } from '../support/browser';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';

const app = inject('stack').urls.app;
const themes = ['light', 'dark'] as const;

/**
 * WCAG 2.x contrast of an element's text on its background as drawn now (a hover state included):
 * the background is blended over its ancestors' until it is opaque. Colours come as Chrome computes
 * them: rgb(), rgba() or color(srgb ...) (what color-mix() gives).
 */
async function textContrast(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    type Rgba = [number, number, number, number];
    const parse = (value: string): Rgba => {
      const srgb = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.e-]+))?\)$/.exec(value);
      if (srgb) return [Number(srgb[1]) * 255, Number(srgb[2]) * 255, Number(srgb[3]) * 255, srgb[4] === undefined ? 1 : Number(srgb[4])];
      const rgb = /^rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+))?\)$/.exec(value);
      if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), rgb[4] === undefined ? 1 : Number(rgb[4])];
      throw new Error(`cannot read the colour ${value}`);
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => {
      const a = top[3] + bottom[3] * (1 - top[3]);
      if (a === 0) return [0, 0, 0, 0];
      const mix = (i: number) => (top[i]! * top[3] + bottom[i]! * bottom[3] * (1 - top[3])) / a;
      return [mix(0), mix(1), mix(2), a];
    };
    let background: Rgba = [0, 0, 0, 0];
    for (let node: Element | null = element; node && background[3] < 1; node = node.parentElement) {
      background = over(background, parse(getComputedStyle(node).backgroundColor));
    }
    background = over(background, [255, 255, 255, 1]);
    const text = over(parse(getComputedStyle(element).color), background);
    const luminance = ([r, g, b]: Rgba) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const [light, dark] = [luminance(text), luminance(background)].sort((x, y) => y - x) as [number, number];
    return (light + 0.05) / (dark + 0.05);
  });
}

/**
 * axe-core over the screen states the main accessibility test does not reach (issue 26, item 21):
 * 'Tell us about yourself' (a new user's first screen), the open user, theme and notification
 * menus, and the primary button's hover colour (axe reads no hover state).
 */
describe('accessibility of first-run and open menus (axe-core, Chromium)', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const user = await apiUser({ firstName: 'Ona', lastName: 'Boarding' });
    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tell us about yourself' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-a11y-extra-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it("'Tell us about yourself' has its main landmark and no violation, light and dark", async () => {
    const found: string[] = [];
    for (const theme of themes) {
      await useTheme(page, theme);
      await page.getByRole('heading', { name: 'Tell us about yourself' }).waitFor();
      await settle(page);
      expect(await page.getByRole('main').count()).toBe(1);
      found.push(...describeViolations(`onboarding (${theme})`, await axeViolations(page)));
      await page.screenshot({ path: screenshotPath(`a11y-onboarding-${theme}`) });
    }
    expect(found).toEqual([]);
  });

  it('the open user, theme and notification menus sit in landmarks and have no violation, light and dark', async () => {
    await useTheme(page, 'light');
    await passFirstRun(page);
    const found: string[] = [];
    const menus: [string, () => Promise<void>][] = [
      ['user menu', async () => {
        await page.getByRole('button', { name: /User menu/ }).click();
        await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
      }],
      ['theme menu', async () => {
        await page.getByRole('button', { name: /theme/i }).first().click();
        await page.getByRole('menuitemradio', { name: 'Dark' }).or(page.getByRole('menuitem', { name: 'Dark' })).first().waitFor();
      }],
      ['notifications', async () => {
        await page.getByRole('button', { name: /Notifications/ }).first().click();
        await page.getByRole('dialog').first().waitFor();
      }],
    ];
    for (const theme of themes) {
      await useTheme(page, theme);
      for (const [name, open] of menus) {
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
        await settle(page);
        await open();
        await settle(page);
        found.push(...describeViolations(`${name} open (${theme})`, await axeViolations(page)));
        await page.screenshot({ path: screenshotPath(`a11y-${name.replace(/ /g, '-')}-open-${theme}`) });
        await page.keyboard.press('Escape');
      }
    }
    expect(found).toEqual([]);
  });

  it("the primary button's hover colour keeps white text at 4.5:1 or more, light and dark", async () => {
    await passFirstRun(page);
    for (const theme of themes) {
      await useTheme(page, theme);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const button = page.getByRole('banner').getByRole('link', { name: 'New Project' });
      await button.hover();
      await settle(page);
      const hovered = await textContrast(button);
      await page.mouse.move(0, 0);
      await settle(page);
      const resting = await textContrast(button);
      expect({ theme, hovered: hovered >= 4.5, resting: resting >= 4.5 }, `contrast ${hovered.toFixed(2)}:1 hovered, ${resting.toFixed(2)}:1 resting`).toEqual({ theme, hovered: true, resting: true });
    }
    await useTheme(page, 'light');
  });
});
