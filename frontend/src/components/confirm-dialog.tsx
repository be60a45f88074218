import { CloseButton, Dialog, Portal } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { ignoreFocusOutside } from '../lib/modal-focus';
import { DialogActions } from './dialog-actions';

/**
 * Asks before a destructive action. While it runs the dialog stays open and cannot be dismissed
 * (no close button, no outside click), so the outcome is always seen.
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  busy,
  busyLabel = 'Deleting...',
  onConfirm,
  trigger,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  busy: boolean;
  /** The confirm button's text while it runs. */
  busyLabel?: string;
  onConfirm: () => void;
  /** The button that opens it, when the dialog owns its trigger. */
  trigger?: ReactNode;
}) {
  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      role="alertdialog"
      open={open}
      onOpenChange={(details) => {
        if (!busy) onOpenChange(details.open);
      }}
      closeOnInteractOutside={!busy}
      placement="center"
    >
      {trigger ? <Dialog.Trigger asChild>{trigger}</Dialog.Trigger> : null}
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header>
              <Dialog.Title>{title}</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Dialog.Description asChild color="fg">
                <div>{description}</div>
              </Dialog.Description>
            </Dialog.Body>
            <DialogActions colorPalette="red" busy={busy} loadingText={busyLabel} onSubmit={onConfirm} submitLabel={confirmLabel} />
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
