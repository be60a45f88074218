import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { authFields, integrationPlatforms, type AuthMethod, type IntegrationPlatform } from '../../shared/integration-platforms';
import { PASSWORD_CHANGED_AT_ATTRIBUTE, securitySettingsWithDefaults } from '../../shared/schemas/security';
import { OVERVIEW_EVENT_DAYS, type SecurityOverview } from '../../shared/schemas/security-overview';
import { NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { queryAllUnder } from '../core/prefix-query';
import { allSecurityEvents, type SecurityEventReadDeps } from './security-event-list';
import { SECURITY_SETTINGS_ATTRIBUTE } from './security-settings';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether an integration holds a stored secret (not only a client id or a header name). */
const holdsSecret = (authMethod: unknown, fieldsSet: unknown): boolean => {
  const fields = authFields[authMethod as AuthMethod];
  if (!fields || !Array.isArray(fieldsSet)) return false;
  return fieldsSet.some((name) => fields.find((field) => field.name === name)?.secret);
};

const testStatus = (value: unknown): 'success' | 'failed' | 'pending' => (value === 'success' || value === 'failed' ? value : 'pending');

/**
 * GET /api/security/overview: the user item (settings, when the password was set, last sign-in),
 * the integrations (their stored fields and last test, never their secrets) and the events of the
 * last OVERVIEW_EVENT_DAYS days, counted by severity.
 */
export const securityOverview =
  (deps: SecurityEventReadDeps) =>
  async (userId: string): Promise<SecurityOverview> => {
    const now = deps.now();
    const [user, integrations, events] = await Promise.all([
      deps.db.send(
        new GetCommand({
          TableName: deps.tableName,
          Key: keys.user(userId),
          ConsistentRead: true,
          ProjectionExpression: '#s, #changed, createdAt, lastSignInAt',
          ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE, '#changed': PASSWORD_CHANGED_AT_ATTRIBUTE },
        }),
      ),
      queryAllUnder(deps.db, deps.tableName, keys.integrationsOf(userId)),
      allSecurityEvents(deps, userId, { since: new Date(now.getTime() - OVERVIEW_EVENT_DAYS * DAY_MS) }),
    ]);
    const item = user.Item;
    if (!item) throw new NotFoundError('User not found');
    const settings = securitySettingsWithDefaults(item[SECURITY_SETTINGS_ATTRIBUTE]);
    const changedAt = String(item[PASSWORD_CHANGED_AT_ATTRIBUTE] ?? item.createdAt ?? now.toISOString());
    const changedMs = Date.parse(changedAt);
    const ageDays = Number.isNaN(changedMs) ? 0 : Math.max(0, Math.floor((now.getTime() - changedMs) / DAY_MS));
    const counts = { high: 0, medium: 0, low: 0 };
    for (const event of events) counts[event.severity] += 1;
    return {
      twoFactorEnabled: settings.twoFactorEnabled,
      password: {
        changedAt,
        ageDays,
        expiryDays: settings.passwordExpiryDays,
        daysLeft: Math.max(0, settings.passwordExpiryDays - ageDays),
        expired: ageDays >= settings.passwordExpiryDays,
      },
      ...(typeof item.lastSignInAt === 'string' ? { lastSignInAt: item.lastSignInAt } : {}),
      integrations: integrations
        .filter((integration) => holdsSecret(integration.authMethod, integration.authFieldsSet))
        .map((integration) => ({
          id: String(integration.id),
          name: String(integration.name),
          platform: ((integrationPlatforms as readonly string[]).includes(String(integration.platform)) ? integration.platform : 'custom') as IntegrationPlatform,
          lastTestStatus: testStatus(integration.lastTestStatus),
          ...(typeof integration.lastTestDate === 'string' ? { lastTestDate: integration.lastTestDate } : {}),
        })),
      recentEvents: { ...counts, total: events.length, days: OVERVIEW_EVENT_DAYS },
    };
  };
