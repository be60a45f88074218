import { createToaster } from '@chakra-ui/react';

/** The app's one toaster (spec 9: one toast at a time, 5 s). Rendered by components/toaster. */
export const toaster = createToaster({
  // Top right: at the bottom it would cover dialog buttons (Generate Accounts, Done) for 5 s.
  placement: 'top-end',
  max: 1,
  duration: 5000,
  pauseOnPageIdle: true,
});
