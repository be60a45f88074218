import { Field } from '@chakra-ui/react';
import type { ReactNode } from 'react';

interface FormFieldProps {
  label: string;
  /** The validation message; marks the field invalid when set. */
  error?: string;
  /** Shown under the input while there is no error. */
  helperText?: ReactNode;
  readOnly?: boolean;
  children: ReactNode;
}

/** A labelled form control with its error or helper text: every form's field. */
export function FormField({ label, error, helperText, readOnly, children }: FormFieldProps) {
  return (
    <Field.Root invalid={!!error} readOnly={readOnly}>
      <Field.Label>{label}</Field.Label>
      {children}
      {error ? <Field.ErrorText>{error}</Field.ErrorText> : helperText ? <Field.HelperText>{helperText}</Field.HelperText> : null}
    </Field.Root>
  );
}
