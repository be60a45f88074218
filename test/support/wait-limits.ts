/**
 * How long a browser action or wait (and an e2e expect.poll) may take before the test fails.
 * Every wait ends as soon as its condition holds: this only decides how long a broken screen takes
 * to fail. Playwright's own 30 s was a coin toss on a machine running two `npm test`s at once (a
 * sign-in took that long at load 15). Read by vitest.config.ts and test/support/browser.ts.
 */
export const BROWSER_WAIT_MS = 90_000;
