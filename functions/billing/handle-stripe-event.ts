import Stripe from 'stripe';
import type { PlanId } from '../../shared/plans';
import { ConflictError, ValidationError } from '../core/errors';

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

export interface BillingUserStore {
  /**
   * Applies the change unless a newer event (larger `eventCreated`, epoch seconds) was applied
   * already. Never creates a user: 'missing' when there is none.
   */
  applySubscription(userId: string, change: SubscriptionChange, eventCreated: number, now: Date): Promise<'applied' | 'stale' | 'missing'>;
  linkCustomer(customerId: string, userId: string): Promise<void>;
  userOfCustomer(customerId: string): Promise<string | undefined>;
}

export interface ProcessedEventStore {
  /** Records the event id; false when it was recorded before (a replay). */
  markProcessed(eventId: string, expiresAt: number): Promise<boolean>;
  /** Forgets the event id, so Stripe's retry of an event that failed half-way is handled. */
  unmark(eventId: string): Promise<void>;
}

export interface HandleStripeEventDeps {
  users: BillingUserStore;
  events: ProcessedEventStore;
  clock: () => Date;
  webhookSecret: string;
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
  current_period_end?: number;
  cancel_at_period_end?: boolean;
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
const isoOf = (epochSeconds: number | undefined) => (typeof epochSeconds === 'number' ? new Date(epochSeconds * 1000).toISOString() : undefined);
/** Subscription states in which Stripe no longer bills: the user is back on free. */
const ENDED = new Set(['canceled', 'incomplete_expired']);

/**
 * POST /api/stripe/webhook:
 * 1. Verify the Stripe-Signature header on the raw body (tampered, stale or unsigned: 400).
 * 2. Record the event id once; a replay answers 200 without a second effect.
 * 3. Find the user (client_reference_id, subscription metadata.userId, else the customer link).
 * 4. Apply plan, status, period end and cancel-at-period-end, unless a newer event already did.
 */
export const handleStripeEvent =
  (deps: HandleStripeEventDeps) =>
  async (input: { rawBody: string | undefined; signature: string | undefined }): Promise<StripeEventOutcome> => {
    const event = verify(input, deps);
    const now = deps.clock();
    const change = changeOf(event);
    if (!change) return 'ignored';

    if (!(await deps.events.markProcessed(event.id, Math.floor(now.getTime() / 1000) + PROCESSED_EVENT_TTL_SECONDS))) return 'duplicate';
    try {
      const userId = change.userId ?? (change.customerId ? await deps.users.userOfCustomer(change.customerId) : undefined);
      // Not linked yet (an event that overtook checkout.session.completed): Stripe retries it.
      if (!userId) throw new ConflictError('No user for this Stripe customer yet');
      if (event.type === 'checkout.session.completed' && change.customerId) await deps.users.linkCustomer(change.customerId, userId);
      const result = await deps.users.applySubscription(userId, change.apply, event.created, now);
      if (result === 'missing') throw new ConflictError('No user for this Stripe event');
      return result;
    } catch (error) {
      await deps.events.unmark(event.id);
      throw error;
    }
  };

function verify(input: { rawBody: string | undefined; signature: string | undefined }, deps: HandleStripeEventDeps): VerifiedEvent {
  if (!input.rawBody || !input.signature) throw new ValidationError(INVALID_SIGNATURE);
  try {
    const event = Stripe.webhooks.constructEvent(input.rawBody, input.signature, deps.webhookSecret, SIGNATURE_TOLERANCE_SECONDS, undefined, deps.clock().getTime()) as unknown as VerifiedEvent;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number' || typeof event.data?.object !== 'object') {
      throw new Error('Not an event');
    }
    return event;
  } catch {
    throw new ValidationError(INVALID_SIGNATURE);
  }
}

function changeOf(event: VerifiedEvent): { userId?: string; customerId?: string; apply: SubscriptionChange } | undefined {
  const object = event.data.object;
  const customerId = idOf(object.customer);
  switch (event.type) {
    case 'checkout.session.completed': {
      const userId = object.client_reference_id ?? undefined;
      const subscriptionId = idOf(object.subscription);
      if (!userId || !subscriptionId) return undefined;
      return {
        userId,
        ...(customerId ? { customerId } : {}),
        apply: { plan: 'pro', status: 'active', stripeSubscriptionId: subscriptionId, ...(customerId ? { stripeCustomerId: customerId } : {}) },
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const status = object.status ?? 'active';
      const periodEnd = isoOf(object.current_period_end ?? object.items?.data?.[0]?.current_period_end);
      return {
        ...(object.metadata?.userId ? { userId: object.metadata.userId } : {}),
        ...(customerId ? { customerId } : {}),
        apply: {
          plan: ENDED.has(status) ? 'free' : 'pro',
          status,
          cancelAtPeriodEnd: object.cancel_at_period_end === true,
          ...(periodEnd ? { currentPeriodEnd: periodEnd } : {}),
          ...(object.id ? { stripeSubscriptionId: object.id } : {}),
        },
      };
    }
    case 'customer.subscription.deleted':
      return {
        ...(object.metadata?.userId ? { userId: object.metadata.userId } : {}),
        ...(customerId ? { customerId } : {}),
        apply: { plan: 'free', status: 'canceled', cancelAtPeriodEnd: false },
      };
    case 'invoice.payment_failed': {
      const userId = object.parent?.subscription_details?.metadata?.userId ?? object.metadata?.userId;
      return { ...(userId ? { userId } : {}), ...(customerId ? { customerId } : {}), apply: { status: 'past_due' } };
    }
    default:
      return undefined;
  }
}
