import { useEffect } from 'react';
import { BrowserRouter } from 'react-router';
import { showAccountDeletedNotice } from '../lib/account-deleted-notice';
import { showSessionEndedNotice } from '../lib/session-ended-notice';
import { AppProviders } from './providers';
import { AppRoutes } from './router';

export function App() {
  // After Delete Account the browser arrives here through /api/logout: say it is done.
  useEffect(showAccountDeletedNotice, []);
  // After the API ended the session (timeout, signed in elsewhere): say why on the sign-in page.
  useEffect(showSessionEndedNotice, []);
  return (
    <AppProviders>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
}
