/**
 * The single table's physical shape: generic key attributes and indexes named after the access
 * pattern they serve (see docs/data-model.md). The CDK stack and the local stack's bootstrap both
 * build the table from this.
 *
 * The four search indexes let the Account Database find a user's accounts by a prefix of first
 * name, last name, e-mail or username with one Query each, whatever the number of accounts.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalSecondaryIndexes: [
    { indexName: 'AccountsByFirstName', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { indexName: 'AccountsByLastName', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
    { indexName: 'AccountsByEmail', partitionKey: 'GSI3PK', sortKey: 'GSI3SK' },
    { indexName: 'AccountsByUsername', partitionKey: 'GSI4PK', sortKey: 'GSI4SK' },
  ],
  timeToLiveAttribute: 'expiresAt',
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['indexName'];
