import * as z from 'zod';
import { projectGroupsSchema } from '@shared/schemas/project-groups';
import { bulkCreateRequestSchema, defaultPasswordSettings, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordSettingsSchema, type BulkCreateRequest } from '@shared/schemas/bulk';
import type { Preferences } from '@shared/schemas/user-settings';
import { calendarDatePlusDays } from '../../../lib/format-date';
import type { CsvRow } from '@shared/csv/read-people';
import type { BulkUploadStartRequest } from '@shared/schemas/bulk-upload';
import { LINK_EXPIRY_DAYS_DEFAULT, LINK_EXPIRY_DAYS_MAX, credentialDeliveries } from '@shared/schemas/mail-send';

/** The server's words when provisioning is asked for without a target (functions/bulk). */
export const CHOOSE_TARGET = 'Choose the integration to create the accounts on.';

/**
 * The dialog's upload stage: the request's fields except the rows, which come from the file, and
 * the provisioning target (Pro: create the accounts on one of the user's integrations too).
 */
export const uploadFormSchema = z
  .object({
    projectName: bulkCreateRequestSchema.shape.projectName,
    description: bulkCreateRequestSchema.shape.description,
    platformUrl: bulkCreateRequestSchema.shape.platformUrl,
    accountType: bulkCreateRequestSchema.shape.accountType,
    expirationDate: bulkCreateRequestSchema.shape.expirationDate,
    passwordSettings: passwordSettingsSchema,
    createExternalAccounts: z.boolean().default(false),
    apiIntegrationId: z.string().default(''),
    /** The project's groups on that platform (sent only with it), and 'Create groups that do not exist'. */
    groups: z._default(projectGroupsSchema, []),
    createGroups: z.boolean().default(false),
    /** 'E-mail the account holders' (Pro): the template ('' = the default), the password or a one-time link. */
    sendCredentials: z.boolean().default(false),
    credentialTemplateId: z.string().default(''),
    credentialDelivery: z.enum(credentialDeliveries).default('password'),
    linkExpiresInDays: z.number().default(LINK_EXPIRY_DAYS_DEFAULT),
    /** A file uploaded to S3: read and check every row first, create only when the user confirms. */
    checkFirst: z.boolean().default(false),
  })
  .superRefine((values, ctx) => {
    if (values.createExternalAccounts && !values.apiIntegrationId) ctx.addIssue({ code: 'custom', path: ['apiIntegrationId'], message: CHOOSE_TARGET });
    const days = values.linkExpiresInDays;
    if (values.sendCredentials && values.credentialDelivery === 'link' && !(Number.isInteger(days) && days >= 1 && days <= LINK_EXPIRY_DAYS_MAX)) {
      ctx.addIssue({ code: 'custom', path: ['linkExpiresInDays'], message: `Enter a whole number of days from 1 to ${LINK_EXPIRY_DAYS_MAX}.` });
    }
  });

export type UploadFormInput = z.input<typeof uploadFormSchema>;
export type UploadFormValues = z.output<typeof uploadFormSchema>;

export const uploadFormDefaults: UploadFormInput = {
  projectName: '',
  description: '',
  platformUrl: '',
  accountType: 'Standard User',
  expirationDate: '',
  passwordSettings: defaultPasswordSettings,
  createExternalAccounts: false,
  apiIntegrationId: '',
  groups: [],
  createGroups: false,
  sendCredentials: false,
  credentialTemplateId: '',
  credentialDelivery: 'password',
  linkExpiresInDays: LINK_EXPIRY_DAYS_DEFAULT,
  checkFirst: false,
};

/**
 * The defaults with the user's Preferences applied: the expiration date that many days from today
 * (in their timezone), the password length theirs within what the bulk dialog allows (10 to 50).
 */
export function uploadFormDefaultsWith(preferences?: Pick<Preferences, 'defaultProjectExpiry' | 'defaultPasswordLength'>): UploadFormInput {
  if (!preferences) return uploadFormDefaults;
  const minLength = Math.min(PASSWORD_MAX_LENGTH, Math.max(PASSWORD_MIN_LENGTH, preferences.defaultPasswordLength));
  return {
    ...uploadFormDefaults,
    expirationDate: calendarDatePlusDays(preferences.defaultProjectExpiry),
    passwordSettings: { ...defaultPasswordSettings, minLength },
  };
}

/** The rows as POST /api/bulk-create carries them: the three fields, and the extra columns (department, title...) with their row; the server checks them again. */
export const requestRows = (rows: readonly CsvRow[]) =>
  rows.map(({ firstName, lastName, email, attributes }) => ({ firstName, lastName, email, ...(attributes && Object.keys(attributes).length ? { attributes } : {}) }));

/**
 * The request: only the valid rows (the invalid ones are skipped), optional fields left out when
 * empty; the integration only when the accounts are to be created on it (an unticked box sends none).
 */
export function toBulkCreateRequest(values: UploadFormValues, rows: readonly CsvRow[]): BulkCreateRequest {
  return {
    projectName: values.projectName,
    ...(values.description ? { description: values.description } : {}),
    ...(values.platformUrl ? { platformUrl: values.platformUrl } : {}),
    accountType: values.accountType,
    ...(values.expirationDate ? { expirationDate: values.expirationDate } : {}),
    csvData: requestRows(rows),
    passwordSettings: values.passwordSettings,
    ...(values.createExternalAccounts && values.apiIntegrationId ? { createExternalAccounts: true, apiIntegrationId: values.apiIntegrationId } : {}),
    ...(values.createExternalAccounts && values.apiIntegrationId && values.groups.length ? { groups: values.groups, ...(values.createGroups ? { createGroups: true } : {}) } : {}),
    ...(values.sendCredentials
      ? {
          sendCredentials: {
            ...(values.credentialTemplateId ? { templateId: values.credentialTemplateId } : {}),
            delivery: values.credentialDelivery,
            ...(values.credentialDelivery === 'link' ? { linkExpiresInDays: values.linkExpiresInDays } : {}),
          },
        }
      : {}),
  };
}

/** The start of an uploaded file's reading: the same options, the rows in the file, and 'check first'. */
export function toUploadStartRequest(values: UploadFormValues, checkOnly: boolean): BulkUploadStartRequest {
  const { csvData: _rows, ...options } = toBulkCreateRequest(values, []);
  return { ...options, checkOnly };
}
