import { Button } from '@chakra-ui/react';
import { Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDeleteEmailTemplate } from '../api/email-templates-api';

/** 'Delete' with a confirmation; the dialog stays open while the request runs. */
export function DeleteTemplateButton({ template, onDeleted }: { template: EmailTemplate; onDeleted: () => void }) {
  const [open, setOpen] = useState(false);
  const deleteTemplate = useDeleteEmailTemplate();
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      trigger={
        <Button variant="outline" colorPalette="red">
          <Trash2Icon aria-hidden="true" />
          Delete
        </Button>
      }
      title="Delete template?"
      description={<>&ldquo;{template.name}&rdquo; will be deleted. This cannot be undone.</>}
      confirmLabel="Delete Template"
      busy={deleteTemplate.isPending}
      onConfirm={() =>
        deleteTemplate.mutate(template, {
          onSuccess: () => {
            setOpen(false);
            onDeleted();
          },
        })
      }
    />
  );
}
