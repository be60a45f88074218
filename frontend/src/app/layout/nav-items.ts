import {
  ChartColumnIcon,
  DatabaseIcon,
  DownloadIcon,
  FolderKanbanIcon,
  LayoutDashboardIcon,
  type LucideIcon,
  MailIcon,
  PlugIcon,
  SettingsIcon,
  ShieldIcon,
  UsersIcon,
} from 'lucide-react';

export interface NavItem {
  label: string;
  to: string;
  icon: LucideIcon;
}

/** The side navigation's ten entries (spec 2), in order. */
export const navItems: readonly NavItem[] = [
  { label: 'Dashboard', to: '/', icon: LayoutDashboardIcon },
  { label: 'Projects', to: '/projects', icon: FolderKanbanIcon },
  { label: 'Bulk Creator', to: '/bulk-creator', icon: UsersIcon },
  { label: 'Integrations', to: '/integrations', icon: PlugIcon },
  { label: 'Account Database', to: '/accounts', icon: DatabaseIcon },
  { label: 'Export Center', to: '/exports', icon: DownloadIcon },
  { label: 'Email Templates', to: '/email-templates', icon: MailIcon },
  { label: 'Security', to: '/security', icon: ShieldIcon },
  { label: 'Analytics', to: '/analytics', icon: ChartColumnIcon },
  { label: 'Settings', to: '/settings', icon: SettingsIcon },
];
