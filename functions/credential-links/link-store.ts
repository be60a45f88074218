import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { DELETION_REQUESTED_AT } from '../core/account-gate';
import { shardsOf } from '../accounts/account-partitions';
import { overlayState, rowOf, stateBlockKey, type StateEntry } from '../accounts/account-states';

/** A stored link as the public routes read it (the item of keys.credentialLink(tokenHash)). */
export interface StoredLink {
  userId: string;
  projectId: string;
  accountId: string;
  accountPK: string;
  accountSK: string;
  linkExpiresAt: string;
  usedAt?: string;
  /** The sender the e-mail named (links issued before it was kept have none). */
  companyName?: string;
}

/** The public routes' reads and their two writes: spending a link and marking its account viewed. */
export interface LinkStore {
  link(tokenHash: string): Promise<StoredLink | undefined>;
  /** Whether the link's owner still has an account (a user item, no deletion requested): a deleted user's links are unknown links. */
  ownerActive(link: StoredLink): Promise<boolean>;
  account(link: StoredLink): Promise<Record<string, unknown> | undefined>;
  project(link: StoredLink): Promise<Record<string, unknown> | undefined>;
  /**
   * Marks the link used at `at` if it is still unused and unexpired at that moment; the one
   * conditional write that decides who reveals. Otherwise returns the link as it now is (or
   * undefined when it is gone).
   */
  spend(tokenHash: string, at: string): Promise<{ spent: true } | { spent: false; link: StoredLink | undefined }>;
  /** credentialsViewedAt on the account; false when the account is gone (never creates one). */
  markViewed(link: StoredLink, at: string): Promise<boolean>;
}

const storedLink = (item: Record<string, unknown> | undefined): StoredLink | undefined => {
  if (!item) return undefined;
  const link: StoredLink = {
    userId: String(item.userId),
    projectId: String(item.projectId),
    accountId: String(item.accountId),
    accountPK: String(item.accountPK),
    accountSK: String(item.accountSK),
    linkExpiresAt: String(item.linkExpiresAt),
  };
  if (typeof item.usedAt === 'string') link.usedAt = item.usedAt;
  if (typeof item.companyName === 'string' && item.companyName) link.companyName = item.companyName;
  return link;
};

export function dynamoLinkStore(db: DynamoDBDocumentClient, tableName: string): LinkStore {
  const get = async (Key: Record<string, string>) => (await db.send(new GetCommand({ TableName: tableName, Key, ConsistentRead: true }))).Item;
  return {
    link: async (tokenHash) => storedLink(await get(keys.credentialLink(tokenHash))),
    async ownerActive(link) {
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.user(link.userId), ConsistentRead: true, ProjectionExpression: 'PK, #requested', ExpressionAttributeNames: { '#requested': DELETION_REQUESTED_AT } }),
      );
      return Item !== undefined && Item[DELETION_REQUESTED_AT] === undefined;
    },
    // With its account action's outcome (isActive: a deactivated account's link shows nothing), kept in the project's ACT state blocks.
    async account(link) {
      const [item, project] = await Promise.all([get({ PK: link.accountPK, SK: link.accountSK }), get(keys.project(link.userId, link.projectId))]);
      if (!item || !project) return item;
      // The one block that holds it, by key (GetItem: this function is granted no Query).
      const block = await get(stateBlockKey(link.userId, link.projectId, 'ACT', rowOf(item), shardsOf(project)));
      const entry = (block?.rows as Record<string, StateEntry> | undefined)?.[String(rowOf(item))];
      return entry ? overlayState(item, { PROV: new Map(), MAIL: new Map(), ACT: new Map([[rowOf(item), entry]]) }) : item;
    },
    project: (link) => get(keys.project(link.userId, link.projectId)),

    async spend(tokenHash, at) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.credentialLink(tokenHash),
            UpdateExpression: 'SET usedAt = :at',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(usedAt) AND linkExpiresAt > :at',
            ExpressionAttributeValues: { ':at': at },
          }),
        );
        return { spent: true };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Read again rather than decode the exception's item (the document client leaves it marshalled).
        return { spent: false, link: storedLink(await get(keys.credentialLink(tokenHash))) };
      }
    },

    async markViewed(link, at) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { PK: link.accountPK, SK: link.accountSK },
            UpdateExpression: 'SET credentialsViewedAt = :at',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':at': at },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
