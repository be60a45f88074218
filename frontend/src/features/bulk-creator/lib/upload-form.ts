import type * as z from 'zod';
import { bulkCreateRequestSchema, defaultPasswordSettings, passwordSettingsSchema, type BulkCreateRequest } from '@shared/schemas/bulk';
import type { CsvRow } from '@shared/csv/read-people';

/** The dialog's upload stage: the request's fields except the rows, which come from the file. */
export const uploadFormSchema = bulkCreateRequestSchema
  .pick({ projectName: true, description: true, platformUrl: true, accountType: true, expirationDate: true })
  .extend({ passwordSettings: passwordSettingsSchema });

export type UploadFormInput = z.input<typeof uploadFormSchema>;
export type UploadFormValues = z.output<typeof uploadFormSchema>;

export const uploadFormDefaults: UploadFormInput = {
  projectName: '',
  description: '',
  platformUrl: '',
  accountType: 'Standard User',
  expirationDate: '',
  passwordSettings: defaultPasswordSettings,
};

/** The request: only the valid rows (the invalid ones are skipped), optional fields left out when empty. */
export function toBulkCreateRequest(values: UploadFormValues, rows: readonly CsvRow[]): BulkCreateRequest {
  return {
    projectName: values.projectName,
    ...(values.description ? { description: values.description } : {}),
    ...(values.platformUrl ? { platformUrl: values.platformUrl } : {}),
    accountType: values.accountType,
    ...(values.expirationDate ? { expirationDate: values.expirationDate } : {}),
    csvData: rows.map(({ firstName, lastName, email }) => ({ firstName, lastName, email })),
    passwordSettings: values.passwordSettings,
  };
}
