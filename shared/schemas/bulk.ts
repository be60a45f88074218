import * as z from 'zod/mini';
import './zod-messages';
import { credentialOptionsSchema } from './mail-send';
import { createGroupsSchema, projectGroupsSchema } from './project-groups';
import { checkAttributes } from './attributes';

/** Spec 3 and 9: account types, password rules, bulk-create request and response. */
export const accountTypes = ['Standard User', 'Admin User', 'Training Account', 'Demo Account'] as const;
export type AccountType = (typeof accountTypes)[number];

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 50;
export const PASSWORD_DEFAULT_LENGTH = 12;
/** Spec 5: the special characters, exactly. */
export const SPECIAL_CHARACTERS = '$#@!*&?%';
/** Left out when avoidAmbiguous is on. */
export const AMBIGUOUS_CHARACTERS = '0Oo1lI|';

export { SYNC_ROW_LIMIT, SYNC_BYTE_LIMIT, REQUEST_ROWS_JSON_MAX_BYTES, answersAtOnce, jsonBytes, type RequestSize } from '../bulk-limits';
/** One file or request: 10 MB and 50,000 rows. */
export const CSV_MAX_BYTES = 10 * 1024 * 1024;
export const MAX_ROWS_PER_REQUEST = 50_000;
/**
 * Lambda takes at most 6 MB of request payload (the event, base64 bodies included), less than
 * API Gateway's 10 MB. Large row lists therefore travel gzipped (csvDataGzip), and no body may
 * be larger than this.
 */
export const REQUEST_BODY_MAX_BYTES = 5.5 * 1024 * 1024;
/** Rows above this many are sent gzipped by the web app. */
export const GZIP_ROWS_FROM = 1000;

export const PASSWORD_NO_CLASS_MESSAGE = 'Choose at least one kind of character for passwords (uppercase, lowercase, numbers or special characters).';

/** One message for a length out of range either way (spec 5: the input takes 10 to 50). */
export const PASSWORD_LENGTH_MESSAGE = `Password length must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`;

export const passwordSettingsSchema = z
  .object({
    minLength: z._default(
      z
        .number()
        .check(z.int('Password length must be a whole number'), z.minimum(PASSWORD_MIN_LENGTH, PASSWORD_LENGTH_MESSAGE), z.maximum(PASSWORD_MAX_LENGTH, PASSWORD_LENGTH_MESSAGE)),
      PASSWORD_DEFAULT_LENGTH,
    ),
    includeUppercase: z._default(z.boolean(), true),
    includeLowercase: z._default(z.boolean(), true),
    includeNumbers: z._default(z.boolean(), true),
    includeSpecialChars: z._default(z.boolean(), true),
    avoidAmbiguous: z._default(z.boolean(), false),
  })
  // Checked here, where the browser's form and the server share it: without a character class no
  // password can be drawn, and the request is refused before anything is reserved or written.
  .check(
    z.refine((settings) => settings.includeUppercase || settings.includeLowercase || settings.includeNumbers || settings.includeSpecialChars, {
      message: PASSWORD_NO_CLASS_MESSAGE,
      path: ['includeUppercase'],
    }),
  );
export type PasswordSettings = z.output<typeof passwordSettingsSchema>;
export const defaultPasswordSettings: PasswordSettings = passwordSettingsSchema.parse({});

/** One person as typed or read from a CSV (spec 5 messages). */
/**
 * Line breaks and other control characters inside a value: a CSV quote left open can pull the
 * following lines into one field, and that must be reported, never created as someone's name.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const noControlCharacters = (label: string) => [(value: string) => !CONTROL_CHARACTERS.test(value), `${label} cannot contain line breaks or control characters`] as const;

export const personSchema = z.object({
  firstName: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'First name is required'),
      z.maxLength(100, 'First name must be at most 100 characters'),
      z.refine(...noControlCharacters('First name')),
    ),
  lastName: z
    .string()
    .check(z.trim(), z.minLength(1, 'Last name is required'), z.maxLength(100, 'Last name must be at most 100 characters'), z.refine(...noControlCharacters('Last name'))),
  email: z.string().check(z.trim(), z.maxLength(254, 'Valid email is required'), z.email('Valid email is required')),
});
export type Person = z.output<typeof personSchema>;

const optionalText = (max: number, label: string) => z.optional(z.string().check(z.trim(), z.maxLength(max, `${label} must be at most ${max} characters`)));

/**
 * POST /api/bulk-create. Rows are checked one by one on the server (each invalid row is reported
 * in summary.failed, the valid ones are created), so csvData only needs the row shape here.
 */
export const bulkCreateRequestSchema = z.object({
  projectName: z.string().check(z.trim(), z.minLength(1, 'Project name is required'), z.maxLength(200, 'Project name must be at most 200 characters')),
  description: optionalText(1000, 'Description'),
  platformUrl: z.optional(z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'Platform URL must be a valid http(s) URL' })])),
  accountType: z._default(z.enum(accountTypes, 'Choose a valid account type'), 'Standard User'),
  expirationDate: z.optional(z.union([z.literal(''), z.iso.date('Expiration date must be a date (YYYY-MM-DD)')])),
  csvData: z
    .array(
      z.object({
        firstName: z._default(z.string().check(z.maxLength(1000)), ''),
        lastName: z._default(z.string().check(z.maxLength(1000)), ''),
        email: z._default(z.string().check(z.maxLength(1000)), ''),
        /**
         * The row's extra columns (department, title...): header -> value. Checked row by row
         * (shared/schemas/attributes.ts checkAttributes: a row over the caps is rejected with its
         * reason); here only bounded so a request cannot carry more than a file could.
         */
        attributes: z.optional(
          z
            .record(z.string().check(z.maxLength(200)), z.string().check(z.maxLength(1000)))
            .check(z.refine((values) => Object.keys(values).length <= 200, 'At most 200 extra columns per row')),
        ),
      }),
    )
    .check(
      z.minLength(1, 'At least one account is required'),
      z.maxLength(MAX_ROWS_PER_REQUEST, `At most ${MAX_ROWS_PER_REQUEST.toLocaleString('en-US')} rows per request`),
    ),
  passwordSettings: z._default(passwordSettingsSchema, defaultPasswordSettings),
  apiIntegrationId: z.optional(z.string()),
  createExternalAccounts: z._default(z.boolean(), false),
  /** E-mail the account holders their credentials once the accounts exist (Pro; functions/mail). */
  sendCredentials: z.optional(credentialOptionsSchema),
  /**
   * Add people to this existing project instead of creating one: its name, description, platform
   * URL, account type and expiration date are the project's (projectName is not used), the rows
   * come after its last one, and when it was provisioned to an integration the new accounts go
   * there too (Pro). A completed project answers 409, another user's 404.
   */
  projectId: z.optional(z.string().check(z.trim(), z.minLength(1, 'Project not found'), z.maxLength(100, 'Project not found'))),
  /** The new project's platform groups and whether missing ones are created (Pro; as in the project's Edit). Not used when adding people (projectId): the project's own stay. */
  groups: z.optional(projectGroupsSchema),
  createGroups: z.optional(createGroupsSchema),
});
export type BulkCreateRequest = z.input<typeof bulkCreateRequestSchema>;

/**
 * What POST /api/bulk-create accepts: the spec's csvData rows, or the file itself as csvText,
 * which the server reads with the same CSV reader as the browser (the server's reading is the
 * truth; row numbers are then the file's lines).
 */
export const bulkCreateBodySchema = z
  .extend(bulkCreateRequestSchema, {
    csvData: z.optional(bulkCreateRequestSchema.shape.csvData),
    csvText: z.optional(z.string().check(z.maxLength(CSV_MAX_BYTES, 'The file is larger than 10 MB.'))),
    /** csvData as gzipped JSON, base64: how the web app sends large files (see REQUEST_BODY_MAX_BYTES). */
    csvDataGzip: z.optional(z.base64('csvDataGzip must be base64').check(z.maxLength(REQUEST_BODY_MAX_BYTES, 'The file is too large to send.'))),
  })
  .check(
    z.refine((body) => [body.csvData, body.csvText, body.csvDataGzip].filter((field) => field !== undefined).length === 1, {
      message: 'Send one of csvData, csvText or csvDataGzip',
      path: ['csvData'],
    }),
  );
export type BulkCreateInput = z.output<typeof bulkCreateBodySchema>;

/** Manual entry form (spec 5): same endpoint, fixed password settings, no account type. */
export const manualEntrySchema = z.object({
  projectName: z.string().check(z.trim(), z.minLength(1, 'Project name is required')),
  accounts: z
    .array(
      z.extend(personSchema, {
        /** The person's values of the columns added ('Add column'), by key: the caps of a file's row (checkAttributes). */
        attributes: z.optional(z.record(z.string(), z.string())).check(
          z.superRefine((values, context) => {
            for (const message of checkAttributes(values).problems) context.addIssue({ code: 'custom', message });
          }),
        ),
      }),
    )
    .check(z.minLength(1, 'At least one account is required')),
});

export interface CreatedAccount {
  id: string;
  projectId: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  /** The generated password in clear, returned once at creation (spec: plainPassword). */
  plainPassword: string;
  accountType: AccountType;
  externalStatus: 'pending' | 'success' | 'failed' | 'removed';
  createdAt: string;
}

/** A row that was not created, with the reason (1-based row number of the request). */
export interface FailedRow {
  row: number;
  field?: 'firstName' | 'lastName' | 'email';
  email?: string;
  message: string;
}

/**
 * At most this many rejected rows are listed in a response (summary.failed, or the details of a
 * 400): 30,000 of them would not fit Lambda's 6 MB. The full list is the project's report.
 */
export const FAILED_ROWS_INLINE_MAX = 200;

export interface BulkCreateSummary {
  total: number;
  successful: number;
  /** The first FAILED_ROWS_INLINE_MAX rejected rows, in row order. */
  failed: FailedRow[];
  /** Every rejected row: more than failed.length when the list was cut. */
  failedCount: number;
  /** GET: every rejected row as CSV (set when failedCount > 0). */
  rejectedRowsUrl?: string;
  /** With createExternalAccounts: the provisioning run of the new accounts (GET /api/provisioning-jobs/{id}). */
  provisioningJobId?: string;
  /** The accounts were created but their provisioning could not start (start it from the project). */
  provisioningError?: string;
  /** With sendCredentials: the send of the credential e-mails (GET /api/mail-sends/{id}). */
  mailSendId?: string;
  /** The accounts were created but the e-mails could not start (send them from the project). */
  mailSendError?: string;
}

/** The path of a project's full rejected-rows report (CSV). */
export const rejectedRowsPath = (projectId: string): string => `/api/projects/${encodeURIComponent(projectId)}/rejected-rows`;

/** The header a client sends so that a retried POST /api/bulk-create answers the first result. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** 409 for a retry that arrives while the first request with its key still runs. */
export const IDEMPOTENCY_IN_PROGRESS_MESSAGE = 'A request with this Idempotency-Key is still in progress';

export interface BulkJob {
  id: string;
  projectId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  total: number;
  done: number;
  failedCount: number;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /** Why a failed job stopped (a failed job has released the user's lock). */
  reason?: string;
  /** A queued job: chunks of other jobs ahead of it on the shared bulk queue (approximate). */
  chunksAhead?: number;
  /** A queued job: why it waits, in words (shown instead of "0 of N rows"). */
  waitReason?: string;
  /**
   * A job adding people to a project, once it ended: the provisioning run it started to the
   * project's integration and the credentials send asked for, or why either could not start.
   */
  provisioningJobId?: string;
  provisioningError?: string;
  mailSendId?: string;
  mailSendError?: string;
}
