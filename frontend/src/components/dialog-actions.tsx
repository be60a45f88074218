import { Button, Dialog } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/**
 * A dialog's Cancel and submit buttons, the one footer of the dialogs that start, save or delete
 * something. Cancel closes the dialog (or calls `onCancel`) and is disabled while the work runs,
 * so the outcome is always seen; the submit button submits the dialog's form (`form`, or the form
 * around the footer) or calls `onSubmit`, shows `loadingText` while busy, and says what it does (`submitLabel`).
 */
export function DialogActions({
  busy = false,
  form,
  onSubmit,
  onCancel,
  cancelLabel = 'Cancel',
  submitLabel,
  loadingText,
  colorPalette = 'blue',
  disabled = false,
}: {
  busy?: boolean;
  /** The id of the form the submit button submits (none: the form around the footer). */
  form?: string;
  /** What the button does instead of submitting a form. */
  onSubmit?: () => void;
  /** What Cancel does instead of closing the dialog (a dialog that is not a Chakra Dialog.Root of its own, say). */
  onCancel?: () => void;
  cancelLabel?: string;
  submitLabel: ReactNode;
  loadingText?: string;
  /** Red for what removes or replaces something. */
  colorPalette?: 'blue' | 'red';
  disabled?: boolean;
}) {
  const cancel = (
    <Button variant="outline" disabled={busy} onClick={onCancel}>
      {cancelLabel}
    </Button>
  );
  return (
    <Dialog.Footer flexWrap="wrap">
      {onCancel ? cancel : <Dialog.ActionTrigger asChild>{cancel}</Dialog.ActionTrigger>}
      <Button type={onSubmit ? 'button' : 'submit'} form={form} colorPalette={colorPalette} loading={busy} loadingText={loadingText} disabled={disabled} onClick={onSubmit}>
        {submitLabel}
      </Button>
    </Dialog.Footer>
  );
}
