import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { secretContext, type Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { globalReferenceItem } from '../account-deletion/global-reference';
import { linkExpiry, linkTokenHash, linkUrl, newLinkToken } from './link-token';

/**
 * Issues the one-time link of one account in one credentials send (the sender calls this when the
 * user chose a link instead of the password, {{credentialLink}}). Kept apart from the public
 * routes' code: only the sender's bundle writes links (PutItem), the routes only read and spend.
 */
export interface IssueCredentialLinkDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** The app's cipher (appCipher()): the token is kept encrypted for a redelivered send. */
  cipher: Cipher;
  /** APP_URL: the links point at the web app. */
  appUrl: string;
  now?: () => Date;
}

export interface IssueCredentialLinkInput {
  userId: string;
  projectId: string;
  accountId: string;
  /** The account item's keys (its partition follows from the project's shards). */
  accountPK: string;
  accountSK: string;
  sendId: string;
  /** Whole days, 1 to 30 (shared/schemas/credential-links.ts). */
  expiresInDays: number;
  /** The sender the e-mail names (the user's company, as the send read it): the link page names the same. */
  companyName?: string;
}

export interface IssuedCredentialLink {
  url: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** An account's row, from its sort key (`ACCOUNT#<row>`). */
const rowOfAccountSk = (sk: string): number => Number(sk.slice('ACCOUNT#'.length));

/**
 * Idempotent per (sendId, accountId): the first call writes two items in one conditional
 * transaction, the link (keyed by the token's hash: what the public routes look up) and the issue
 * record (keyed by user, send and account, holding the token encrypted). A later call, such as a
 * redelivered queue message, finds the issue record and returns the same URL; two calls at once
 * both end with the one that won the condition.
 */
export async function issueCredentialLink(deps: IssueCredentialLinkDeps, input: IssueCredentialLinkInput): Promise<IssuedCredentialLink> {
  for (const [name, value] of [['userId', input.userId], ['projectId', input.projectId], ['accountId', input.accountId], ['sendId', input.sendId]] as const) {
    if (!isIdShaped(value)) throw new Error(`issueCredentialLink: ${name} is not an id`);
  }
  const { db, tableName, cipher } = deps;
  const issueKey = keys.credentialLinkIssue(input.userId, input.sendId, input.accountId);
  const context = secretContext.credentialLink(input.userId, input.sendId, input.accountId);
  const issued = (item: Record<string, unknown>): IssuedCredentialLink => ({
    url: linkUrl(deps.appUrl, cipher.decrypt(String(item.tokenCiphertext), context)),
    expiresAt: String(item.linkExpiresAt),
  });
  const readIssue = async () => (await db.send(new GetCommand({ TableName: tableName, Key: issueKey, ConsistentRead: true }))).Item;

  const existing = await readIssue();
  if (existing) return issued(existing);

  const now = (deps.now ?? (() => new Date()))();
  const { expiresAt, ttl } = linkExpiry(now, input.expiresInDays);
  const token = newLinkToken();
  const tokenHash = linkTokenHash(token);
  const common = {
    userId: input.userId,
    projectId: input.projectId,
    accountId: input.accountId,
    sendId: input.sendId,
    ...(input.companyName ? { companyName: input.companyName } : {}),
    linkExpiresAt: expiresAt,
    expiresAt: ttl,
    createdAt: now.toISOString(),
  };
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName,
              Item: { ...issueKey, entityType: 'CredentialLinkIssue', ...common, tokenHash, tokenCiphertext: cipher.encrypt(token, context) },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.credentialLink(tokenHash), entityType: 'CredentialLink', ...common, accountPK: input.accountPK, accountSK: input.accountSK },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          // A global item of the user's (its key is the token's hash): account deletion finds it
          // through this reference in the user's partition (functions/account-deletion/global-reference.ts).
          { Put: { TableName: tableName, Item: globalReferenceItem(input.userId, keys.credentialLink(tokenHash)) } },
          // The account's list of its links: deleting the account erases them (functions/accounts/erase-account-traces.ts).
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.accountLink(input.userId, input.projectId, rowOfAccountSk(input.accountSK), input.sendId), entityType: 'AccountLink', userId: input.userId, projectId: input.projectId, accountId: input.accountId, sendId: input.sendId, tokenHash, expiresAt: ttl },
            },
          },
        ],
      }),
    );
  } catch (error) {
    // Another delivery of the same send issued this account's link first: that one is the link.
    if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
      const winner = await readIssue();
      if (winner) return issued(winner);
    }
    throw error;
  }
  return { url: linkUrl(deps.appUrl, token), expiresAt };
}
