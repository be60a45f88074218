import { Button } from '@chakra-ui/react';
import { Suspense, useEffect } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { ErrorScreen } from '../components/error-screen';
import { LoadingScreen } from '../components/loading-screen';
import { startSession, useSession } from '../lib/session';
import { lazyNamed } from './routes/lazy-named';
import { SignedOutRoutes } from './routes/signed-out-routes';

// The signed-in app (data layer, layout, every page) is its own chunk: the landing never loads it.
const SignedInApp = lazyNamed(() => import('./routes/signed-in-app'), 'SignedInApp');
// The public page of a one-time credential link: its own chunk, reached by people who have no account.
const CredentialLinkPage = lazyNamed(() => import('../features/credential-links/components/credential-link-page'), 'CredentialLinkPage');

/**
 * A one-time credential link's page is the same signed in or out: it is served before (and
 * without) the session, so it never redirects to sign-in and never sends the user's token.
 */
export function AppRoutes() {
  const { pathname } = useLocation();
  if (pathname === '/credentials' || pathname.startsWith('/credentials/')) {
    return (
      <Suspense fallback={<LoadingScreen />}>
        <Routes>
          <Route path="/credentials" element={<CredentialLinkPage />} />
          <Route path="/credentials/:token" element={<CredentialLinkPage />} />
          <Route path="*" element={<CredentialLinkPage />} />
        </Routes>
      </Suspense>
    );
  }
  return <SessionRoutes />;
}

/**
 * Signed out: landing, auth screens, fallback. Signed in (a Cognito session AND the current user
 * from GET /api/auth/user, see SignedInApp): the app. A spinner shows while auth loads.
 */
function SessionRoutes() {
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
