import { Button } from '@chakra-ui/react';
import { Suspense, useEffect } from 'react';
import { ErrorScreen } from '../components/error-screen';
import { LoadingScreen } from '../components/loading-screen';
import { startSession, useSession } from '../lib/session';
import { lazyNamed } from './routes/lazy-named';
import { SignedOutRoutes } from './routes/signed-out-routes';

// The signed-in app (data layer, layout, every page) is its own chunk: the landing never loads it.
const SignedInApp = lazyNamed(() => import('./routes/signed-in-app'), 'SignedInApp');

/**
 * Signed out: landing, auth screens, fallback. Signed in (a Cognito session AND the current user
 * from GET /api/auth/user, see SignedInApp): the app. A spinner shows while auth loads.
 */
export function AppRoutes() {
  const session = useSession();
  useEffect(() => startSession(), []);

  switch (session.status) {
    case 'loading':
      return <LoadingScreen />;
    case 'error':
      return (
        <ErrorScreen
          title="BulkOnboard could not start"
          message={`Sign-in could not be set up (${session.error.message}).`}
          actions={<Button onClick={() => startSession(true)}>Try again</Button>}
        />
      );
    case 'signedOut':
      return <SignedOutRoutes />;
    case 'signedIn':
      return (
        <Suspense fallback={<LoadingScreen />}>
          <SignedInApp />
        </Suspense>
      );
  }
}
