import { useEffect } from 'react';
import { BrowserRouter } from 'react-router';
import { showAccountDeletedNotice } from '../lib/account-deleted-notice';
import { AppProviders } from './providers';
import { AppRoutes } from './router';

export function App() {
  // After Delete Account the browser arrives here through /api/logout: say it is done.
  useEffect(showAccountDeletedNotice, []);
  return (
    <AppProviders>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
}
