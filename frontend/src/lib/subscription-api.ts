import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { PlanId } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { effectivePlanOf } from './plan-status';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';
import { currentUserQueryKey } from './user-api';
import { newIdempotencyKey } from './idempotency-key';

/**
 * The plan and its usage, and the way to change it (Stripe Checkout and the Billing Portal).
 * Read by the side navigation, Settings, the Bulk Creator and the Export Center: every
 * plan-dependent screen reads this one query, so refreshing it after a plan change updates them all.
 */
export const getSubscriptionStatus = () => apiRequest<SubscriptionStatus>('/api/subscription/status');

export function useSubscriptionStatus() {
  return useQuery({ queryKey: queryKeys.subscriptionStatus, queryFn: getSubscriptionStatus });
}

/** The plan whose limits apply, or undefined until the status has loaded. */
export function useEffectivePlan(): PlanId | undefined {
  const { data } = useSubscriptionStatus();
  return data ? effectivePlanOf(data) : undefined;
}

/** Everything that shows the plan: the status (with usage) and the current user (subscriptionPlan). */
export function invalidatePlanQueries(queryClient: QueryClient): void {
  for (const queryKey of [queryKeys.subscriptionStatus, currentUserQueryKey]) {
    void queryClient.invalidateQueries({ queryKey });
  }
}


/** A 200 without the URL to go to. */
class MissingRedirectError extends Error {}

const isLoggedOut = (error: Error) => error.message.startsWith('401');
const isConflict = (error: Error) => error instanceof ApiError && error.status === 409;

/**
 * A mutation whose success leaves the page. `busy` stays true from the click until the browser has
 * gone (so the button cannot be pressed twice); coming back through the back button (a page
 * restored from the back/forward cache) makes the button usable again and re-reads the plan.
 * Errors show the spec's toast; a 409 (this screen's plan was out of date) re-reads the plan and
 * shows the server's clearer message ('You already have a Pro subscription. ...').
 */
function useRedirectMutation(options: {
  request: () => Promise<string | undefined>;
  errorTitle: string;
  errorDescription: string;
  /** Shown when the answer has no URL to go to. */
  missingUrlDescription?: string;
}) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: async () => {
      const url = await options.request();
      if (!url) throw new MissingRedirectError();
      return url;
    },
    onSuccess: (url) => window.location.assign(url),
    onError: (error) => {
      if (isLoggedOut(error)) return; // the logged-out toast is already showing
      if (isConflict(error)) invalidatePlanQueries(queryClient);
      toaster.create({
        type: 'error',
        title: options.errorTitle,
        description:
          error instanceof MissingRedirectError && options.missingUrlDescription
            ? options.missingUrlDescription
            : (serverMessageOf(error, [409]) ?? options.errorDescription),
      });
    },
  });
  const { reset } = mutation;

  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      reset();
      invalidatePlanQueries(queryClient);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, [reset, queryClient]);

  return { ...mutation, busy: mutation.isPending || mutation.isSuccess };
}

/**
 * POST /api/subscription/create-checkout, then the browser goes to Stripe Checkout. Stripe sends
 * the user back to /settings?tab=subscription&checkout=success (or =cancelled).
 */
export function useStartCheckout() {
  return useRedirectMutation({
    request: async () =>
      (
        await apiRequest<{ checkoutUrl?: string }>('/api/subscription/create-checkout', {
          method: 'POST',
          // One Checkout session per key: a second click would get a second session, which is why
          // the button stays disabled while busy (see useRedirectMutation).
          headers: { 'Idempotency-Key': newIdempotencyKey() },
        })
      ).checkoutUrl,
    errorTitle: 'Upgrade failed',
    errorDescription: 'Failed to start upgrade process. Please try again.',
    missingUrlDescription: 'No checkout URL received',
  });
}

/**
 * POST /api/subscription/create-portal, then the browser goes to Stripe's Billing Portal (payment
 * method, invoices, cancel); it returns to /settings?tab=subscription.
 */
export function useOpenPortal() {
  return useRedirectMutation({
    request: async () =>
      (await apiRequest<{ portalUrl?: string }>('/api/subscription/create-portal', { method: 'POST' })).portalUrl,
    errorTitle: 'Portal failed',
    errorDescription: 'Failed to open customer portal. Please try again.',
  });
}
