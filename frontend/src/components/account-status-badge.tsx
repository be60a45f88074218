import { Badge, Stack, Text } from '@chakra-ui/react';
import type { AccountView } from '@shared/schemas/project';

const statuses: Record<AccountView['externalStatus'], { label: string; palette: string }> = {
  success: { label: 'Synced', palette: 'green' },
  failed: { label: 'Sync Failed', palette: 'red' },
  // Every account starts pending (not provisioned, or not yet): not a failure.
  pending: { label: 'Pending', palette: 'gray' },
  // Undone on the platform (deactivated or deleted there); the account is kept here.
  removed: { label: 'Removed from platform', palette: 'orange' },
};

/**
 * An account's external (platform) status. A Sync Failed account shows the platform's reason
 * under its badge, as text rather than a tooltip: it is read on touch screens and by screen
 * readers alike, and the next step (Retry failed, or fixing the person) depends on it.
 */
export function AccountStatusBadge({ status, error }: { status: AccountView['externalStatus']; error?: string }) {
  const { label, palette } = statuses[status] ?? statuses.failed;
  const badge = (
    <Badge colorPalette={palette} variant="subtle" alignSelf="flex-start">
      {label}
    </Badge>
  );
  // Sync Failed says why; so does a Synced account an undo could not remove ('Undo failed: ...').
  if (!error || status === 'pending') return badge;
  return (
    <Stack gap="1" minW="60" maxW="sm">
      {badge}
      <Text fontSize="xs" color={status === 'failed' ? 'fg.error' : 'fg.warning'} overflowWrap="anywhere" whiteSpace="normal">
        {error}
      </Text>
    </Stack>
  );
}
