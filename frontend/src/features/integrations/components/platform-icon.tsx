import { Box } from '@chakra-ui/react';
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

/** The icon on a square tile: muted in the list of integrations, accented on the quick-setup cards. */
export function PlatformIconTile({ platform, tone = 'muted' }: { platform: IntegrationPlatform; tone?: 'muted' | 'accent' }) {
  return (
    <Box
      display="flex"
      alignItems="center"
      justifyContent="center"
      w="10"
      h="10"
      flexShrink="0"
      borderRadius="md"
      bg={tone === 'accent' ? 'blue.subtle' : 'bg.muted'}
      color={tone === 'accent' ? 'blue.fg' : 'fg.muted'}
    >
      <PlatformIcon platform={platform} />
    </Box>
  );
}
