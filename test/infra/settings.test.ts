import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { exportBucketName, placeholderSesFromAddress, projectRoot, readSettings } from '../../lib/settings';
import { testAssemblyDir } from './synth-app';

const read = (context: Record<string, unknown>, env: Record<string, string | undefined> = {}) =>
  readSettings(new App({ context, outdir: testAssemblyDir() }).node, env);

describe('readSettings', () => {
  it('defaults: prefix bulkonboard, address identity, INFO, termination protection, no account/region', () => {
    const { settings } = read({}, { SES_FROM_ADDRESS: 'mail@example.org' });
    expect(settings).toMatchObject({
      prefix: 'bulkonboard',
      sesFromAddress: 'mail@example.org',
      sesIdentity: 'address',
      logLevel: 'INFO',
      terminationProtection: true,
      account: undefined,
      region: undefined,
    });
  });

  it('synth works without a sender: placeholder address plus a warning', () => {
    const { settings, warnings } = read({});
    expect(settings.sesFromAddress).toBe(placeholderSesFromAddress);
    expect(warnings.map((warning) => warning.message).join('\n')).toMatch(/sesFromAddress is not set/);
  });

  it('context wins over the environment', () => {
    const { settings } = read(
      { prefix: 'staging', region: 'eu-central-1', sesFromAddress: 'ctx@example.org' },
      { APP_PREFIX: 'other', CDK_DEFAULT_REGION: 'us-east-1', SES_FROM_ADDRESS: 'env@example.org', CDK_DEFAULT_ACCOUNT: '123456789012' },
    );
    expect(settings).toMatchObject({ prefix: 'staging', region: 'eu-central-1', sesFromAddress: 'ctx@example.org', account: '123456789012' });
  });

  it.each([
    [{ prefix: 'Bad_Prefix' }, /prefix/],
    [{ sesFromAddress: 'not-an-address' }, /sesFromAddress/],
    [{ sesIdentity: 'both' }, /sesIdentity/],
    [{ logLevel: 'chatty' }, /logLevel/],
    [{ stripePriceId: 'prod_1Pro' }, /stripePriceId/],
    [{ stripePriceId: 'price_1Pro monthly' }, /stripePriceId/],
  ])('rejects %j', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });

  it('stripePriceId comes from context and is left undefined, with a warning, when not set', () => {
    expect(read({ stripePriceId: 'price_1ProMonthly' }).settings.stripePriceId).toBe('price_1ProMonthly');
    const { settings, warnings } = read({ sesFromAddress: 'a@example.org' });
    expect(settings.stripePriceId).toBeUndefined();
    expect(warnings.map((warning) => warning.id)).toContain('bulkonboard:stripePriceIdMissing');
  });

  it('stripePriceId is not read from STRIPE_PRICE_ID (that is npm start against Stripe test mode)', () => {
    expect(read({}, { STRIPE_PRICE_ID: 'price_1LocalTest' }).settings.stripePriceId).toBeUndefined();
  });

  it('stripePriceId also comes from DEPLOY_STRIPE_PRICE_ID, which the deploy workflow sets from its variables', () => {
    expect(read({}, { DEPLOY_STRIPE_PRICE_ID: 'price_1Deploy' }).settings.stripePriceId).toBe('price_1Deploy');
    expect(read({ stripePriceId: 'price_1Context' }, { DEPLOY_STRIPE_PRICE_ID: 'price_1Deploy' }).settings.stripePriceId).toBe('price_1Context');
  });

  it('alarmEmail from context or ALARM_EMAIL, checked, with a warning when missing', () => {
    expect(read({}, { ALARM_EMAIL: 'ops@example.org' }).settings.alarmEmail).toBe('ops@example.org');
    expect(read({ alarmEmail: 'oncall@example.org' }).settings.alarmEmail).toBe('oncall@example.org');
    expect(() => read({ alarmEmail: 'ops' })).toThrow(/alarmEmail/);
    const { settings, warnings } = read({});
    expect(settings.alarmEmail).toBeUndefined();
    expect(warnings.map((warning) => warning.id)).toContain('bulkonboard:alarmEmailMissing');
  });

  it('mailSendRate from context or DEPLOY_MAIL_SEND_RATE (not MAIL_SEND_RATE, which is npm start\'s), a positive number, with a warning when missing', () => {
    expect(read({ mailSendRate: '1' }).settings.mailSendRate).toBe(1);
    expect(read({ mailSendRate: 2.5 }).settings.mailSendRate).toBe(2.5);
    expect(read({}, { DEPLOY_MAIL_SEND_RATE: '40' }).settings.mailSendRate).toBe(40);
    expect(read({ mailSendRate: '1' }, { DEPLOY_MAIL_SEND_RATE: '40' }).settings.mailSendRate).toBe(1);
    expect(read({}, { MAIL_SEND_RATE: '0' }).settings.mailSendRate).toBeUndefined();
    for (const bad of ['0', '-1', 'fast', '1e3', '14/s']) expect(() => read({ mailSendRate: bad }), bad).toThrow(/mailSendRate/);
    const { settings, warnings } = read({});
    expect(settings.mailSendRate).toBeUndefined();
    expect(warnings.find((warning) => warning.id === 'bulkonboard:mailSendRateMissing')?.message).toMatch(/14 a second.*sandbox.*1/);
  });

  it('provisioningWorkers from context or DEPLOY_PROVISIONING_WORKERS, a whole number from 2 to 1000 (Lambda\'s range), with a warning when missing', () => {
    expect(read({ provisioningWorkers: '100' }).settings.provisioningWorkers).toBe(100);
    expect(read({ provisioningWorkers: 4 }).settings.provisioningWorkers).toBe(4);
    expect(read({}, { DEPLOY_PROVISIONING_WORKERS: '250' }).settings.provisioningWorkers).toBe(250);
    expect(read({ provisioningWorkers: '8' }, { DEPLOY_PROVISIONING_WORKERS: '250' }).settings.provisioningWorkers).toBe(8);
    for (const bad of ['0', '1', '1001', '2.5', 'many', '-4', '1e2']) expect(() => read({ provisioningWorkers: bad }), bad).toThrow(/provisioningWorkers/);
    const { settings, warnings } = read({});
    expect(settings.provisioningWorkers).toBeUndefined();
    expect(warnings.find((warning) => warning.id === 'bulkonboard:provisioningWorkersMissing')?.message).toMatch(/4 provisioning workers.*one per customer/);
  });

  it("cognitoEmail: 'ses' by default, 'cognito' for an account's first deploy, nothing else", () => {
    expect(read({}).settings.cognitoEmail).toBe('ses');
    expect(read({}, { COGNITO_EMAIL: 'cognito' }).settings.cognitoEmail).toBe('cognito');
    expect(() => read({ cognitoEmail: 'sns' })).toThrow(/cognitoEmail/);
  });

  it('the export bucket name fits S3\'s 63 characters for every allowed prefix and the longest account and region', () => {
    const longest = 'a'.repeat(31);
    for (const prefix of ['bo', 'bulkonboard', 'a'.repeat(25), 'a'.repeat(26), longest, `${'x'.repeat(15)}-${'y'.repeat(15)}`]) {
      const name = exportBucketName(prefix, '123456789012', 'ap-southeast-9-1');
      expect(name.length, prefix).toBeLessThanOrEqual(63);
      expect(name).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
    }
    // Unchanged for the prefixes that fitted before, so no deployed bucket is replaced.
    expect(exportBucketName('bulkonboard', '123456789012', 'eu-west-1')).toBe('bulkonboard-exports-123456789012-eu-west-1');
    // Two long prefixes that share their first 16 characters still get two names.
    expect(exportBucketName(`${'p'.repeat(16)}-one-stage`, '1', 'r')).not.toBe(exportBucketName(`${'p'.repeat(16)}-two-stage`, '1', 'r'));
  });

  it('mailDailyCap, mailReservedShare and mailBounceCutoff from context or DEPLOY_MAIL_DAILY_CAP / DEPLOY_MAIL_RESERVED_SHARE / DEPLOY_MAIL_BOUNCE_CUTOFF: a whole number (0: no cap), a share up to half, a rate up to 1; unset: the sender\'s defaults', () => {
    expect(read({ mailDailyCap: '200' }).settings.mailDailyCap).toBe(200);
    expect(read({ mailDailyCap: 0 }).settings.mailDailyCap).toBe(0);
    expect(read({}, { DEPLOY_MAIL_DAILY_CAP: '50000' }).settings.mailDailyCap).toBe(50_000);
    expect(read({}, { MAIL_DAILY_CAP: '5' }).settings.mailDailyCap).toBeUndefined();
    for (const bad of ['-1', '2.5', 'many', '1e3']) expect(() => read({ mailDailyCap: bad }), bad).toThrow(/mailDailyCap/);
    expect(read({ mailReservedShare: '0.1' }).settings.mailReservedShare).toBe(0.1);
    expect(read({}, { DEPLOY_MAIL_RESERVED_SHARE: '0.25' }).settings.mailReservedShare).toBe(0.25);
    expect(read({}).settings.mailReservedShare).toBeUndefined();
    for (const bad of ['0.6', '1', '-0.1', '10%']) expect(() => read({ mailReservedShare: bad }), bad).toThrow(/mailReservedShare/);
    expect(read({ mailBounceCutoff: '0.05' }).settings.mailBounceCutoff).toBe(0.05);
    expect(read({}, { DEPLOY_MAIL_BOUNCE_CUTOFF: '0' }).settings.mailBounceCutoff).toBe(0);
    expect(read({}).settings.mailBounceCutoff).toBeUndefined();
    for (const bad of ['5%', '1.5', '-0.05', 'high']) expect(() => read({ mailBounceCutoff: bad }), bad).toThrow(/mailBounceCutoff/);
  });

  it('the deploy workflow hands every deploy setting to cdk deploy, so no push loses one', () => {
    const workflow = readFileSync(path.join(projectRoot, '.github/workflows/deploy.yml'), 'utf8');
    for (const variable of ['APP_PREFIX', 'SES_FROM_ADDRESS', 'SES_IDENTITY', 'DEPLOY_STRIPE_PRICE_ID', 'ALARM_EMAIL', 'COGNITO_EMAIL', 'DEPLOY_MAIL_SEND_RATE', 'DEPLOY_PROVISIONING_WORKERS', 'DEPLOY_MAIL_DAILY_CAP', 'DEPLOY_MAIL_RESERVED_SHARE', 'DEPLOY_MAIL_BOUNCE_CUTOFF']) {
      expect(workflow, variable).toMatch(new RegExp(`^\\s+${variable}: \\$\\{\\{ vars\\.`, 'm'));
    }
  });

  it('the deploy workflow runs all of `npm test` before deploying, as root on Debian, where npm test installs Java, Chromium and slapd itself', () => {
    const workflow = readFileSync(path.join(projectRoot, '.github/workflows/deploy.yml'), 'utf8');
    const testAt = workflow.search(/^\s+run: npm test$/m);
    expect(testAt, 'a step runs npm test').toBeGreaterThanOrEqual(0);
    expect(workflow.indexOf('cdk deploy')).toBeGreaterThan(testAt);
    // No subset of the tests instead (the integration tests guard redelivery, single-use links,
    // plan limits and tenant isolation; the unit tests start slapd).
    expect(workflow).not.toMatch(/vitest run/);
    // bin/ensure-system-packages.ts installs with apt-get when it runs as root: a Debian container
    // (root by default, no `--user`), as .ci/run; Node 20 or newer for the scripts before npm ci.
    const image = /^\s+container: (\S+)$/m.exec(workflow)?.[1];
    expect(image, 'a container image').toBeDefined();
    expect(image).toMatch(/^node:(\d+)-(bookworm|trixie)$/);
    expect(Number(/^node:(\d+)/.exec(image!)![1])).toBeGreaterThanOrEqual(20);
    expect(workflow).not.toMatch(/--user|^\s+user:/m);
  });

  it('a missing web build becomes a placeholder page and a warning', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-web-build-'));
    const { settings, warnings } = read({ webAssetsPath: empty, sesFromAddress: 'a@example.org' });
    rmSync(empty, { recursive: true });
    expect(settings.webAssetsPath).toBeUndefined();
    expect(warnings.map((warning) => warning.message).join('\n')).toMatch(/npm run build/);
  });

  it('resolves the web build relative to the project root', () => {
    const { settings } = read({ webAssetsPath: 'frontend/dist', sesFromAddress: 'a@example.org' });
    expect([undefined, path.join(projectRoot, 'frontend/dist')]).toContain(settings.webAssetsPath);
  });
});
