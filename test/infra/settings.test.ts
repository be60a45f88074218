import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { placeholderSesFromAddress, projectRoot, readSettings } from '../../lib/settings';

const read = (context: Record<string, unknown>, env: Record<string, string | undefined> = {}) =>
  readSettings(new App({ context }).node, env);

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

  it('a missing web build becomes a placeholder page and a warning', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-web-build-'));
    const { settings, warnings } = read({ webAssetsPath: empty, sesFromAddress: 'a@example.org' });
    expect(settings.webAssetsPath).toBeUndefined();
    expect(warnings.map((warning) => warning.message).join('\n')).toMatch(/npm run build/);
  });

  it('resolves the web build relative to the project root', () => {
    const { settings } = read({ webAssetsPath: 'frontend/dist', sesFromAddress: 'a@example.org' });
    expect([undefined, path.join(projectRoot, 'frontend/dist')]).toContain(settings.webAssetsPath);
  });
});
