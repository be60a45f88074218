import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  PASSWORD_CHANGED_AT_ATTRIBUTE,
  PASSWORD_EXPIRED_MESSAGE,
  securityErrorCodes,
  securitySettingsWithDefaults,
  SESSION_EXPIRED_MESSAGE,
  SESSION_REPLACED_MESSAGE,
  SESSIONS_NOT_BEFORE_ATTRIBUTE,
  type SecurityErrorCode,
} from '../../shared/schemas/security';
import type { NewSecurityEvent, RequestOrigin } from '../security/security-events';
import { ForbiddenError, GoneError, UnauthorizedError } from './errors';
import { keys } from './keys';

export interface AccountGateOptions {
  /** 'optional': the caller may have no user item yet (GET /api/auth/user, which creates it). */
  userItem?: 'optional';
  /** 'allow': the route runs for a user whose account is being deleted (DELETE /api/user/account itself). */
  whileDeleting?: 'allow';
  /** 'allow': the route runs for a user whose password has expired (changing it, reading who one is). */
  passwordExpired?: 'allow';
  /** The access token's auth_time (epoch seconds): when the user signed in. Refreshed tokens keep it. */
  authTime?: number;
  /** Where the request came from, for the security event of a session that timed out. */
  origin?: RequestOrigin;
}

/**
 * Throws GoneError when the caller's account is being deleted, UnauthorizedError when it has no
 * user item (unless `userItem` is 'optional'), and the Security Center's refusals: 401
 * SESSION_EXPIRED / SESSION_REPLACED, 403 PASSWORD_EXPIRED (see `securityRefusal`).
 */
export type AccountGate = (userId: string, options?: AccountGateOptions) => Promise<void>;

/** The user item's attribute that DELETE /api/user/account sets first (functions/account-deletion). */
export const DELETION_REQUESTED_AT = 'deletionRequestedAt';
/** The user item's attribute the security settings live in (functions/security/security-settings). */
const SECURITY_SETTINGS = 'securitySettings';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** What the gate reads of the user item for the security settings. */
export interface GateUserItem {
  securitySettings?: unknown;
  passwordChangedAt?: unknown;
  createdAt?: unknown;
  sessionsNotBefore?: unknown;
}

export interface SecurityRefusal {
  code: SecurityErrorCode;
  /** For SESSION_EXPIRED: the moment the session ran out (auth_time + the timeout). */
  expiredAt?: Date;
  sessionTimeoutHours?: number;
}

const epochSeconds = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};
const isoTime = (value: unknown): number | undefined => {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
};

/**
 * The Security Center's rules at the gate, pure: which refusal (if any) a request gets.
 * - session timeout: the sign-in (auth_time) is sessionTimeout hours old or more;
 * - concurrent sessions off: the sign-in is older than the latest one elsewhere (sessionsNotBefore);
 * - password expiry: the password (passwordChangedAt, else the account's createdAt) is
 *   passwordExpiryDays old or more, on every route but those marked passwordExpired 'allow'.
 * A token without auth_time (never one of Cognito's) skips the two session rules: there is no
 * sign-in time to judge.
 */
export function securityRefusal(item: GateUserItem, request: { authTime?: number; now: Date; passwordExpired?: 'allow' }): SecurityRefusal | undefined {
  const settings = securitySettingsWithDefaults(item.securitySettings);
  const now = request.now.getTime();
  const authTime = request.authTime;
  if (authTime !== undefined) {
    const expiresAt = authTime * 1000 + settings.sessionTimeout * HOUR_MS;
    if (now >= expiresAt) return { code: securityErrorCodes.sessionExpired, expiredAt: new Date(expiresAt), sessionTimeoutHours: settings.sessionTimeout };
    const notBefore = epochSeconds(item.sessionsNotBefore);
    if (!settings.allowConcurrentSessions && notBefore !== undefined && authTime < notBefore) return { code: securityErrorCodes.sessionReplaced };
  }
  if (request.passwordExpired !== 'allow') {
    const changedAt = isoTime(item.passwordChangedAt) ?? isoTime(item.createdAt);
    if (changedAt !== undefined && now >= changedAt + settings.passwordExpiryDays * DAY_MS) return { code: securityErrorCodes.passwordExpired };
  }
  return undefined;
}

export interface AccountGateDeps {
  now?: () => Date;
  /**
   * Records a security event (functions/security/security-events recordSecurityEvent, passed in
   * by http.ts so that the workers importing this module's constants do not bundle it).
   */
  recordEvent?: (event: NewSecurityEvent) => Promise<unknown>;
}

/**
 * Reads the user item once, strongly consistent: a request that arrives right after DELETE
 * /api/user/account answered is refused, so nothing new is written for a user whose deletion
 * job is running. A user item that is gone (deletion finished) is not refused here: the Cognito
 * user is gone too, so GET /api/auth/user cannot create it again (its GetUser fails). The same
 * GetItem brings the security settings the gate enforces (securityRefusal); a session refused for
 * its age is recorded once as a `session_timeout` event (its id is fixed by the sign-in's time).
 */
export const dynamoAccountGate =
  (db: DynamoDBDocumentClient, tableName: string, deps: AccountGateDeps = {}): AccountGate =>
  async (userId, options = {}) => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.user(userId),
        // The key too: an item without any of these must still come back as an item.
        ProjectionExpression: 'PK, #deleting, #settings, #passwordChangedAt, createdAt, #sessionsNotBefore',
        ExpressionAttributeNames: {
          '#deleting': DELETION_REQUESTED_AT,
          '#settings': SECURITY_SETTINGS,
          '#passwordChangedAt': PASSWORD_CHANGED_AT_ATTRIBUTE,
          '#sessionsNotBefore': SESSIONS_NOT_BEFORE_ATTRIBUTE,
        },
        ConsistentRead: true,
      }),
    );
    if (!Item) {
      if (options.userItem === 'optional') return;
      throw new UnauthorizedError();
    }
    if (Item[DELETION_REQUESTED_AT] !== undefined && options.whileDeleting !== 'allow') throw new GoneError();
    const refusal = securityRefusal(Item, { authTime: options.authTime, now: (deps.now ?? (() => new Date()))(), passwordExpired: options.passwordExpired });
    if (!refusal) return;
    switch (refusal.code) {
      case securityErrorCodes.sessionExpired:
        await deps.recordEvent?.({
          userId,
          type: 'session_timeout',
          description: `Session ended by the ${refusal.sessionTimeoutHours}-hour session timeout`,
          severity: 'low',
          // The moment the session ran out and the sign-in it ended: every refused request of
          // this session names the same event, so it is recorded once.
          at: refusal.expiredAt!,
          source: `session_timeout:${options.authTime}`,
          ...options.origin,
        });
        throw new UnauthorizedError(SESSION_EXPIRED_MESSAGE).withCode(refusal.code);
      case securityErrorCodes.sessionReplaced:
        throw new UnauthorizedError(SESSION_REPLACED_MESSAGE).withCode(refusal.code);
      default:
        throw new ForbiddenError(PASSWORD_EXPIRED_MESSAGE).withCode(refusal.code);
    }
  };
