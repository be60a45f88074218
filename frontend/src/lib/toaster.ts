import { createToaster } from '@chakra-ui/react';

/**
 * Where toasts appear: the bottom right corner on desktop, the bottom edge on phones (see
 * components/toaster). Not at the top, where they covered New Project and the user menu; not at
 * the bottom left, where the side navigation keeps the plan card and Upgrade Now. Dialogs keep
 * their buttons clear of this corner (app/theme: dialog positioner).
 */
const TOAST_PLACEMENT = 'bottom-end';

const store = createToaster({
  placement: TOAST_PLACEMENT,
  max: 1,
  duration: 5000,
  pauseOnPageIdle: true,
});

type CreateOptions = Parameters<typeof store.create>[0];

let lastId = 0;

/**
 * The app's one toaster (spec 9: at most one toast shown, 5 s). Rendered by components/toaster.
 * With `max: 1` alone Chakra queues a new toast until the shown one times out, so the latest news
 * waits behind stale news: creating a toast removes the one shown instead (an update of the same
 * id keeps it).
 *
 * The change is made in a microtask, never where it is asked for: toasts are raised from effects
 * (an export that became ready, a job that ended), and the toast group sets its list with React's
 * flushSync, which React refuses inside an effect ("flushSync was called from inside a lifecycle
 * method"). The refused update left the group working from its last rendered list, so removing
 * the shown toast and adding the new one both started from it: two toasts showed at once.
 */
export const toaster: typeof store = {
  ...store,
  create: (options: CreateOptions) => {
    const id = options.id ?? `toast:${Date.now()}:${++lastId}`;
    queueMicrotask(() => {
      for (const shown of store.getVisibleToasts()) {
        if (shown.id !== undefined && shown.id !== id) store.remove(shown.id);
      }
      store.create({ ...options, id });
    });
    return id;
  },
};
