import { logger } from '../../core/logger';
import { OKTA_DEACTIVATION_DEFAULT } from '../../../shared/schemas/integrations';
import { oktaLifecycle } from '../../../shared/schemas/lifecycle';
import type {
  AccountChanges,
  AccountPolicy,
  ExternalAccount,
  ProvisioningAdapter,
  ProvisioningOutcome,
  ProvisioningPerson,
  RemoveOutcome,
  SetActiveOutcome,
  SetPasswordOutcome,
  UndoOutcome,
  UpdateOutcome,
} from '../provisioning-port';
import { goneFrom } from '../provisioning-port';
import { failureOf, isCallFailure, lifecycleAnswer, platformMessage, type CallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';
import { oktaGroups } from './okta-groups';

/** What a lifecycle call says of an account Okta no longer has. */
const goneFromOkta = goneFrom('Okta');

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
  /**
   * What Deactivate does (OKTA_DEACTIVATION_DEFAULT: deactivate): lifecycle/deactivate (status
   * DEPROVISIONED, app assignments removed; Reactivate: lifecycle/activate) or lifecycle/suspend
   * (only from ACTIVE; Reactivate: lifecycle/unsuspend).
   */
  deactivation?: 'deactivate' | 'suspend';
}

interface OktaUser {
  id?: unknown;
  status?: unknown;
  profile?: { login?: unknown; email?: unknown; secondEmail?: unknown; firstName?: unknown; lastName?: unknown };
}

/** Okta statuses in which a user is not deactivated nor suspended (they may still have a step to finish). */
const ACTIVE_STATUSES = new Set(['ACTIVE', 'PROVISIONED', 'PASSWORD_EXPIRED', 'RECOVERY', 'LOCKED_OUT']);

export const oktaLoginOf = (person: Pick<ProvisioningPerson, 'username' | 'email'>, settings: OktaSettings): string =>
  settings.login === 'email' ? person.email : person.username;

export const oktaUser = (person: ProvisioningPerson, settings: OktaSettings) => ({
  // The mapped extra columns are profile properties (base or custom) by name.
  profile: { ...person.platformAttributes, login: oktaLoginOf(person, settings), email: person.email, firstName: person.firstName, lastName: person.lastName },
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

/** The user as findById reads it: active unless deactivated, suspended or staged; the profile's names. */
const accountOf = (user: OktaUser | undefined): ExternalAccount | undefined => {
  const account = externalOf(user);
  if (!account || !user) return account;
  return {
    ...account,
    ...(typeof user.status === 'string' ? { active: ACTIVE_STATUSES.has(user.status) } : {}),
    ...(typeof user.profile?.firstName === 'string' ? { firstName: user.profile.firstName } : {}),
    ...(typeof user.profile?.lastName === 'string' ? { lastName: user.profile.lastName } : {}),
  };
};

/**
 * An Edit as Okta's partial profile update (POST /api/v1/users/{id}): the names and the e-mail;
 * the login follows the integration's login setting: the regenerated username (login=username),
 * or the e-mail (login=email).
 */
export const oktaProfileChanges = (changes: AccountChanges, settings: OktaSettings) => {
  const login = settings.login === 'email' ? changes.email : changes.username;
  // Mapped extra columns set, cleared ones null (a partial update leaves the others as they are).
  const cleared = Object.fromEntries((changes.clearedPlatformAttributes ?? []).map((name) => [name, null]));
  return { profile: { ...cleared, ...changes.platformAttributes, firstName: changes.firstName, lastName: changes.lastName, email: changes.email, ...(login !== undefined ? { login } : {}) } };
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
const oktaFailure = (answer: PlatformAnswer): CallFailure => {
  // A 403 that is about the user's status (E0000038 "not allowed in the user's current status",
  // E0000016 "already active"), not about the credentials: this user's refusal, not a pause.
  const code = (answer.json as { errorCode?: unknown } | undefined)?.errorCode;
  if (answer.status === 403 && (code === 'E0000038' || code === 'E0000016')) return { kind: 'failed', retryable: false, message: platformMessage(answer) };
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

  const userPath = (externalId: string) => `/api/v1/users/${encodeURIComponent(externalId)}`;
  const deactivation = settings.deactivation ?? OKTA_DEACTIVATION_DEFAULT;

  /** Deactivate (lifecycle/deactivate), then, when asked, DELETE (Okta deletes only deactivated users). */
  const deactivateThenDelete = async (externalId: string, remove: boolean): Promise<RemoveOutcome> => {
    const path = userPath(externalId);
    const gone: RemoveOutcome = { kind: 'done', action: remove ? 'deleted' : 'deactivated', alreadyGone: true, detail: 'Okta no longer has this user: nothing left to do there.' };
    const deactivated = await client.call({ method: 'POST', path: `${path}/lifecycle/deactivate` });
    if (isCallFailure(deactivated)) return deactivated;
    if (deactivated.status === 404) return gone;
    if (deactivated.status < 200 || deactivated.status >= 300) {
      const failure = oktaFailure(deactivated);
      if (failure.retryable || deactivated.status === 401) return failure;
      // Okta refuses to deactivate a user who already is (an earlier call that stopped halfway):
      // that user is where the call wants it, and a delete may follow.
      const status = await statusOf(path);
      if (status === 'gone') return gone;
      if (status !== 'DEPROVISIONED') return failure;
    }
    if (!remove) return { kind: 'done', action: 'deactivated', detail: 'Deactivated on Okta.' };
    // A DELETE on a deactivated user deletes it for good.
    const deleted = await client.call({ method: 'DELETE', path });
    if (isCallFailure(deleted)) return deleted;
    if (deleted.status === 404) return gone;
    if (deleted.status >= 200 && deleted.status < 300) return { kind: 'done', action: 'deleted', detail: 'Deactivated, then deleted on Okta.' };
    return oktaFailure(deleted);
  };

  /** One lifecycle call: the answer, 'gone' for a 404, or the failure; `refused` when Okta answered a non-retryable 4xx other than 401. */
  const lifecycle = async (externalId: string, operation: 'activate' | 'deactivate' | 'suspend' | 'unsuspend'): Promise<'ok' | 'gone' | { refused: CallFailure } | CallFailure> => {
    const answer = await client.call({ method: 'POST', path: `${userPath(externalId)}/lifecycle/${operation}${operation === 'activate' ? '?sendEmail=false' : ''}` });
    if (isCallFailure(answer)) return answer;
    if (answer.status === 404) return 'gone';
    if (answer.status >= 200 && answer.status < 300) return 'ok';
    const failure = oktaFailure(answer);
    return failure.retryable || answer.status === 401 ? failure : { refused: failure };
  };

  const deactivate = async (externalId: string): Promise<SetActiveOutcome> => {
    const path = userPath(externalId);
    const gone = goneFromOkta.deactivate;
    const operation = deactivation === 'suspend' ? 'suspend' : 'deactivate';
    const result = await lifecycle(externalId, operation);
    if (result === 'gone') return gone;
    if (result === 'ok') return { kind: 'done', detail: operation === 'suspend' ? 'Suspended on Okta.' : 'Deactivated on Okta.' };
    if (!('refused' in result)) return result;
    // Refused in the user's current status: already where Deactivate wants them, or not possible from there.
    const status = await statusOf(path);
    if (status === 'gone') return gone;
    if (status === 'DEPROVISIONED') return { kind: 'done', detail: 'Already deactivated on Okta.' };
    if (status === 'SUSPENDED') return { kind: 'done', detail: 'Already suspended on Okta.' };
    if (operation === 'suspend' && status) {
      return { ...result.refused, message: `Okta suspends only active users; this one is ${status} (e.g. the password was never set). Choose Deactivate for Okta in the integration's settings to deactivate such users. ${result.refused.message}` };
    }
    return result.refused;
  };

  /**
   * Reactivate: unsuspend a suspended user, activate (without an e-mail) a deactivated one, by the
   * integration's setting first and then by the status Okta reports when it refuses. Okta's
   * activation is asynchronous and a user without a password stays PROVISIONED until they finish
   * the activation: the detail says which status the user has.
   */
  const reactivate = async (externalId: string): Promise<SetActiveOutcome> => {
    const path = userPath(externalId);
    const gone = goneFromOkta.reactivate;
    const activated = async (): Promise<SetActiveOutcome> => {
      const status = await statusOf(path);
      if (status === 'PROVISIONED') return { kind: 'done', detail: "Activated again on Okta (status PROVISIONED): the user must finish Okta's activation before signing in." };
      return { kind: 'done', detail: 'Active again on Okta.' };
    };
    const first = deactivation === 'suspend' ? 'unsuspend' : 'activate';
    const result = await lifecycle(externalId, first);
    if (result === 'gone') return gone;
    if (result === 'ok') return first === 'activate' ? activated() : { kind: 'done', detail: 'Unsuspended on Okta: active again.' };
    if (!('refused' in result)) return result;
    const status = await statusOf(path);
    if (status === 'gone') return gone;
    if (status && ACTIVE_STATUSES.has(status)) return { kind: 'done', detail: status === 'ACTIVE' ? 'Already active on Okta.' : `Not deactivated on Okta (status ${status}).` };
    const other = status === 'SUSPENDED' ? 'unsuspend' : status === 'DEPROVISIONED' || status === 'STAGED' ? 'activate' : undefined;
    if (!other || other === first) return result.refused;
    const second = await lifecycle(externalId, other);
    if (second === 'gone') return gone;
    if (second === 'ok') return other === 'activate' ? activated() : { kind: 'done', detail: 'Unsuspended on Okta: active again.' };
    return 'refused' in second ? second.refused : second;
  };

  return {
    capabilities: async () => ({
      batchSize: 1,
      undo: undoSetting,
      lifecycle: oktaLifecycle({ oktaLogin: settings.login, oktaDeactivation: deactivation }),
      mustChangePassword: { supported: true, how: "Okta creates the user with the password expired (nextLogin=changePassword): Okta asks for a new one at the first sign-in." },
    }),

    find,

    create: (people) => Promise.all(people.map(createOne)),

    async undo(externalId): Promise<UndoOutcome> {
      const outcome = await deactivateThenDelete(externalId, undoSetting === 'delete');
      if (outcome.kind !== 'done') return outcome;
      return outcome.alreadyGone ? { kind: 'gone' } : { kind: 'undone', action: outcome.action };
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

    async findById(externalId) {
      const answer = await client.call({ method: 'GET', path: userPath(externalId) });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return undefined;
      if (answer.status < 200 || answer.status >= 300) return oktaFailure(answer);
      return accountOf(answer.json as OktaUser) ?? { kind: 'failed', retryable: false, message: `HTTP ${answer.status} without an Okta user in the answer.` };
    },

    async update(externalId, changes): Promise<UpdateOutcome> {
      const body = oktaProfileChanges(changes, settings);
      const answer = await client.call({ method: 'POST', path: userPath(externalId), body });
      return lifecycleAnswer<UpdateOutcome>(answer, {
        gone: goneFromOkta.update,
        done: { kind: 'done', detail: body.profile.login !== undefined ? `Updated on Okta, with the login ${body.profile.login}.` : 'Updated on Okta.' },
        conflict: (refused) => (isLoginTaken(refused) ? { kind: 'conflict', message: `The login "${body.profile.login ?? ''}" is already taken on Okta by another user.` } : undefined),
        failure: oktaFailure,
      });
    },

    setActive: (externalId, active) => (active ? reactivate(externalId) : deactivate(externalId)),

    remove: (externalId) => deactivateThenDelete(externalId, true),

    groups: oktaGroups(client),

    close: () => client.close(),
  };
}
