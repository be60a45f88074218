import { Button } from '@chakra-ui/react';
import { ErrorScreen } from '../../components/error-screen';
import { LoadingScreen } from '../../components/loading-screen';
import { ApiError } from '../../lib/api-client';
import { useCurrentUserQuery } from '../../lib/user-api';
import { useSignOut } from '../../lib/use-sign-out';
import { QueryProvider } from '../query-provider';
import { useNavigate } from 'react-router';
import { OnboardingPage } from '../../features/onboarding/components/onboarding-page';
import { SignedInRoutes } from './signed-in-routes';

/** A Cognito session exists: load the current user (its presence = authenticated), then the app. */
export function SignedInApp() {
  return (
    <QueryProvider>
      <CurrentUserGate />
    </QueryProvider>
  );
}

function CurrentUserGate() {
  const user = useCurrentUserQuery(true);
  const signOut = useSignOut();
  const navigate = useNavigate();

  if (user.isPending) return <LoadingScreen />;
  // A failed re-read (after a plan change, say) keeps the user already loaded: only a first load fails the app.
  if (user.isError && !user.data) {
    // 401: the api client shows the logged-out toast and redirects to /api/login.
    if (user.error instanceof ApiError && user.error.status === 401) return <LoadingScreen />;
    return (
      <ErrorScreen
        title="Your account could not be loaded"
        message={user.error.message}
        actions={
          <>
            <Button colorPalette="blue" onClick={() => void user.refetch()}>
              Try again
            </Button>
            <Button variant="outline" onClick={() => void signOut()}>
              Sign out
            </Button>
          </>
        }
      />
    );
  }
  // 'Tell us about yourself' comes once, after the first sign-in, before anything else.
  if (user.data && !user.data.onboarded) return <OnboardingPage user={user.data} onDone={() => void navigate('/', { replace: true })} />;
  return <SignedInRoutes />;
}
