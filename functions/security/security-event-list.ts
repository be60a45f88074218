import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  SECURITY_EVENTS_PAGE_MAX,
  SECURITY_EVENTS_SHOWN,
  securityEventTypes,
  securitySeverities,
  type SecurityEvent,
  type SecurityEventPage,
  type SecurityEventType,
  type SecuritySeverity,
} from '../../shared/schemas/security';
import { ValidationError } from '../core/errors';
import { isId, timeOrderedIdFloor } from '../core/ids';
import { keys } from '../core/keys';
import { queryPages } from '../core/query-pages';

/*
 * Reading the user's security events (GET /api/security/events, the overview and 'Export Logs'). They live in their
 * own partition USER#<sub>#SECURITY, sorted by time-ordered id, so newest first is one Query
 * with ScanIndexForward false, and every key is built from the caller's id: another user's
 * events cannot be named, whatever the cursor says.
 */
export interface SecurityEventReadDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
}

export const SECURITY_EVENTS_LIMIT_MESSAGE = `limit must be a whole number from 1 to ${SECURITY_EVENTS_PAGE_MAX}`;
export const SECURITY_EVENTS_CURSOR_MESSAGE = 'This cursor is not valid: start again from the first page of security events.';

const pageLimit = (value: string | undefined): number => {
  if (value === undefined || value === '') return SECURITY_EVENTS_SHOWN;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1 || n > SECURITY_EVENTS_PAGE_MAX) throw new ValidationError(SECURITY_EVENTS_LIMIT_MESSAGE);
  return n;
};

/** TTL deletes within days of expiry, not at once: an expired event still in the table is not shown. */
const unexpired = (item: Record<string, unknown>, now: Date) => typeof item.expiresAt !== 'number' || item.expiresAt * 1000 > now.getTime();

/** One stored item as the API shows it; a value the schema does not know reads as the closest safe one. */
export const securityEventView = (item: Record<string, unknown>): SecurityEvent => ({
  id: String(item.id),
  type: (securityEventTypes as readonly string[]).includes(String(item.type)) ? (item.type as SecurityEventType) : 'settings_changed',
  description: String(item.description ?? ''),
  ipAddress: String(item.ipAddress ?? ''),
  userAgent: String(item.userAgent ?? ''),
  createdAt: String(item.createdAt ?? ''),
  severity: (securitySeverities as readonly string[]).includes(String(item.severity)) ? (item.severity as SecuritySeverity) : 'low',
});

/**
 * GET /api/security/events?limit=&cursor=: newest first. The cursor is the id of the last event
 * of the page before (opaque to the browser); anything that is not such an id is a 400.
 */
export const listSecurityEvents =
  (deps: SecurityEventReadDeps) =>
  async (userId: string, query: { limit?: string; cursor?: string }): Promise<SecurityEventPage> => {
    const limit = pageLimit(query.limit);
    const cursor = query.cursor;
    if (cursor !== undefined && !isId(cursor)) throw new ValidationError(SECURITY_EVENTS_CURSOR_MESSAGE);
    const key = keys.securityEventsOf(userId);
    const { Items = [], LastEvaluatedKey } = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
        ...(cursor ? { ExclusiveStartKey: keys.securityEvent(userId, cursor) } : {}),
      }),
    );
    const now = deps.now();
    const last = Items.at(-1);
    return {
      events: Items.filter((item) => unexpired(item, now)).map(securityEventView),
      ...(LastEvaluatedKey && last ? { nextCursor: String(last.id) } : {}),
    };
  };

/** The user's stored events, newest first, a Query page at a time (a year at most: the TTL deletes older ones). */
export async function* securityEventPages(deps: SecurityEventReadDeps, userId: string, options: { since?: Date } = {}): AsyncIterable<SecurityEvent[]> {
  const key = keys.securityEventsOf(userId);
  const now = deps.now();
  const query = {
    TableName: deps.tableName,
    ...(options.since
      ? {
          // Ids are time-ordered: the floor id of a moment bounds what came since.
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': key.PK, ':from': `${key.SKPrefix}${timeOrderedIdFloor(options.since)}`, ':to': `${key.SKPrefix}\uffff` },
        }
      : { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)', ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix } }),
    ScanIndexForward: false,
    ConsistentRead: true,
  };
  for await (const page of queryPages(deps.db, query)) {
    const events = (page.Items ?? []).filter((item) => unexpired(item, now)).map(securityEventView);
    if (events.length) yield events;
  }
}

/** Every stored event of the user (since a moment), newest first. */
export async function allSecurityEvents(deps: SecurityEventReadDeps, userId: string, options: { since?: Date } = {}): Promise<SecurityEvent[]> {
  const events: SecurityEvent[] = [];
  for await (const page of securityEventPages(deps, userId, options)) events.push(...page);
  return events;
}

/**
 * 'Export Logs' (an Export Center export, functions/exports/run-export.ts): the CSV's columns and
 * one event's cells. Time is ISO 8601 UTC: unambiguous in any spreadsheet locale; the shared CSV
 * writer neutralises a description or user agent starting with = + - @.
 */
export const SECURITY_EVENTS_CSV_HEADER = ['Time', 'Type', 'Severity', 'Description', 'IP address', 'User agent'] as const;
export const securityEventCells = (event: SecurityEvent): string[] => [event.createdAt, event.type, event.severity, event.description, event.ipAddress, event.userAgent];
