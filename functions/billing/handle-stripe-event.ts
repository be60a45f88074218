import { stripeSdk } from './stripe-sdk';
import type { PlanId } from '../../shared/plans';
import { ConflictError, ValidationError } from '../core/errors';
import { ENDED_SUBSCRIPTION_STATES } from './billing-port';

/** What a subscription event changes on the user item; unset fields stay as they are. */
export interface SubscriptionChange {
  plan?: PlanId;
  status?: string;
  /** ISO timestamp. */
  currentPeriodEnd?: string;
  cancelAtPeriodEnd?: boolean;
  stripeCustomerId?: string;
  stripeSubscriptionId?: string;
}

/** The guards an event's change is applied under (besides never being older than the stored state). */
export interface EventGuards {
  /**
   * Applied only if strictly newer than the stored state; a same-second tie keeps what is stored.
   * For states that a later event of the same second supersedes (an incomplete subscription).
   */
  weak: boolean;
  /** Subscription events apply to the user's current subscription only (or when it has ended). */
  subscriptionId?: string;
  /** A completed checkout applies only to the customer stored on the user (or when none is). */
  customerId?: string;
}

export interface BillingUserStore {
  /**
   * In one transaction: records the event id (once) and applies the change to the user, unless a
   * newer event was applied already or a guard fails. Never creates a user.
   */
  applyEvent(input: {
    eventId: string;
    expiresAt: number;
    userId: string;
    change: SubscriptionChange;
    eventCreated: number;
    guards: EventGuards;
    now: Date;
  }): Promise<'applied' | 'duplicate' | 'stale' | 'missing'>;
  linkCustomer(customerId: string, userId: string): Promise<void>;
  userOfCustomer(customerId: string): Promise<string | undefined>;
}

export interface HandleStripeEventDeps {
  users: BillingUserStore;
  clock: () => Date;
  webhookSecret: string;
  /** Tells the user in the bell that a payment failed (once per event; never throws). */
  paymentFailed?: (input: { userId: string; eventId: string; at: Date }) => Promise<void>;
}

export type StripeEventOutcome = 'applied' | 'duplicate' | 'stale' | 'ignored';

/** Stripe's default: a signature older than this is refused (replayed captures). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
export const PROCESSED_EVENT_TTL_SECONDS = 30 * 24 * 60 * 60;
export const INVALID_SIGNATURE = 'Invalid signature';

/** Only the fields read here, whatever the API version adds. */
interface StripeObject {
  id?: string;
  object?: string;
  client_reference_id?: string | null;
  customer?: string | { id: string } | null;
  subscription?: string | { id: string } | null;
  status?: string;
  payment_status?: string;
  current_period_end?: number;
  cancel_at_period_end?: boolean;
  cancel_at?: number | null;
  metadata?: Record<string, string> | null;
  items?: { data?: { current_period_end?: number }[] };
  parent?: { subscription_details?: { subscription?: string | { id: string }; metadata?: Record<string, string> | null } | null } | null;
}
interface VerifiedEvent {
  id: string;
  type: string;
  created: number;
  data: { object: StripeObject };
}

const idOf = (value: string | { id: string } | null | undefined): string | undefined => (typeof value === 'string' ? value : value?.id);
const isoOf = (epochSeconds: number | null | undefined) => (typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString() : undefined);
/** A checkout is paid (or needs no payment, e.g. a trial) only in these states. */
const PAID = new Set(['paid', 'no_payment_required']);

/**
 * POST /api/stripe/webhook:
 * 1. Verify the Stripe-Signature header on the raw body (tampered, stale or unsigned: 400).
 * 2. Find the user (client_reference_id, subscription metadata.userId, else the customer link).
 * 3. In one transaction, record the event id (a replay answers 200 'duplicate' without a second
 *    effect) and apply plan, status, period end and cancel-at-period-end, unless a newer event
 *    already did ('stale'). Nothing is recorded when nothing was applied, so Stripe's retry of
 *    an event that failed half-way is handled in full.
 */
export const handleStripeEvent =
  (deps: HandleStripeEventDeps) =>
  async (input: { rawBody: string | undefined; signature: string | undefined }): Promise<StripeEventOutcome> => {
    const event = verify(input, deps);
    const now = deps.clock();
    const change = changeOf(event);
    if (!change) return 'ignored';

    const userId = change.userId ?? (change.customerId ? await deps.users.userOfCustomer(change.customerId) : undefined);
    // Not linked yet (an event that overtook checkout.session.completed): Stripe retries it.
    if (!userId) throw new ConflictError('No user for this Stripe customer yet');
    const result = await deps.users.applyEvent({
      eventId: event.id,
      expiresAt: Math.floor(now.getTime() / 1000) + PROCESSED_EVENT_TTL_SECONDS,
      userId,
      change: change.apply,
      eventCreated: event.created,
      guards: change.guards,
      now,
    });
    if (result === 'missing') throw new ConflictError('No user for this Stripe event');
    // 'applied' happens once per event id (a replay is 'duplicate'): one notification.
    if (event.type === 'invoice.payment_failed' && result === 'applied') await deps.paymentFailed?.({ userId, eventId: event.id, at: now });
    // The customer was linked when it was created; a completed checkout links it again
    // (idempotent, also on a retry) once it was accepted for this user.
    if (event.type === 'checkout.session.completed' && change.customerId && (result === 'applied' || result === 'duplicate')) {
      await deps.users.linkCustomer(change.customerId, userId);
    }
    return result;
  };

function verify(input: { rawBody: string | undefined; signature: string | undefined }, deps: HandleStripeEventDeps): VerifiedEvent {
  if (!input.rawBody || !input.signature) throw new ValidationError(INVALID_SIGNATURE);
  try {
    const event = stripeSdk().webhooks.constructEvent(input.rawBody, input.signature, deps.webhookSecret, SIGNATURE_TOLERANCE_SECONDS, undefined, deps.clock().getTime()) as unknown as VerifiedEvent;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number' || typeof event.data?.object !== 'object') {
      throw new Error('Not an event');
    }
    return event;
  } catch {
    throw new ValidationError(INVALID_SIGNATURE);
  }
}

interface EventChange {
  userId?: string;
  customerId?: string;
  apply: SubscriptionChange;
  guards: EventGuards;
}

function changeOf(event: VerifiedEvent): EventChange | undefined {
  const object = event.data.object;
  const customerId = idOf(object.customer);
  const withIds = (userId: string | undefined) => ({ ...(userId ? { userId } : {}), ...(customerId ? { customerId } : {}) });
  switch (event.type) {
    case 'checkout.session.completed': {
      const userId = object.client_reference_id ?? undefined;
      const subscriptionId = idOf(object.subscription);
      if (!userId || !subscriptionId) return undefined;
      const ids = { stripeSubscriptionId: subscriptionId, ...(customerId ? { stripeCustomerId: customerId } : {}) };
      // Paid: Pro now. Not yet paid (a bank debit confirms later): only the ids; the
      // subscription's own events grant Pro once it is active.
      const paid = object.payment_status === undefined || PAID.has(object.payment_status);
      return {
        ...withIds(userId),
        apply: paid ? { plan: 'pro', status: 'active', ...ids } : ids,
        guards: { weak: !paid, ...(customerId ? { customerId } : {}) },
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const status = object.status ?? 'active';
      const ended = ENDED_SUBSCRIPTION_STATES.includes(status);
      const periodEnd = object.current_period_end ?? object.items?.data?.[0]?.current_period_end;
      // Flexible billing (API 2025-09-30 on) cancels at period end by setting cancel_at and
      // leaving cancel_at_period_end false; older subscriptions set the flag.
      const cancelAt = typeof object.cancel_at === 'number' ? object.cancel_at : undefined;
      const endsAt = isoOf(cancelAt ?? periodEnd);
      return {
        ...withIds(object.metadata?.userId),
        apply: {
          plan: ended ? 'free' : 'pro',
          status,
          cancelAtPeriodEnd: !ended && (object.cancel_at_period_end === true || cancelAt !== undefined),
          ...(endsAt ? { currentPeriodEnd: endsAt } : {}),
          ...(object.id ? { stripeSubscriptionId: object.id } : {}),
        },
        // An incomplete subscription is superseded by the same second's activation.
        guards: { weak: status === 'incomplete', ...(object.id ? { subscriptionId: object.id } : {}) },
      };
    }
    case 'customer.subscription.deleted':
      return {
        ...withIds(object.metadata?.userId),
        apply: { plan: 'free', status: 'canceled', cancelAtPeriodEnd: false },
        guards: { weak: false, ...(object.id ? { subscriptionId: object.id } : {}) },
      };
    case 'invoice.payment_failed': {
      const details = object.parent?.subscription_details;
      const subscriptionId = idOf(details?.subscription) ?? idOf(object.subscription);
      return {
        ...withIds(details?.metadata?.userId ?? object.metadata?.userId),
        apply: { status: 'past_due' },
        guards: { weak: false, ...(subscriptionId ? { subscriptionId } : {}) },
      };
    }
    default:
      return undefined;
  }
}
