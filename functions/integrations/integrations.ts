import type { PlanId } from '../../shared/plans';
import { authFields, platformLabels, isLdapUrl, MAX_INTEGRATIONS_PER_USER, missingCredentials, type CreateIntegrationRequest, type Integration, type UpdateIntegrationRequest } from '../../shared/schemas/integrations';
import { secretContext, type Cipher } from '../core/encryption';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { isId } from '../core/ids';
import { logger } from '../core/logger';
import { outboundUrlProblem, type OutboundOptions } from '../core/outbound';
import { assertApiIntegrations } from '../usage/plan-usage';
import { LDAP_PROTOCOLS } from './ldap-connection';
import { testConnection, type ConnectionResult, type ConnectionTarget } from './connection-test';
import { integrationView, type IntegrationRecord, type IntegrationStore } from './integration-store';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';

export interface IntegrationPorts {
  store: IntegrationStore;
  plan(userId: string): Promise<PlanId>;
  cipher(): Promise<Cipher>;
  now(): Date;
  newId(now: Date): string;
  outbound: OutboundOptions;
  /** Called when an integration is deleted: its provisioning runs that are not over fail with the reason. */
  onDeleted?: (userId: string, integrationId: string) => Promise<void>;
  /** Called after a test that succeeded: paused provisioning runs on the integration go on. */
  onTestPassed?: (userId: string, integrationId: string) => Promise<void>;
  /**
   * Runs the connection test's call on the integration's turn (functions/account-jobs/integration-turn.ts),
   * so a job running on it keeps to the platform's limit with the test; none: called at once.
   */
  onTurn?: <T>(record: IntegrationRecord, call: () => Promise<T>) => Promise<T>;
  /** The connection test (real outbound HTTP by default). */
  test?: (target: ConnectionTarget, options: OutboundOptions) => Promise<ConnectionResult>;
  /** Where credentials added, changed or removed are recorded as security events. */
  securityEvents?: SecurityEventDeps;
}

/** The same credentials: one sign-in method and the same fields with the same values. */
const sameCredentials = (a: Record<string, string> | undefined, b: Record<string, string>): boolean => {
  if (!a) return false;
  const keysA = Object.keys(a).sort();
  const keysB = Object.keys(b).sort();
  return keysA.length === keysB.length && keysA.every((key, i) => key === keysB[i] && a[key] === b[key]);
};

const notFound = () => new NotFoundError('Integration not found');

/** The API integration use cases. Creating and testing are Pro features; listing and deleting are not (a lapsed plan keeps its data). */
export function integrationUseCases(ports: IntegrationPorts) {
  const runTest = ports.test ?? testConnection;
  const onTurn = ports.onTurn ?? (<T>(_record: IntegrationRecord, call: () => Promise<T>) => call());
  const assertPlan = async (userId: string) => assertApiIntegrations(await ports.plan(userId));
  /** The decrypted credentials, or undefined when they cannot be read (the key changed, the item was altered). */
  const readCredentials = async (userId: string, integrationId: string, token: string): Promise<Record<string, string> | undefined> => {
    const cipher = await ports.cipher();
    try {
      const value: unknown = JSON.parse(cipher.decrypt(token, secretContext.integration(userId, integrationId)));
      return value && typeof value === 'object' ? (value as Record<string, string>) : undefined;
    } catch {
      return undefined;
    }
  };
  /** Only addresses the outbound guard allows (public https; the local stack's own platforms). */
  const checkUrls = (baseUrl: string, tokenUrl: string | undefined) => {
    // An ldap(s):// base URL (Active Directory over LDAP only, see the schema) is a directory's address.
    const problem = outboundUrlProblem(baseUrl, ports.outbound.allowedOrigins, isLdapUrl(baseUrl) ? LDAP_PROTOCOLS : undefined);
    if (problem) throw new ValidationError(problem, [{ path: 'baseUrl', message: problem }]);
    const tokenProblem = tokenUrl ? outboundUrlProblem(tokenUrl, ports.outbound.allowedOrigins) : undefined;
    if (tokenProblem) throw new ValidationError(tokenProblem, [{ path: 'authConfig.tokenUrl', message: tokenProblem }]);
  };
  /** A security event about an integration's credentials (never their values). */
  const credentialsEvent = async (record: Pick<IntegrationRecord, 'userId' | 'id' | 'name' | 'platform'>, change: 'added' | 'changed' | 'removed', origin: RequestOrigin | undefined) => {
    if (!ports.securityEvents) return;
    await recordSecurityEvent(ports.securityEvents, {
      userId: record.userId,
      type: `integration_credentials_${change}`,
      description: `Credentials of the integration "${record.name}" (${platformLabels[record.platform] ?? record.platform}) ${change}`,
      // New credentials are the user's own act; replacing or deleting ones in use can stop provisioning.
      severity: change === 'added' ? 'low' : 'medium',
      at: ports.now(),
      ...origin,
    });
  };
  return {
    /** Refuses a plan without API integrations (creating and testing call it too). */
    assertPlan,

    async list(userId: string): Promise<Integration[]> {
      return (await ports.store.list(userId)).map(integrationView);
    },

    async create(userId: string, input: CreateIntegrationRequest, origin?: RequestOrigin): Promise<Integration> {
      await assertPlan(userId);
      checkUrls(input.baseUrl, input.authConfig.tokenUrl);
      if ((await ports.store.count(userId)) >= MAX_INTEGRATIONS_PER_USER) {
        throw new ConflictError(`You can keep at most ${MAX_INTEGRATIONS_PER_USER} integrations. Delete one you no longer use first.`);
      }
      const now = ports.now();
      const at = now.toISOString();
      const authConfig = Object.fromEntries(Object.entries(input.authConfig).filter(([, value]) => value !== ''));
      const id = ports.newId(now);
      const record = {
        id,
        userId,
        name: input.name,
        description: input.description,
        platform: input.platform,
        apiType: input.apiType,
        baseUrl: input.baseUrl,
        authMethod: input.authMethod,
        authConfigEncrypted: (await ports.cipher()).encrypt(JSON.stringify(authConfig), secretContext.integration(userId, id)),
        authFieldsSet: Object.keys(authConfig).sort(),
        apiConfig: input.apiConfig,
        isActive: true,
        lastTestStatus: 'pending' as const,
        createdAt: at,
        updatedAt: at,
      };
      await ports.store.create(record);
      await credentialsEvent(record, 'added', origin);
      return integrationView(record);
    },

    /**
     * PUT /api/integrations/{id}: name, description, URL, sign-in, settings. Credentials are
     * write-only: a field sent empty keeps the stored value while the sign-in method stays the
     * same. A changed URL or credentials make the last test stale: it reads 'Not tested' again.
     */
    async update(userId: string, id: string, input: UpdateIntegrationRequest, origin?: RequestOrigin): Promise<Integration> {
      await assertPlan(userId);
      if (!isId(id)) throw notFound();
      const current = await ports.store.get(userId, id);
      if (!current) throw notFound();
      if (input.platform !== current.platform) {
        const message = "An integration's platform cannot be changed (its accounts and runs belong to it): add a new integration instead.";
        throw new ValidationError(message, [{ path: 'platform', message }]);
      }
      checkUrls(input.baseUrl, input.authConfig.tokenUrl);
      // The stored secrets only ever go where they went: a new host (or token URL) needs them typed again.
      // (Protocol and host, not URL.origin: an ldap:// URL's origin is 'null'.)
      const target = (value: string) => `${new URL(value).protocol}//${new URL(value).host.toLowerCase()}`;
      const sameTarget = target(input.baseUrl) === target(current.baseUrl);
      const storedCredentials = input.authMethod === current.authMethod ? ((await readCredentials(userId, id, current.authConfigEncrypted)) ?? {}) : {};
      const sameTokenUrl = (input.authConfig.tokenUrl || storedCredentials.tokenUrl || '') === (storedCredentials.tokenUrl ?? '');
      const stored = sameTarget && sameTokenUrl ? storedCredentials : Object.fromEntries(Object.entries(storedCredentials).filter(([name]) => !authFields[input.authMethod].find((f) => f.name === name)?.secret));
      const given = Object.fromEntries(Object.entries(input.authConfig).filter(([, value]) => value !== ''));
      const authConfig = { ...stored, ...given };
      const missing = missingCredentials(input.authMethod, authConfig);
      if (missing.length) throw new ValidationError(missing[0]!.message, missing);
      const changedConnection = input.baseUrl !== current.baseUrl || input.authMethod !== current.authMethod || Object.keys(given).length > 0;
      const at = ports.now().toISOString();
      const record = {
        ...current,
        name: input.name,
        description: input.description,
        platform: input.platform,
        apiType: input.apiType,
        baseUrl: input.baseUrl,
        authMethod: input.authMethod,
        authConfigEncrypted: (await ports.cipher()).encrypt(JSON.stringify(authConfig), secretContext.integration(userId, id)),
        authFieldsSet: Object.keys(authConfig).sort(),
        apiConfig: input.apiConfig,
        updatedAt: at,
        ...(changedConnection ? { lastTestStatus: 'pending' as const } : {}),
      };
      if (changedConnection) {
        delete record.lastTestDate;
        delete record.lastTestMessage;
      }
      const updated = await ports.store.update(record);
      if (!updated) throw notFound();
      // A rename or a new description is not a credentials change; a new sign-in method or a new value is.
      const previous = input.authMethod === current.authMethod ? storedCredentials : await readCredentials(userId, id, current.authConfigEncrypted);
      if (input.authMethod !== current.authMethod || !sameCredentials(previous, authConfig)) await credentialsEvent(updated, 'changed', origin);
      return integrationView(updated);
    },

    async test(userId: string, id: string): Promise<Integration> {
      await assertPlan(userId);
      if (!isId(id)) throw notFound();
      const record = await ports.store.get(userId, id);
      if (!record) throw notFound();
      const credentials = await readCredentials(userId, record.id, record.authConfigEncrypted);
      const result: ConnectionResult = !credentials
        ? { status: 'failed', message: 'The stored credentials can no longer be read. Delete this integration and add it again.' }
        : await onTurn(record, () =>
            runTest(
              { platform: record.platform, apiType: record.apiType, baseUrl: record.baseUrl, authMethod: record.authMethod, credentials, apiConfig: record.apiConfig ?? {} },
              ports.outbound,
            ),
          );
      const updated = await ports.store.recordTest(userId, id, { ...result, at: ports.now().toISOString() });
      if (!updated) throw notFound();
      if (result.status === 'success' && ports.onTestPassed) {
        try {
          await ports.onTestPassed(userId, id);
        } catch (error) {
          // The test's answer stands; the runs stay paused until the next successful test.
          logger.error('Could not queue the resume of paused provisioning runs', { integrationId: id, error: error instanceof Error ? error.message : String(error) });
        }
      }
      return integrationView(updated);
    },

    async remove(userId: string, id: string, origin?: RequestOrigin): Promise<void> {
      if (!isId(id)) throw notFound();
      // Read first for the event's name; a delete that finds nothing is still the 404.
      const current = ports.securityEvents ? await ports.store.get(userId, id) : undefined;
      if (!(await ports.store.remove(userId, id))) throw notFound();
      if (current) await credentialsEvent(current, 'removed', origin);
      await ports.onDeleted?.(userId, id);
    },
  };
}
