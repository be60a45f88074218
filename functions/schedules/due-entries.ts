import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPages } from '../core/query-pages';

/** An entry of the ProjectsByExpiry index: its day (the expiration date, or the day a reminder is due), its project, and the sort key as read (`<day>#<userId>#<projectId>`). */
export interface DueEntry {
  day: string;
  userId: string;
  projectId: string;
  entry: string;
}

/**
 * The due entries of one partition of the ProjectsByExpiry index (the expiries' `EXPIRY`, the
 * reminders' `REMIND`: keys.expiryDue / keys.remindersDue): every day up to and including `upTo`
 * (the earliest timezone's day; each caller checks its owner's timezone), oldest first, a page at a
 * time, at most `maxRead` entries. `more`: the partition has entries after this page. One Query per
 * page, never a Scan; the only reader of the index's due entries (the expiry sweep and the
 * reminder sweep).
 */
export async function* dueEntries(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  partition: { ExpiryPK: string },
  upTo: string,
  maxRead: number,
  pageSize = 100,
): AsyncGenerator<{ entries: DueEntry[]; more: boolean }> {
  const query = {
    TableName: deps.tableName,
    IndexName: 'ProjectsByExpiry',
    // '$' sorts right after '#': every entry of the days up to and including upTo.
    KeyConditionExpression: 'ExpiryPK = :pk AND ExpirySK < :next',
    ExpressionAttributeValues: { ':pk': partition.ExpiryPK, ':next': `${upTo}$` },
    Limit: pageSize,
  };
  for await (const page of queryPages(deps.db, query, { maxItems: maxRead })) {
    const entries = (page.Items ?? []).map((item) => {
      const entry = String(item.ExpirySK);
      const [day, userId, projectId] = entry.split('#') as [string, string, string];
      return { day, userId, projectId, entry };
    });
    yield { entries, more: page.LastEvaluatedKey !== undefined };
  }
}
