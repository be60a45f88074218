/**
 * The user's suppression list: addresses that bounced for good (a Permanent bounce) or whose
 * holder marked a credential e-mail as spam. Credential e-mails to them are skipped with the
 * reason; the user may remove an address (GET / DELETE /api/email-suppressions).
 */
export const suppressionReasons = ['bounced', 'complained'] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

export interface EmailSuppression {
  /** The address, lower-cased (the list's key). */
  email: string;
  reason: SuppressionReason;
  /** SES's diagnostic (a bounce's `diagnosticCode`, a complaint's feedback type). */
  detail: string;
  /** When it was put on the list (ISO 8601). */
  createdAt: string;
  /** The project whose e-mail bounced or was complained about. */
  projectId?: string;
}

/** An e-mail address in a path (DELETE /api/email-suppressions/{email}): what could name an entry, nothing else. */
export const EMAIL_PATH_MAX_LENGTH = 254;
const EMAIL_PATH_SHAPE = /^[^\s@/#%]+@[^\s@/#%]+$/;
export const isEmailPathShaped = (value: string): boolean => value.length <= EMAIL_PATH_MAX_LENGTH && EMAIL_PATH_SHAPE.test(value);
