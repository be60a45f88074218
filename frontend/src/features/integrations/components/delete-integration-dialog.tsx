import { Text } from '@chakra-ui/react';
import type { Integration } from '@shared/schemas/integrations';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDeleteIntegration } from '../api/integrations-api';

/** Asks before deleting: the stored credentials go with the integration and cannot be read back. */
export function DeleteIntegrationDialog({
  integration,
  open,
  onOpenChange,
}: {
  integration: Integration;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const remove = useDeleteIntegration();
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete integration?"
      description={
        <Text>
          <Text as="strong" wordBreak="break-word">
            {integration.name}
          </Text>{' '}
          and its stored credentials will be deleted. This cannot be undone.
        </Text>
      }
      confirmLabel="Delete"
      busy={remove.isPending}
      onConfirm={() => remove.mutate(integration, { onSuccess: () => onOpenChange(false) })}
    />
  );
}
