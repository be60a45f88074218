import { Badge } from '@chakra-ui/react';
import type { AccountView } from '@shared/schemas/project';

const statuses: Record<AccountView['externalStatus'], { label: string; palette: string }> = {
  success: { label: 'Synced', palette: 'green' },
  failed: { label: 'Sync Failed', palette: 'red' },
  // Every account starts pending (no external platform yet): not a failure.
  pending: { label: 'Pending', palette: 'gray' },
  // Undone on the platform (deactivated or deleted there); the account is kept here.
  removed: { label: 'Removed from platform', palette: 'orange' },
};

/** An account's external (platform) status. */
export function AccountStatusBadge({ status }: { status: AccountView['externalStatus'] }) {
  const { label, palette } = statuses[status] ?? statuses.failed;
  return (
    <Badge colorPalette={palette} variant="subtle">
      {label}
    </Badge>
  );
}
