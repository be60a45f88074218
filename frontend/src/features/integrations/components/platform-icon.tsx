import { BriefcaseIcon, CloudIcon, CodeIcon, NetworkIcon, ShieldCheckIcon, type LucideIcon } from 'lucide-react';
import type { IntegrationPlatform } from '@shared/schemas/integrations';

const icons: Record<IntegrationPlatform, LucideIcon> = {
  salesforce: CloudIcon,
  active_directory: NetworkIcon,
  okta: ShieldCheckIcon,
  workday: BriefcaseIcon,
  custom: CodeIcon,
};

/** A platform's icon (decorative: the platform's name is always written beside it). */
export function PlatformIcon({ platform, size = 20 }: { platform: IntegrationPlatform; size?: number }) {
  const Icon = icons[platform] ?? CodeIcon;
  return <Icon size={size} aria-hidden="true" />;
}
