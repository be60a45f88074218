import { randomUUID } from 'node:crypto';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SecurityEventType, SecuritySeverity } from '../../shared/schemas/security';
import { timeOrderedIdFrom } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { notifySecurityAlert } from '../notifications/events';

/*
 * Writing a security event (the Security Center's trail), apart from reading them: every function
 * that records one holds only this PutItem (and, for an alert, the notification's PutItem and the
 * mail queue) in its bundle.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Security events are kept a year (the table's TTL attribute deletes them after). */
export const SECURITY_EVENT_DAYS = 365;

/** Where a request came from: the viewer's address and browser. */
export interface RequestOrigin {
  ipAddress: string;
  userAgent: string;
}

/**
 * The caller's address and browser from an API Gateway HTTP API event (or a Cognito trigger's).
 * On AWS the app calls the API through CloudFront (/api/*), so API Gateway's sourceIp is a
 * CloudFront edge server, not the viewer. CloudFront appends the viewer's address to
 * X-Forwarded-For (and API Gateway then the edge's): through CloudFront (it adds X-Amz-Cf-Id to
 * every origin request) the viewer is the last entry before sourceIp. Locally, and for a direct
 * call to the execute-api URL, sourceIp is the caller. A caller who forges these headers on a
 * direct call only changes the address recorded for their own request.
 */
export function requestOrigin(event: { requestContext?: { http?: { sourceIp?: string; userAgent?: string } }; headers?: Record<string, string | undefined> }): RequestOrigin {
  const http = event.requestContext?.http;
  const sourceIp = http?.sourceIp ?? '';
  return {
    ipAddress: (event.headers?.['x-amz-cf-id'] ? viewerBehindCloudFront(event.headers['x-forwarded-for'], sourceIp) : undefined) ?? sourceIp,
    userAgent: (http?.userAgent ?? event.headers?.['user-agent'] ?? '').slice(0, 500),
  };
}

function viewerBehindCloudFront(forwardedFor: string | undefined, sourceIp: string): string | undefined {
  const hops = (forwardedFor ?? '').split(',').map((hop) => hop.trim()).filter(Boolean);
  if (hops.at(-1) === sourceIp) hops.pop();
  const viewer = hops.at(-1);
  return viewer && /^[0-9a-fA-F.:]{2,45}$/.test(viewer) ? viewer : undefined;
}

export interface NewSecurityEvent extends Partial<RequestOrigin> {
  userId: string;
  type: SecurityEventType;
  description: string;
  severity: SecuritySeverity;
  at: Date;
  /**
   * Names the occurrence (e.g. `login:<auth_time>`, `export:<id>`): with `at` it fixes the event's
   * id, so a retried or redelivered call records it once. Leave it out for one-off user actions.
   */
  source?: string;
  /** Also raise a security alert (notification, and e-mail when the user allows it). */
  alert?: { title: string; detail: string };
}

export interface SecurityEventDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** Queues the alert's e-mail; without it an alert is a notification only. */
  mail?: QueueMail;
}

/**
 * Records one security event with one PutItem (conditional on the id, so a repeat is one event).
 * Never throws: the action it records (a sign-in, an export) has happened and must not fail
 * because its trail could not be written; the failure is logged. Returns the event's id.
 */
export async function recordSecurityEvent(deps: SecurityEventDeps, input: NewSecurityEvent): Promise<string> {
  const id = timeOrderedIdFrom(input.at, `${input.userId}:${input.source ?? `${input.type}:${input.at.toISOString()}:${randomUUID()}`}`);
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: {
          ...keys.securityEvent(input.userId, id),
          entityType: 'SecurityEvent',
          id,
          userId: input.userId,
          type: input.type,
          description: input.description,
          severity: input.severity,
          ipAddress: input.ipAddress ?? '',
          userAgent: input.userAgent ?? '',
          createdAt: input.at.toISOString(),
          expiresAt: Math.floor((input.at.getTime() + SECURITY_EVENT_DAYS * DAY_MS) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') {
      logger.warn('Security event not recorded', { type: input.type, error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (input.alert) {
    await notifySecurityAlert(
      { db: deps.db, tableName: deps.tableName, ...(deps.mail ? { mail: deps.mail } : {}) },
      { userId: input.userId, title: input.alert.title, detail: input.alert.detail, source: `${input.type}:${id}`, at: input.at },
    );
  }
  return id;
}
