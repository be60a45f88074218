import { createToaster } from '@chakra-ui/react';

/** The app's one toaster (spec 9: one toast at a time, 5 s). Rendered by components/toaster. */
export const toaster = createToaster({
  placement: 'bottom-end',
  max: 1,
  duration: 5000,
  pauseOnPageIdle: true,
});
