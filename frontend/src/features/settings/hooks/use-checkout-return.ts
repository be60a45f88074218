import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { queryKeys } from '../../../lib/query-keys';
import { effectivePlanOf } from '../../../lib/plan-status';
import { getSubscriptionStatus, invalidatePlanQueries } from '../../../lib/subscription-api';
import { toaster } from '../../../lib/toaster';

/** Stripe Checkout sends the user back to /settings?tab=subscription&checkout=success|cancelled. */
export const CHECKOUT_PARAM = 'checkout';
/** Stripe's webhook may land a moment after the redirect: read the plan this often, this long. */
export const CHECKOUT_POLL_MS = 1000;
export const CHECKOUT_POLL_LIMIT_MS = 15_000;

/**
 * After a successful checkout: 'confirming' while the plan is not yet an active Pro plan,
 * 'confirmed' once it is, 'delayed' when it still was not after CHECKOUT_POLL_LIMIT_MS.
 */
export type CheckoutConfirmation = 'none' | 'confirming' | 'confirmed' | 'delayed';

type CheckoutReturn = 'success' | 'cancelled' | undefined;

const checkoutReturnOf = (value: string | null): CheckoutReturn =>
  value === 'success' || value === 'cancelled' ? value : undefined;

/**
 * Handles the return from Stripe Checkout. A return is a fresh page load, so the parameter is read
 * once, when Settings mounts; switching tabs meanwhile does not stop the confirmation.
 * 1. Cancelled: toast 'Checkout cancelled' at once.
 * 2. Success: read the plan every second until it is an active Pro plan (at most 15 s), then
 *    re-read the user. Only then toast 'Welcome to Pro' (also when the user was Pro already); the
 *    return URL alone proves nothing, and an unconfirmed plan gets the delayed notice instead.
 * 3. Drop ?checkout= from the address (replace), so a reload does not announce it again.
 */
export function useCheckoutReturn(): CheckoutConfirmation {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [checkout] = useState(() => checkoutReturnOf(searchParams.get(CHECKOUT_PARAM)));
  const [confirmation, setConfirmation] = useState<CheckoutConfirmation>(checkout === 'success' ? 'confirming' : 'none');
  // StrictMode runs the effect twice: announce once.
  const announced = useRef(false);

  useEffect(() => {
    if (!checkout) return;
    // The address as it is now (the user may have switched tabs since), without ?checkout=.
    const dropParam = () => {
      const url = new URL(window.location.href);
      if (!url.searchParams.has(CHECKOUT_PARAM)) return;
      url.searchParams.delete(CHECKOUT_PARAM);
      void navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
    };

    const announce = (toast: Parameters<typeof toaster.create>[0]) => {
      if (announced.current) return;
      announced.current = true;
      // Not during React's commit: the toaster renders synchronously (flushSync).
      queueMicrotask(() => toaster.create(toast));
    };

    if (checkout === 'cancelled') {
      announce({ type: 'info', title: 'Checkout cancelled', description: 'You have not been charged; your plan is unchanged.' });
      invalidatePlanQueries(queryClient);
      dropParam();
      return;
    }

    let stopped = false;
    let timer: number | undefined;
    const startedAt = Date.now();
    const finish = (outcome: 'confirmed' | 'delayed') => {
      stopped = true;
      setConfirmation(outcome);
      if (outcome === 'confirmed') {
        announce({ type: 'success', title: 'Welcome to Pro', description: 'Your subscription is active.' });
      }
      // The user (subscriptionPlan) and everything else that shows the plan.
      invalidatePlanQueries(queryClient);
      dropParam();
    };
    const poll = async () => {
      try {
        const status = await queryClient.fetchQuery({
          queryKey: queryKeys.subscriptionStatus,
          queryFn: getSubscriptionStatus,
          staleTime: 0,
        });
        if (stopped) return;
        if (effectivePlanOf(status) === 'pro') return finish('confirmed');
      } catch {
        // A lost read is not a failed checkout: ask again on the next tick.
        if (stopped) return;
      }
      if (Date.now() - startedAt >= CHECKOUT_POLL_LIMIT_MS) return finish('delayed');
      timer = window.setTimeout(() => void poll(), CHECKOUT_POLL_MS);
    };
    void poll();

    return () => {
      const unfinished = !stopped;
      stopped = true;
      window.clearTimeout(timer);
      // Left Settings before the plan read active Pro (no toast then): whatever shows the plan
      // reads it once more.
      if (unfinished) invalidatePlanQueries(queryClient);
    };
  }, [checkout, navigate, queryClient]);

  return confirmation;
}
