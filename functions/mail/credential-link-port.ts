/**
 * The one-time credential link of an account in a send ({{credentialLink}}): functions/credential-links
 * issues it (idempotent per send and account: a redelivered send gets the same URL back). The
 * sender depends only on this port; the mail worker wires it (functions/workers/mail-worker.ts).
 */
export interface CredentialLinkInput {
  userId: string;
  projectId: string;
  accountId: string;
  accountPK: string;
  accountSK: string;
  sendId: string;
  expiresInDays: number;
  /** The sender the e-mail names: the link page names the same. */
  companyName?: string;
}

export type IssueCredentialLink = (input: CredentialLinkInput) => Promise<{ url: string; expiresAt: string }>;
