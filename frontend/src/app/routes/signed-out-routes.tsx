import { Suspense } from 'react';
import { Box } from '@chakra-ui/react';
import { Outlet, Route, Routes } from 'react-router';
import { LoadingScreen } from '../../components/loading-screen';
import { LandingPage } from '../../features/landing/components/landing-page';
import { lazyNamed } from './lazy-named';
import { SignedOutFallbackPage } from './signed-out-fallback-page';

// The landing page is in the entry chunk (it is the first screen); auth screens load on demand.
const SignInPage = lazyNamed(() => import('../../features/auth/components/sign-in-page'), 'SignInPage');
const SignUpPage = lazyNamed(() => import('../../features/auth/components/sign-up-page'), 'SignUpPage');
const ConfirmPage = lazyNamed(() => import('../../features/auth/components/confirm-page'), 'ConfirmPage');
const ForgotPasswordPage = lazyNamed(
  () => import('../../features/auth/components/forgot-password-page'),
  'ForgotPasswordPage',
);

export function SignedOutRoutes() {
  return (
    <Suspense fallback={<LoadingScreen />}>
      <Routes>
        <Route index element={<LandingPage />} />
        <Route element={<MainLandmark />}>
          <Route path="sign-in" element={<SignInPage />} />
          <Route path="sign-up" element={<SignUpPage />} />
          <Route path="confirm" element={<ConfirmPage />} />
          <Route path="forgot-password" element={<ForgotPasswordPage />} />
          <Route path="*" element={<SignedOutFallbackPage />} />
        </Route>
      </Routes>
    </Suspense>
  );
}

/**
 * The one-card screens are the page's main content: a main landmark holds them, so assistive
 * technology can jump to it and nothing sits outside a landmark (axe: landmark-one-main, region).
 * The landing page has its own header, main and footer.
 */
function MainLandmark() {
  return (
    <Box as="main">
      <Outlet />
    </Box>
  );
}
