import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Stripe from 'stripe';
import { PRO_PRICE_MONTHLY_USD } from '../../shared/plans';
import { LOCAL_BILLING_PATH, verifyLocalToken, type LocalBillingToken } from '../../functions/billing/local-billing';

/**
 * The local test checkout and billing portal of `npm start`: what Stripe's hosted pages do,
 * without a Stripe account. It keeps its customers' subscriptions in `<dataDir>/local-billing.json`
 * (Stripe's side of the state) and reports every change the way Stripe does: a Stripe-shaped
 * event, signed with the webhook secret, posted to the app's real webhook endpoint.
 */
export interface LocalSubscription {
  id: string;
  customer: string;
  userId: string;
  status: 'active' | 'past_due' | 'canceled';
  created: number;
  current_period_start: number;
  current_period_end: number;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  ended_at: number | null;
}

interface StripeEvent {
  id: string;
  type: string;
  created: number;
  data: { object: Record<string, unknown> };
}

interface LocalBillingState {
  subscriptions: Record<string, LocalSubscription>;
  /** Completed checkout sessions and the subscription each one started. */
  sessions: Record<string, string>;
  /**
   * Events not yet accepted by the webhook, oldest first. Like Stripe, the same event (same id)
   * is delivered again: on the next page view or action.
   */
  outbox: StripeEvent[];
  /** Customers deleted with their account: a later checkout link of theirs is refused, as Stripe refuses a deleted customer. */
  deletedCustomers: string[];
}

export interface LocalCheckoutOptions {
  dataDir: string;
  webhookSecret: string;
  webhookUrl: string;
  clock?: () => Date;
  log?: (message: string) => void;
}

const PRICE_LABEL = `$${PRO_PRICE_MONTHLY_USD.toFixed(2)}`;
const portalActions = ['cancel-at-period-end', 'resume', 'cancel-now', 'fail-payment', 'pay-overdue'] as const;
type PortalAction = (typeof portalActions)[number];

/** A second subscription for a customer whose subscription still bills. */
class AlreadySubscribed extends Error {
  constructor(readonly returnUrl: string) {
    super('You already have a BulkOnboard Pro subscription. Manage it from Settings > Subscription.');
  }
}

export function createLocalCheckout(options: LocalCheckoutOptions) {
  const stateFile = path.join(options.dataDir, 'local-billing.json');
  const clock = options.clock ?? (() => new Date());
  const seconds = () => Math.floor(clock().getTime() / 1000);
  let queue: Promise<unknown> = Promise.resolve();
  /** One change at a time, like Stripe's own per-object locking. */
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const load = (): LocalBillingState => {
    try {
      const parsed = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as Partial<LocalBillingState>;
      return { subscriptions: parsed.subscriptions ?? {}, sessions: parsed.sessions ?? {}, outbox: parsed.outbox ?? [], deletedCustomers: parsed.deletedCustomers ?? [] };
    } catch {
      return { subscriptions: {}, sessions: {}, outbox: [], deletedCustomers: [] };
    }
  };
  const save = (state: LocalBillingState) => {
    fs.writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2));
    fs.renameSync(`${stateFile}.tmp`, stateFile);
  };
  const subscriptionsOf = (state: LocalBillingState, customer: string) =>
    Object.values(state.subscriptions)
      .filter((s) => s.customer === customer)
      .sort((a, b) => b.created - a.created);

  const eventOf = (type: string, object: Record<string, unknown>): StripeEvent => ({
    id: `evt_local_${randomUUID().replaceAll('-', '')}`,
    type,
    created: seconds(),
    data: { object },
  });

  /** Posts one event to the webhook as Stripe does; throws with the webhook's answer when it refuses. */
  async function deliver(stored: StripeEvent): Promise<void> {
    const event = { object: 'event', api_version: '2025-10-29.clover', livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, ...stored };
    const payload = JSON.stringify(event);
    const response = await fetch(options.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret, timestamp: seconds() }),
      },
      body: payload,
    });
    const answer = await response.text();
    options.log?.(`local checkout: ${event.type} -> ${response.status}`);
    if (!response.ok) throw new Error(`The webhook answered ${response.status} to ${event.type}: ${answer}`);
  }

  /** Saves the state with new events queued, then delivers the queue in order until one is refused. */
  async function commit(state: LocalBillingState, events: StripeEvent[] = []): Promise<void> {
    state.outbox.push(...events);
    save(state);
    while (state.outbox.length) {
      await deliver(state.outbox[0]!);
      state.outbox.shift();
      save(state);
    }
  }

  const subscriptionObject = (s: LocalSubscription) => ({
    id: s.id,
    object: 'subscription',
    customer: s.customer,
    status: s.status,
    created: s.created,
    // Flexible billing mode, Checkout's default since API 2025-09-30: cancelling at period end
    // sets cancel_at to the period's end and leaves cancel_at_period_end false.
    billing_mode: { type: 'flexible' },
    cancel_at_period_end: false,
    cancel_at: s.cancel_at_period_end ? s.current_period_end : null,
    canceled_at: s.canceled_at,
    ended_at: s.ended_at,
    current_period_start: s.current_period_start,
    current_period_end: s.current_period_end,
    items: {
      object: 'list',
      data: [
        {
          id: `si_${s.id.slice(4)}`,
          object: 'subscription_item',
          current_period_start: s.current_period_start,
          current_period_end: s.current_period_end,
          price: { id: 'price_local_pro', object: 'price', currency: 'usd', unit_amount: Math.round(PRO_PRICE_MONTHLY_USD * 100), recurring: { interval: 'month' } },
          quantity: 1,
        },
      ],
    },
    metadata: { userId: s.userId },
    livemode: false,
  });

  async function pay(token: Extract<LocalBillingToken, { kind: 'checkout' }>): Promise<string> {
    return serial(async () => {
      const state = load();
      if (state.sessions[token.sessionId]) {
        await commit(state);
        return token.successUrl;
      }
      if (state.deletedCustomers.includes(token.customerId)) throw new Error('This customer was deleted with its account.');
      // Like Stripe's "limit customers to one subscription": no second subscription while one bills.
      if (subscriptionsOf(state, token.customerId).some((s) => s.status !== 'canceled')) throw new AlreadySubscribed(token.cancelUrl);
      const now = seconds();
      const end = new Date(now * 1000);
      end.setUTCMonth(end.getUTCMonth() + 1);
      const subscription: LocalSubscription = {
        id: `sub_local_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        customer: token.customerId,
        userId: token.userId,
        status: 'active',
        created: now,
        current_period_start: now,
        current_period_end: Math.floor(end.getTime() / 1000),
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
      };
      state.subscriptions[subscription.id] = subscription;
      state.sessions[token.sessionId] = subscription.id;
      await commit(state, [
        eventOf('checkout.session.completed', {
          id: token.sessionId,
          object: 'checkout.session',
          mode: 'subscription',
          status: 'complete',
          payment_status: 'paid',
          client_reference_id: token.userId,
          customer: token.customerId,
          customer_details: { email: token.email },
          subscription: subscription.id,
          amount_total: Math.round(PRO_PRICE_MONTHLY_USD * 100),
          currency: 'usd',
          metadata: { userId: token.userId },
          success_url: token.successUrl,
          cancel_url: token.cancelUrl,
          livemode: false,
        }),
        eventOf('customer.subscription.created', subscriptionObject(subscription)),
      ]);
      return token.successUrl;
    });
  }

  async function act(token: Extract<LocalBillingToken, { kind: 'portal' }>, action: PortalAction): Promise<void> {
    return serial(async () => {
      const state = load();
      const subscription = subscriptionsOf(state, token.customerId).find((s) => s.status !== 'canceled');
      if (!subscription) throw new Error('This customer has no subscription to change.');
      const now = seconds();
      const events: StripeEvent[] = [];
      switch (action) {
        case 'cancel-at-period-end':
          subscription.cancel_at_period_end = true;
          subscription.canceled_at = now;
          events.push(eventOf('customer.subscription.updated', subscriptionObject(subscription)));
          break;
        case 'resume':
          subscription.cancel_at_period_end = false;
          subscription.canceled_at = null;
          events.push(eventOf('customer.subscription.updated', subscriptionObject(subscription)));
          break;
        case 'cancel-now':
          subscription.status = 'canceled';
          subscription.cancel_at_period_end = false;
          subscription.canceled_at = now;
          subscription.ended_at = now;
          events.push(eventOf('customer.subscription.deleted', subscriptionObject(subscription)));
          break;
        case 'fail-payment':
          subscription.status = 'past_due';
          events.push(
            eventOf('invoice.payment_failed', {
                id: `in_local_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
                object: 'invoice',
                customer: subscription.customer,
                status: 'open',
                amount_due: Math.round(PRO_PRICE_MONTHLY_USD * 100),
                currency: 'usd',
                attempt_count: 1,
                parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, metadata: { userId: subscription.userId } } },
              }),
            eventOf('customer.subscription.updated', subscriptionObject(subscription)),
          );
          break;
        case 'pay-overdue':
          subscription.status = 'active';
          events.push(eventOf('customer.subscription.updated', subscriptionObject(subscription)));
          break;
      }
      await commit(state, events);
    });
  }

  /** Account deletion (the billing port's deleteCustomer): every subscription canceled now, the customer gone. */
  async function deleteCustomer(token: Extract<LocalBillingToken, { kind: 'delete-customer' }>): Promise<void> {
    return serial(async () => {
      const state = load();
      const now = seconds();
      const events: StripeEvent[] = [];
      for (const subscription of subscriptionsOf(state, token.customerId)) {
        if (subscription.status === 'canceled') continue;
        subscription.status = 'canceled';
        subscription.cancel_at_period_end = false;
        subscription.canceled_at = now;
        subscription.ended_at = now;
        events.push(eventOf('customer.subscription.deleted', subscriptionObject(subscription)));
      }
      if (!state.deletedCustomers.includes(token.customerId)) state.deletedCustomers.push(token.customerId);
      await commit(state, events);
    });
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [kind, tokenText = '', action] = url.pathname.slice(LOCAL_BILLING_PATH.length + 1).split('/');
    const token = verifyLocalToken(tokenText, options.webhookSecret, clock());
    if (!token || token.kind !== kind) {
      return html(res, 404, page('Link expired', `<p>This local checkout link is not valid or has expired. Go back to the app and start again.</p>`));
    }
    try {
      if (token.kind === 'delete-customer') {
        if (req.method !== 'POST' || action) return html(res, 405, page('Not allowed', '<p>This page does not take that request.</p>'));
        await deleteCustomer(token);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: token.customerId, deleted: true }));
        return;
      }
      if (req.method === 'GET' && !action) {
        // Events the webhook refused before are delivered again first, as Stripe retries them.
        const pending = await serial(() => commit(load())).then(
          () => '',
          (error: unknown) => `<p class="warning" role="alert">An earlier event was not accepted yet: ${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`,
        );
        const state = load();
        const body =
          token.kind === 'checkout'
            ? checkoutPage(token, tokenText, Boolean(state.sessions[token.sessionId]))
            : portalPage(token, tokenText, subscriptionsOf(state, token.customerId)[0], url.searchParams.get('done'));
        return html(res, 200, body.replace('<main>', `<main>${pending}`));
      }
      if (req.method === 'POST' && token.kind === 'checkout' && action === 'pay') return redirect(res, await pay(token));
      if (req.method === 'POST' && token.kind === 'portal' && portalActions.includes(action as PortalAction)) {
        await act(token, action as PortalAction);
        return redirect(res, `${LOCAL_BILLING_PATH}/portal/${tokenText}?done=${action}`);
      }
      return html(res, 405, page('Not allowed', '<p>This page does not take that request.</p>'));
    } catch (error) {
      if (error instanceof AlreadySubscribed) {
        return html(res, 409, page('Already subscribed', `<p role="alert">${escapeHtml(error.message)}</p><p><a href="${escapeHtml(error.returnUrl)}">Return to BulkOnboard</a></p>`));
      }
      options.log?.(`local checkout: ${error instanceof Error ? error.message : String(error)}`);
      return html(res, 502, page('Something went wrong', `<p role="alert">${escapeHtml(error instanceof Error ? error.message : String(error))}</p><p>Go back and try again.</p>`));
    }
  }

  return {
    handles: (pathname: string) => pathname.startsWith(`${LOCAL_BILLING_PATH}/`),
    serve: (req: IncomingMessage, res: ServerResponse) => {
      serve(req, res).catch((error: unknown) => {
        options.log?.(`local checkout error: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) html(res, 500, page('Something went wrong', '<p>The local checkout failed; see the terminal.</p>'));
      });
    },
  };
}

const dateOf = (epochSeconds: number) =>
  new Date(epochSeconds * 1000).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });

function checkoutPage(token: Extract<LocalBillingToken, { kind: 'checkout' }>, tokenText: string, completed: boolean): string {
  if (completed) {
    return page('Checkout complete', `<p>This checkout is already paid.</p><p><a class="button" href="${escapeHtml(token.successUrl)}">Return to BulkOnboard</a></p>`);
  }
  return page(
    'Subscribe to BulkOnboard Pro',
    `<dl>
      <dt>Plan</dt><dd>BulkOnboard Pro</dd>
      <dt>Price</dt><dd><strong>${PRICE_LABEL}</strong> per month, billed monthly</dd>
      <dt>Account</dt><dd>${escapeHtml(token.email)}</dd>
    </dl>
    <p class="muted">Unlimited projects and accounts, API integrations, e-mail notifications and templates, exports in CSV, Excel and JSON, priority support.</p>
    <div class="card-field" aria-label="Test card">Test card 4242 4242 4242 4242 · any date · any CVC</div>
    <form method="post" action="${LOCAL_BILLING_PATH}/checkout/${escapeHtml(tokenText)}/pay">
      <button type="submit">Pay ${PRICE_LABEL} and subscribe</button>
    </form>
    <p><a href="${escapeHtml(token.cancelUrl)}">Cancel and return to BulkOnboard</a></p>`,
  );
}

function portalPage(token: Extract<LocalBillingToken, { kind: 'portal' }>, tokenText: string, subscription: LocalSubscription | undefined, done: string | null): string {
  const back = `<p><a href="${escapeHtml(token.returnUrl)}">Return to BulkOnboard</a></p>`;
  const notice = done ? '<p class="notice" role="status">Your subscription was updated.</p>' : '';
  if (!subscription || subscription.status === 'canceled') {
    return page('Billing portal', `${notice}<p>You have no active subscription.${subscription?.ended_at ? ` Your Pro plan ended on ${dateOf(subscription.ended_at)}.` : ''}</p>${back}`);
  }
  const form = (action: PortalAction, label: string, style = '') =>
    `<form method="post" action="${LOCAL_BILLING_PATH}/portal/${escapeHtml(tokenText)}/${action}"><button type="submit" class="${style}">${label}</button></form>`;
  const status =
    subscription.status === 'past_due'
      ? `<p class="warning">Payment failed. Your plan is past due.</p>`
      : subscription.cancel_at_period_end
        ? `<p>Your plan will be canceled on <strong>${dateOf(subscription.current_period_end)}</strong>.</p>`
        : `<p>Your plan renews on <strong>${dateOf(subscription.current_period_end)}</strong>.</p>`;
  const actions = [
    subscription.status === 'past_due'
      ? form('pay-overdue', `Pay ${PRICE_LABEL} now`)
      : subscription.cancel_at_period_end
        ? form('resume', 'Renew subscription')
        : form('cancel-at-period-end', 'Cancel subscription'),
    form('cancel-now', 'Cancel immediately', 'secondary'),
    subscription.status === 'active' ? form('fail-payment', 'Simulate a failed payment', 'secondary') : '',
  ].join('');
  return page(
    'Billing portal',
    `${notice}<dl><dt>Current plan</dt><dd>BulkOnboard Pro · ${PRICE_LABEL} per month</dd></dl>${status}<div class="actions">${actions}</div>${back}`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Local test checkout</title>
<style>
  :root { color-scheme: light dark; --bg: #f4f4f5; --card: #fff; --fg: #18181b; --muted: #52525b; --accent: #2563eb; --border: #e4e4e7; --warn-bg: #fef3c7; --warn-fg: #78350f; }
  @media (prefers-color-scheme: dark) { :root { --bg: #09090b; --card: #18181b; --fg: #fafafa; --muted: #a1a1aa; --accent: #3b82f6; --border: #27272a; --warn-bg: #422006; --warn-fg: #fde68a; } }
  body { margin: 0; font: 16px/1.5 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
  .banner { background: var(--warn-bg); color: var(--warn-fg); padding: 10px 16px; text-align: center; font-weight: 600; }
  main { max-width: 460px; margin: 40px auto; background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 28px; }
  h1 { font-size: 1.4rem; margin: 0 0 16px; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; }
  dt { color: var(--muted); } dd { margin: 0; }
  .muted { color: var(--muted); font-size: .9rem; }
  .card-field { border: 1px dashed var(--border); border-radius: 8px; padding: 10px 12px; margin: 16px 0; color: var(--muted); font-family: ui-monospace, monospace; font-size: .85rem; }
  button, .button { display: inline-block; width: 100%; box-sizing: border-box; padding: 10px 16px; border: 0; border-radius: 8px; background: var(--accent); color: #fff; font: inherit; font-weight: 600; cursor: pointer; text-align: center; text-decoration: none; }
  button.secondary { background: transparent; color: var(--fg); border: 1px solid var(--border); }
  .actions { display: grid; gap: 8px; margin: 16px 0; }
  form { margin: 0; }
  a { color: var(--accent); }
  .notice { background: color-mix(in srgb, var(--accent) 15%, transparent); padding: 8px 12px; border-radius: 8px; }
  .warning { color: #dc2626; font-weight: 600; }
</style>
</head>
<body>
<div class="banner" role="note">Local test checkout: no Stripe account, no real payment. Run by npm start.</div>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

function html(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}

function redirect(res: ServerResponse, location: string) {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
