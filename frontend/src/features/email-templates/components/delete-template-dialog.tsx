import { Button, CloseButton, Dialog, Portal } from '@chakra-ui/react';
import { Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { useDeleteEmailTemplate } from '../api/email-templates-api';

/** 'Delete' with a confirmation; the dialog stays open while the request runs. */
export function DeleteTemplateButton({ template, onDeleted }: { template: EmailTemplate; onDeleted: () => void }) {
  const [open, setOpen] = useState(false);
  const deleteTemplate = useDeleteEmailTemplate();
  const confirm = () =>
    deleteTemplate.mutate(template, {
      onSuccess: () => {
        setOpen(false);
        onDeleted();
      },
    });

  return (
    <Dialog.Root
      role="alertdialog"
      open={open}
      onOpenChange={(details) => {
        if (!deleteTemplate.isPending) setOpen(details.open);
      }}
      placement="center"
    >
      <Dialog.Trigger asChild>
        <Button variant="outline" colorPalette="red">
          <Trash2Icon aria-hidden="true" />
          Delete
        </Button>
      </Dialog.Trigger>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4">
            <Dialog.Header>
              <Dialog.Title>Delete template?</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Dialog.Description color="fg">
                &ldquo;{template.name}&rdquo; will be deleted. This cannot be undone.
              </Dialog.Description>
            </Dialog.Body>
            <Dialog.Footer>
              <Dialog.ActionTrigger asChild>
                <Button variant="outline" disabled={deleteTemplate.isPending}>
                  Cancel
                </Button>
              </Dialog.ActionTrigger>
              <Button colorPalette="red" onClick={confirm} loading={deleteTemplate.isPending} loadingText="Deleting...">
                Delete Template
              </Button>
            </Dialog.Footer>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" disabled={deleteTemplate.isPending} />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
