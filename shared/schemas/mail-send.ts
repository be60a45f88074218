import * as z from 'zod/mini';
import './zod-messages';
import type { EmailStatus } from './email-status';
import { accountFilterSchema, accountIdsSchema, type AccountFilter } from './account-selection';

/**
 * Credential e-mails (functions/mail/credential-sends.ts): a send e-mails the account holders of
 * one project their credentials, rendered with one of the user's templates (or the built-in one),
 * through the mail queue and SES.
 */
// 'selection': the project page's bulk bar, the listed accounts (accountIds) or a filter's (shared/schemas/account-selection.ts).
export const sendScopes = ['all', 'unsent', 'failed', 'account', 'selection'] as const;
export type SendScope = (typeof sendScopes)[number];
export const sendScopeLabels: Record<SendScope, string> = { all: 'All accounts', unsent: 'Not sent yet', failed: 'Resend failed', account: 'One account', selection: 'Selected accounts' };

export const credentialDeliveries = ['password', 'link'] as const;
export type CredentialDeliveryChoice = (typeof credentialDeliveries)[number];

/** The built-in default template's id (no stored item: shared/email/default-template.ts). */
export const BUILTIN_TEMPLATE_ID = 'builtin';
export const LINK_EXPIRY_DAYS_DEFAULT = 7;
export const LINK_EXPIRY_DAYS_MAX = 30;

/** How the e-mails carry the credentials, shared by a send from a project and by the bulk creation. */
export const credentialOptionsSchema = z.object({
  /** A template of the user or BUILTIN_TEMPLATE_ID; absent: the user's default template, else the built-in one. */
  templateId: z.optional(z.string().check(z.trim(), z.minLength(1, 'Choose a template'), z.maxLength(200, 'Template not found'))),
  delivery: z._default(z.optional(z.enum(credentialDeliveries, 'Delivery must be password or link')), 'password'),
  linkExpiresInDays: z._default(
    z.optional(
      z
        .number('The link expiry must be a number of days')
        .check(
          z.int('The link expiry must be a whole number of days'),
          z.minimum(1, 'A link expires after 1 day at the soonest'),
          z.maximum(LINK_EXPIRY_DAYS_MAX, `A link expires after ${LINK_EXPIRY_DAYS_MAX} days at the latest`),
        ),
    ),
    LINK_EXPIRY_DAYS_DEFAULT,
  ),
});
export type CredentialOptions = z.output<typeof credentialOptionsSchema>;
export type CredentialOptionsInput = z.input<typeof credentialOptionsSchema>;

/** POST /api/projects/{id}/send-credentials */
export const sendCredentialsSchema = z
  .extend(credentialOptionsSchema, {
    scope: z.enum(sendScopes, 'Scope must be all, unsent, failed, account or selection'),
    accountId: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(300))),
    accountIds: z.optional(accountIdsSchema),
    filter: z.optional(accountFilterSchema),
    overrideSuppression: z._default(z.optional(z.boolean()), false),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.scope === 'selection' && (body.accountIds === undefined) === (body.filter === undefined)) ctx.addIssue({ code: 'custom', path: ['accountIds'], message: 'Give either accountIds or filter, not both' });
      if (body.scope !== 'selection' && (body.accountIds !== undefined || body.filter !== undefined)) ctx.addIssue({ code: 'custom', path: ['scope'], message: "Accounts or a filter are given only with scope 'selection'" });
      if (body.scope === 'account' && !body.accountId) ctx.addIssue({ code: 'custom', path: ['accountId'], message: 'Choose the account to send to' });
      if (body.scope !== 'account' && body.accountId) ctx.addIssue({ code: 'custom', path: ['accountId'], message: "An account is named only with scope 'account'" });
      if (body.overrideSuppression && body.scope !== 'account') {
        ctx.addIssue({ code: 'custom', path: ['overrideSuppression'], message: 'A suppressed address can be sent to only one account at a time' });
      }
    }),
  );
export type SendCredentialsInput = z.input<typeof sendCredentialsSchema>;
export type SendCredentialsRequest = z.output<typeof sendCredentialsSchema>;

export const mailSendStatuses = ['waiting', 'queued', 'running', 'completed', 'failed'] as const;
export type MailSendStatus = (typeof mailSendStatuses)[number];

/**
 * Why no e-mail may go for now: SES's 24-hour quota is used, sending is paused, or the account is
 * suspended (functions/mail/credential-mailer.ts); or the customer's own daily limit is used
 * (MAIL_DAILY_CAP, functions/mail/send-share.ts), or too many of its recent e-mails bounced
 * (MAIL_BOUNCE_CUTOFF, functions/mail/bounce-rate.ts).
 */
export const sendPauseReasons = ['quota', 'paused', 'suspended', 'daily-cap', 'bounces'] as const;
export type SendPauseReason = (typeof sendPauseReasons)[number];

/** What the send's progress says while no e-mail may go ('Paused: <words>; resumes at ...'). */
export function pauseWords(reason: unknown): string {
  if (reason === 'daily-cap') return "today's e-mail limit for your account is used";
  if (reason === 'bounces') return 'too many of your recent e-mails bounced; check the addresses in your lists';
  if (reason === 'quota') return 'the sending quota for today is used';
  if (reason === 'suspended') return "this installation's e-mail account is suspended by AWS; its operator has been alerted";
  return "sending is paused on this installation's e-mail account";
}

/**
 * GET /api/mail-sends/{id}: total = queued + sent + failed + suppressed + pending. pending: not on
 * the queue yet (the send waits for its accounts or is being planned); queued: on the mail queue,
 * not yet answered by SES.
 */
export interface MailSend {
  id: string;
  projectId: string;
  projectName: string;
  scope: SendScope;
  accountId?: string;
  /** scope 'selection' by a filter: which. */
  filter?: AccountFilter;
  templateId: string;
  templateName: string;
  delivery: CredentialDeliveryChoice;
  linkExpiresInDays?: number;
  status: MailSendStatus;
  total: number;
  queued: number;
  sent: number;
  failed: number;
  suppressed: number;
  pending: number;
  /** Once it completed: accounts of its filter (or list) that no longer matched (or were gone) when reached. */
  skipped?: number;
  reason?: string;
  /** While SES takes no e-mail: why, SES's words, and when the send asks again. Its accounts wait (none fails of it). */
  paused?: { reason: SendPauseReason; detail: string; resumesAt: string };
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export { projectEmailCounts, type ProjectEmailCounts } from './email-status';

/** The badge labels of an account's e-mail status (none: Not sent). */
export const emailStatusLabels: Record<EmailStatus | 'none', string> = {
  none: 'Not sent',
  queued: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Complained',
  failed: 'Failed',
  suppressed: 'Skipped: suppressed',
};
