import { logger } from '../../core/logger';
import type { AccountPolicy, ExternalAccount, ProvisioningAdapter, ProvisioningOutcome, ProvisioningPerson, SetPasswordOutcome, UndoOutcome } from '../provisioning-port';
import { failureOf, isCallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';

/**
 * Okta (Users API, /api/v1/users): one POST per person (Okta has no bulk create), activated with
 * the generated password; a login Okta already holds is looked up and linked when it is the same
 * person. Okta's rate limits: a 429's X-Rate-Limit-Reset, read on Okta's own clock (oktaFailure).
 */

export interface OktaSettings {
  /** The login: the generated username (default) or the person's e-mail (orgs whose login pattern is an e-mail). */
  login?: 'username' | 'email';
  /** Deactivate, or deactivate then delete (the default: Okta deletes only deactivated users). */
  undo?: 'deactivate' | 'delete';
}

interface OktaUser {
  id?: unknown;
  status?: unknown;
  profile?: { login?: unknown; email?: unknown; secondEmail?: unknown };
}

export const oktaLoginOf = (person: Pick<ProvisioningPerson, 'username' | 'email'>, settings: OktaSettings): string =>
  settings.login === 'email' ? person.email : person.username;

export const oktaUser = (person: ProvisioningPerson, settings: OktaSettings) => ({
  profile: { login: oktaLoginOf(person, settings), email: person.email, firstName: person.firstName, lastName: person.lastName },
  credentials: { password: { value: person.password } },
});

const externalOf = (user: OktaUser | undefined): ExternalAccount | undefined => {
  if (!user || typeof user.id !== 'string') return undefined;
  const emails = [user.profile?.email, user.profile?.secondEmail].filter((e): e is string => typeof e === 'string' && e !== '').map((e) => e.toLowerCase());
  return {
    externalId: user.id,
    userName: typeof user.profile?.login === 'string' ? user.profile.login : '',
    emails,
    ...(typeof user.status === 'string' ? { active: user.status === 'ACTIVE' } : {}),
  };
};

/**
 * Okta's answer to a login it already holds: 400 E0000001 (validation) with the cause
 * "login: An object with this field already exists in the current organization".
 */
const isLoginTaken = (answer: PlatformAnswer): boolean => {
  const json = answer.json as { errorCode?: unknown; errorCauses?: { errorSummary?: unknown }[] } | undefined;
  if (answer.status !== 400 || json?.errorCode !== 'E0000001' || !Array.isArray(json.errorCauses)) return false;
  return json.errorCauses.some((cause) => typeof cause?.errorSummary === 'string' && /^login:.*already exists/i.test(cause.errorSummary));
};

/**
 * A failed answer as an outcome, its 429 wait measured on Okta's clock: X-Rate-Limit-Reset is an
 * instant on Okta's clock, and the answer's Date header says what time Okta had then. A clock of
 * ours ahead of Okta's would otherwise shorten the wait, to nothing at worst (Date's whole seconds
 * make it at most a second longer, never shorter).
 */
const oktaFailure = (answer: PlatformAnswer) => {
  const date = answer.headers.date;
  const oktaNow = Date.parse(Array.isArray(date) ? (date[0] ?? '') : (date ?? ''));
  return failureOf(answer, Number.isNaN(oktaNow) ? Date.now() : oktaNow);
};

/** A filter value in double quotes (Okta's filter expressions take JSON-style string literals). */
const quoted = (value: string) => JSON.stringify(value);

/**
 * The create call: activated with the generated password; with Require password change, Okta's
 * `nextLogin=changePassword` (only with activate=true) creates the user with that password
 * expired, so Okta asks for a new one at the first sign-in.
 */
export const oktaCreatePath = (policy: AccountPolicy) => `/api/v1/users?activate=true${policy.requirePasswordChange ? '&nextLogin=changePassword' : ''}`;

export function oktaAdapter(client: PlatformClient, settings: OktaSettings = {}, policy: AccountPolicy = {}): ProvisioningAdapter {
  const undoSetting = settings.undo ?? 'delete';

  const find: ProvisioningAdapter['find'] = async (person) => {
    const login = oktaLoginOf(person, settings);
    // filter (not search): Okta's filter reads the current data, so a user created a moment ago is found.
    const answer = await client.call({ method: 'GET', path: `/api/v1/users?filter=${encodeURIComponent(`profile.login eq ${quoted(login)}`)}&limit=2` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return oktaFailure(answer);
    const users = Array.isArray(answer.json) ? (answer.json as OktaUser[]) : [];
    // Okta logins are case-insensitive.
    const wanted = login.toLowerCase();
    return users.map(externalOf).find((u) => u && u.userName.toLowerCase() === wanted);
  };

  /** A login Okta already holds: ours when the e-mail is this person's, someone else's otherwise. */
  const resolveExisting = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const existing = await find(person);
    if (existing && 'kind' in existing) return existing;
    const login = oktaLoginOf(person, settings);
    if (!existing) return { kind: 'failed', retryable: true, message: `Okta says the login "${login}" exists but does not find it.` };
    if (existing.emails.includes(person.email.toLowerCase())) return { kind: 'linked', externalId: existing.externalId };
    return { kind: 'conflict', message: `The login "${login}" is already taken on Okta by another person (${existing.emails[0] ?? 'no e-mail'}).` };
  };

  const createOne = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const answer = await client.call({ method: 'POST', path: oktaCreatePath(policy), body: oktaUser(person, settings) });
    if (isCallFailure(answer)) return answer;
    if (answer.status >= 200 && answer.status < 300) {
      const created = externalOf(answer.json as OktaUser);
      if (created) return { kind: 'created', externalId: created.externalId };
      const found = await find(person);
      if (found && !('kind' in found)) return { kind: 'created', externalId: found.externalId };
      return { kind: 'failed', retryable: true, message: `HTTP ${answer.status} without the created user, and no user of that login found.` };
    }
    if (isLoginTaken(answer)) return resolveExisting(person);
    return oktaFailure(answer);
  };

  /** The user's status now (after a lifecycle call Okta refused): undefined when unknown. */
  const statusOf = async (path: string): Promise<'gone' | string | undefined> => {
    const answer = await client.call({ method: 'GET', path });
    if (isCallFailure(answer)) return undefined;
    if (answer.status === 404) return 'gone';
    const status = (answer.json as OktaUser | undefined)?.status;
    return answer.status >= 200 && answer.status < 300 && typeof status === 'string' ? status : undefined;
  };

  return {
    capabilities: async () => ({
      batchSize: 1,
      undo: undoSetting,
      mustChangePassword: { supported: true, how: "Okta creates the user with the password expired (nextLogin=changePassword): Okta asks for a new one at the first sign-in." },
    }),

    find,

    create: (people) => Promise.all(people.map(createOne)),

    async undo(externalId): Promise<UndoOutcome> {
      const path = `/api/v1/users/${encodeURIComponent(externalId)}`;
      const deactivated = await client.call({ method: 'POST', path: `${path}/lifecycle/deactivate` });
      if (isCallFailure(deactivated)) return deactivated;
      if (deactivated.status === 404) return { kind: 'gone' };
      if (deactivated.status < 200 || deactivated.status >= 300) {
        const failure = oktaFailure(deactivated);
        if (failure.retryable || deactivated.status === 401) return failure;
        // Okta refuses to deactivate a user who already is (an earlier undo that stopped halfway):
        // that user is where the undo wants it, and a delete may follow.
        const status = await statusOf(path);
        if (status === 'gone') return { kind: 'gone' };
        if (status !== 'DEPROVISIONED') return failure;
      }
      if (undoSetting === 'deactivate') return { kind: 'undone', action: 'deactivated' };
      // A DELETE on a deactivated user deletes it for good.
      const deleted = await client.call({ method: 'DELETE', path });
      if (isCallFailure(deleted)) return deleted;
      if (deleted.status === 404) return { kind: 'gone' };
      if (deleted.status >= 200 && deleted.status < 300) return { kind: 'undone', action: 'deleted' };
      return oktaFailure(deleted);
    },

    /**
     * An administrator's password update (POST /api/v1/users/{id}, partial update of
     * credentials.password): Okta sets it without the old one, checked against its password policy.
     * With Require password change on, the new password is then expired
     * (POST .../lifecycle/expire_password: status PASSWORD_EXPIRED, Okta asks for a new one at the
     * next sign-in). The password is set either way: an expiry Okta refuses is logged, and the
     * account counts as updated (its new password works).
     */
    async setPassword(externalId, person): Promise<SetPasswordOutcome> {
      const path = `/api/v1/users/${encodeURIComponent(externalId)}`;
      const answer = await client.call({ method: 'POST', path, body: { credentials: { password: { value: person.password } } } });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status < 200 || answer.status >= 300) return oktaFailure(answer);
      if (policy.requirePasswordChange) {
        const expired = await client.call({ method: 'POST', path: `${path}/lifecycle/expire_password` });
        if (isCallFailure(expired) || expired.status < 200 || expired.status >= 300) {
          logger.warn('Okta: password set but not expired', { status: isCallFailure(expired) ? expired.message : expired.status });
        }
      }
      return { kind: 'updated' };
    },

    close: () => client.close(),
  };
}
