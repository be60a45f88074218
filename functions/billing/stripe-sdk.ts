import { createRequire } from 'node:module';
import type StripeModule from 'stripe';

type StripeClass = typeof StripeModule;
let loaded: StripeClass | undefined;

/**
 * The Stripe SDK (~240 KB minified), loaded on first use: on AWS from the billing function's
 * layer (lib/package-layer.ts), which keeps it out of the bundle; locally from node_modules.
 */
export function stripeSdk(): StripeClass {
  if (!loaded) {
    const required = createRequire(import.meta.url)('stripe') as StripeClass & { default?: StripeClass; Stripe?: StripeClass };
    loaded = required.default ?? required.Stripe ?? required;
  }
  return loaded;
}
