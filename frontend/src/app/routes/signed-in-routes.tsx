import { Navigate, Route, Routes } from 'react-router';
import { AppLayout } from '../layout/app-layout';
import { lazyNamed } from './lazy-named';
import { NotFoundPage } from './not-found-page';

const DashboardPage = lazyNamed(() => import('../../features/dashboard/components/dashboard-page'), 'DashboardPage');
const ProjectsPage = lazyNamed(() => import('../../features/projects/components/projects-page'), 'ProjectsPage');
const ProjectDetailPage = lazyNamed(
  () => import('../../features/projects/components/project-detail-page'),
  'ProjectDetailPage',
);
const BulkCreatorPage = lazyNamed(
  () => import('../../features/bulk-creator/components/bulk-creator-page'),
  'BulkCreatorPage',
);
const IntegrationsPage = lazyNamed(
  () => import('../../features/integrations/components/integrations-page'),
  'IntegrationsPage',
);
const AccountsPage = lazyNamed(() => import('../../features/accounts/components/accounts-page'), 'AccountsPage');
const ExportsPage = lazyNamed(() => import('../../features/exports/components/exports-page'), 'ExportsPage');
const EmailTemplatesPage = lazyNamed(
  () => import('../../features/email-templates/components/email-templates-page'),
  'EmailTemplatesPage',
);
const SecurityPage = lazyNamed(() => import('../../features/security/components/security-page'), 'SecurityPage');
const AnalyticsPage = lazyNamed(() => import('../../features/analytics/components/analytics-page'), 'AnalyticsPage');
const SettingsPage = lazyNamed(() => import('../../features/settings/components/settings-page'), 'SettingsPage');
const ProfilePage = lazyNamed(() => import('../../features/profile/components/profile-page'), 'ProfilePage');

/** The signed-in app (spec 2). Auth screens redirect home once signed in. */
export function SignedInRoutes() {
  return (
    <Routes>
      {['sign-in', 'sign-up', 'confirm', 'forgot-password'].map((path) => (
        <Route key={path} path={path} element={<Navigate to="/" replace />} />
      ))}
      <Route element={<AppLayout />}>
        <Route index element={<DashboardPage />} />
        <Route path="projects" element={<ProjectsPage />} />
        <Route path="projects/:projectId" element={<ProjectDetailPage />} />
        <Route path="bulk-creator" element={<BulkCreatorPage />} />
        <Route path="integrations" element={<IntegrationsPage />} />
        <Route path="accounts" element={<AccountsPage />} />
        <Route path="exports" element={<ExportsPage />} />
        <Route path="email-templates" element={<EmailTemplatesPage />} />
        <Route path="security" element={<SecurityPage />} />
        <Route path="analytics" element={<AnalyticsPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="profile" element={<ProfilePage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
