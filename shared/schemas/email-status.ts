/**
 * A credential e-mail's life on one account. No status: never sent. queued: on the mail queue;
 * sent: SES accepted it; delivered / bounced / complained: SES events; failed: SES refused it or
 * it could not be rendered (reason in emailError); suppressed: skipped, the address is on the
 * user's suppression list.
 */
export const emailStatuses = ['queued', 'sent', 'delivered', 'bounced', 'complained', 'failed', 'suppressed'] as const;
export type EmailStatus = (typeof emailStatuses)[number];

/**
 * The project item's counter of accounts in each status (numbers, absent = 0). An account is in at
 * most one status; accounts minus their sum = not sent yet. Every change of an account's status
 * moves one count from the old status's counter to the new one's, in the same write.
 */
export const emailCounterAttribute: Record<EmailStatus, string> = {
  queued: 'emailQueuedCount',
  sent: 'emailSentCount',
  delivered: 'emailDeliveredCount',
  bounced: 'emailBouncedCount',
  complained: 'emailComplainedCount',
  failed: 'emailFailedCount',
  suppressed: 'emailSuppressedCount',
};

/** A project's e-mail counts: one per status, and the accounts never sent to; they add up to its accounts. */
export type ProjectEmailCounts = Record<EmailStatus, number> & { notSent: number };

export function projectEmailCounts(item: Record<string, unknown>, accountCount: number): ProjectEmailCounts {
  const counts = Object.fromEntries(emailStatuses.map((s) => [s, Math.max(0, Number(item[emailCounterAttribute[s]] ?? 0))])) as Record<EmailStatus, number>;
  const used = emailStatuses.reduce((sum, s) => sum + counts[s], 0);
  return { ...counts, notSent: Math.max(0, accountCount - used) };
}
