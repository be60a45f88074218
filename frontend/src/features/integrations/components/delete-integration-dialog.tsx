import { Button, CloseButton, Dialog, Portal, Text } from '@chakra-ui/react';
import type { Integration } from '@shared/schemas/integrations';
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
  const busy = remove.isPending;
  return (
    <Dialog.Root
      role="alertdialog"
      open={open}
      onOpenChange={(details) => {
        if (!busy) onOpenChange(details.open);
      }}
      closeOnInteractOutside={!busy}
      placement="center"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header>
              <Dialog.Title>Delete integration?</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Dialog.Description asChild>
                <Text>
                  <Text as="strong" wordBreak="break-word">
                    {integration.name}
                  </Text>{' '}
                  and its stored credentials will be deleted. This cannot be undone.
                </Text>
              </Dialog.Description>
            </Dialog.Body>
            <Dialog.Footer flexWrap="wrap">
              <Dialog.ActionTrigger asChild>
                <Button variant="outline" disabled={busy}>
                  Cancel
                </Button>
              </Dialog.ActionTrigger>
              <Button
                colorPalette="red"
                loading={busy}
                loadingText="Deleting..."
                onClick={() => remove.mutate(integration, { onSuccess: () => onOpenChange(false) })}
              >
                Delete
              </Button>
            </Dialog.Footer>
            {busy ? null : (
              <Dialog.CloseTrigger asChild>
                <CloseButton size="sm" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
