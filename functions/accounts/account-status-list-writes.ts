import { keys } from '../core/keys';
import type { StatusListWrites } from './account-status-lists';

/**
 * The status lists of PROV state blocks (keys.accountStatusList): a list that still names rows is
 * put whole, an emptied one deleted (the lists stay sparse: every list item read names a match).
 * Given to the PROV StateBlockWriter by provisioning only, so the e-mail workers' bundles hold no
 * delete they are not granted.
 */
export const provStatusLists: StatusListWrites = {
  writes: (tableName, target, block, lists, changed, blockVersion) =>
    changed.map((status) => {
      const key = keys.accountStatusList(target.userId, target.projectId, status, block.fromRow, block.shard);
      return lists[status].length
        ? { Put: { TableName: tableName, Item: { ...key, entityType: 'AccountStatusList', userId: target.userId, projectId: target.projectId, status, shard: block.shard, fromRow: block.fromRow, rows: lists[status], blockVersion } } }
        : { Delete: { TableName: tableName, Key: key } };
    }),
};
