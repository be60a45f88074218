/**
 * The single table's physical shape: generic key attributes and indexes named after the access
 * pattern they serve (see docs/data-model.md). The CDK stack and the local stack's bootstrap both
 * build the table from this.
 *
 * The four search indexes let the Account Database find a user's accounts by a prefix of first
 * name, last name, e-mail or username with one Query each, whatever the number of accounts.
 * They project only what the search reads from them: the table's keys (to fetch the shown
 * accounts by key), the account id and the two names it sorts by. Every write of an account is
 * also a write to each index, and an index item of ~300 bytes costs 1 WCU where the whole
 * ~1.1 KB account cost 2 (docs/data-model.md, "Write cost").
 */
const searchProjection = { type: 'INCLUDE', nonKeyAttributes: ['id', 'firstName', 'lastName'] } as const;

export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalSecondaryIndexes: [
    { indexName: 'AccountsByFirstName', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: searchProjection },
    { indexName: 'AccountsByLastName', partitionKey: 'GSI2PK', sortKey: 'GSI2SK', projection: searchProjection },
    { indexName: 'AccountsByEmail', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: searchProjection },
    { indexName: 'AccountsByUsername', partitionKey: 'GSI4PK', sortKey: 'GSI4SK', projection: searchProjection },
    // Sparse: only projects whose expiration date is set and not handled yet (keys.projectExpiry);
    // the expiry sweep reads the due ones by date, never a Scan.
    { indexName: 'ProjectsByExpiry', partitionKey: 'ExpiryPK', sortKey: 'ExpirySK', projection: { type: 'INCLUDE', nonKeyAttributes: ['userId', 'id', 'expirationDate'] } },
  ],
  timeToLiveAttribute: 'expiresAt',
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];
