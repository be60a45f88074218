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

/** Where a request came from, as API Gateway saw it. */
export interface RequestOrigin {
  ipAddress: string;
  userAgent: string;
}

/** The caller's address and browser from an API Gateway HTTP API event (or a Cognito trigger's). */
export function requestOrigin(event: { requestContext?: { http?: { sourceIp?: string; userAgent?: string } }; headers?: Record<string, string | undefined> }): RequestOrigin {
  const http = event.requestContext?.http;
  return {
    ipAddress: http?.sourceIp ?? '',
    userAgent: (http?.userAgent ?? event.headers?.['user-agent'] ?? '').slice(0, 500),
  };
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
