import type { SalesforceSettings } from '../../../shared/schemas/integrations';
import { SALESFORCE_LIFECYCLE } from '../../../shared/schemas/lifecycle';
import type { ExternalAccount, ProvisioningAdapter, ProvisioningOutcome, ProvisioningPerson, RemoveOutcome, SetActiveOutcome, SetPasswordOutcome, UndoOutcome, UpdateOutcome } from '../provisioning-port';
import { mapBounded } from '../pacing';
import { failureOf, isCallFailure, platformMessage, type CallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';
import { salesforceGroups } from './salesforce-groups';

/**
 * Salesforce (REST API, a connected app's client credentials on the instance URL): Users are
 * created with sObject Collections (POST /composite/sobjects, up to 200 records, allOrNone false:
 * each record's own SaveResult), then given the generated password with the sObject User Password
 * resource (POST /sobjects/User/{id}/password: a User cannot be created with one). Salesforce
 * cannot delete a User: undo deactivates it (IsActive false).
 */
export const SALESFORCE_BATCH = 200;
export const SALESFORCE_API_VERSION = '62.0';
/** When Salesforce refuses for its request allocation (403 REQUEST_LIMIT_EXCEEDED, no Retry-After): wait this, then try again. */
export const SALESFORCE_LIMIT_WAIT_MS = 60_000;
/** Password calls in flight per collection (each is one short API request). */
export const SALESFORCE_PASSWORD_CONCURRENCY = 4;

/** Salesforce user names look like e-mails: `<our user name>@<the integration's domain>`. */
export const salesforceUsername = (username: string, settings: Pick<SalesforceSettings, 'usernameDomain'>) =>
  (username.includes('@') ? username : `${username}@${settings.usernameDomain}`).toLowerCase();

/** Alias: at most 8 characters (a required field), from the user name's letters and digits. */
export const salesforceAlias = (person: Pick<ProvisioningPerson, 'username' | 'firstName' | 'lastName'>) => {
  const plain = (value: string) => value.normalize('NFKD').replace(/[^A-Za-z0-9]/g, '');
  const local = plain(person.username.split('@')[0] ?? '');
  return (local || plain(`${person.firstName.slice(0, 1)}${person.lastName}`) || 'user').slice(0, 8).toLowerCase();
};

/** A SOQL string literal: backslash and quote escaped (SOQL's own escapes). */
const soqlString = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

interface SaveResult {
  id?: string | null;
  success?: boolean;
  errors?: { statusCode?: string; message?: string; fields?: string[] }[];
}

interface UserRecord {
  Id?: string;
  Username?: string;
  Email?: string;
  IsActive?: boolean;
  LastLoginDate?: string | null;
  FirstName?: string | null;
  LastName?: string | null;
}

/** The error codes of a [{message, errorCode}] answer (an sObject row's refusal). */
const errorCodesOf = (answer: PlatformAnswer): unknown[] => (Array.isArray(answer.json) ? (answer.json as { errorCode?: unknown }[]).map((e) => e?.errorCode) : []);

/** Per-record codes Salesforce documents as transient (a lock held by another transaction). */
const TRANSIENT_CODES = new Set(['UNABLE_TO_LOCK_ROW', 'REQUEST_RUNNING_TOO_LONG']);

/**
 * A non-2xx answer: as failureOf, except Salesforce's 403 REQUEST_LIMIT_EXCEEDED, which is its
 * request allocation (not refused credentials): retried later rather than pausing the run.
 */
export function salesforceFailure(answer: PlatformAnswer): CallFailure {
  const codes = Array.isArray(answer.json) ? (answer.json as { errorCode?: unknown }[]).map((e) => e?.errorCode) : [];
  if (answer.status === 403 && codes.includes('REQUEST_LIMIT_EXCEEDED')) {
    return { kind: 'failed', retryable: true, retryAfterMs: SALESFORCE_LIMIT_WAIT_MS, message: `${platformMessage(answer)} (Salesforce's API request limit)` };
  }
  return failureOf(answer);
}

export function salesforceAdapter(client: PlatformClient, settings: SalesforceSettings): ProvisioningAdapter {
  const base = `/services/data/v${settings.apiVersion ?? SALESFORCE_API_VERSION}`;

  const userOf = (person: ProvisioningPerson) => ({
    // The mapped extra columns are User fields by API name (Department, Title, Region__c...).
    ...person.platformAttributes,
    attributes: { type: 'User' },
    Username: salesforceUsername(person.username, settings),
    Alias: salesforceAlias(person),
    Email: person.email,
    FirstName: person.firstName,
    LastName: person.lastName,
    ProfileId: settings.profileId,
    TimeZoneSidKey: settings.timeZoneSidKey ?? 'GMT',
    LocaleSidKey: settings.localeSidKey ?? 'en_US',
    EmailEncodingKey: settings.emailEncodingKey ?? 'UTF-8',
    LanguageLocaleKey: settings.languageLocaleKey ?? 'en_US',
    IsActive: true,
  });

  /** The User with this user name (active or not), with what deciding a link needs. */
  const lookup = async (value: string, field: 'Username' | 'Email' = 'Username'): Promise<UserRecord | undefined | CallFailure> => {
    const soql = `SELECT Id, Username, Email, IsActive, LastLoginDate FROM User WHERE ${field} = ${soqlString(value)} LIMIT 1`;
    const answer = await client.call({ method: 'GET', path: `${base}/query?q=${encodeURIComponent(soql)}` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return salesforceFailure(answer);
    const records = (answer.json as { records?: UserRecord[] } | undefined)?.records ?? [];
    return records.find((r) => typeof r.Id === 'string' && r[field]?.toLowerCase() === value.toLowerCase());
  };

  const externalOf = (user: UserRecord): ExternalAccount => ({
    externalId: String(user.Id),
    userName: user.Username ?? '',
    emails: user.Email ? [user.Email.toLowerCase()] : [],
    ...(typeof user.IsActive === 'boolean' ? { active: user.IsActive } : {}),
    ...(typeof user.FirstName === 'string' ? { firstName: user.FirstName } : {}),
    ...(typeof user.LastName === 'string' ? { lastName: user.LastName } : {}),
  });

  const userPath = (externalId: string) => `${base}/sobjects/User/${encodeURIComponent(externalId)}`;

  /** PATCH on the User record (sObject Rows): 204 No Content when Salesforce took it. */
  const patchUser = (externalId: string, body: Record<string, unknown>) => client.call({ method: 'PATCH', path: userPath(externalId), body });

  /** IsActive false: the user can no longer sign in (Salesforce keeps the record; its license is freed). */
  const deactivate = async (externalId: string): Promise<RemoveOutcome> => {
    const answer = await patchUser(externalId, { IsActive: false });
    if (isCallFailure(answer)) return answer;
    if (answer.status === 404) return { kind: 'done', action: 'deactivated', alreadyGone: true, detail: 'Salesforce has no such user: nothing left to deactivate.' };
    if (answer.status >= 200 && answer.status < 300) return { kind: 'done', action: 'deactivated', detail: 'Deactivated in Salesforce (IsActive false).' };
    return salesforceFailure(answer);
  };

  /** Gives the created User the generated password (204 No Content when accepted). */
  const setPassword = async (id: string, person: ProvisioningPerson): Promise<CallFailure | undefined> => {
    const answer = await client.call({ method: 'POST', path: `${base}/sobjects/User/${encodeURIComponent(id)}/password`, body: { NewPassword: person.password } });
    if (isCallFailure(answer)) return answer;
    if (answer.status >= 200 && answer.status < 300) return undefined;
    const failure = salesforceFailure(answer);
    // A 429 and refused credentials stay as they are: the use case waits them out or pauses.
    if (failure.authRefused || answer.status === 429) return failure;
    // The User exists without our password: a retry finds it by name and sets the password again.
    return { ...failure, message: `The user ${salesforceUsername(person.username, settings)} was created (${id}) but its password was not set: ${failure.message}` };
  };

  /**
   * A user name Salesforce already holds: ours when the e-mail is this person's. A User that never
   * signed in is one we created whose password was not set (a crash, a refused password): it gets
   * the password now. One that has signed in keeps its own.
   */
  const resolveExisting = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const username = salesforceUsername(person.username, settings);
    const existing = await lookup(username);
    if (existing && 'kind' in existing) return existing;
    if (!existing) {
      return { kind: 'conflict', message: `The user name "${username}" is already taken in another Salesforce organization (user names are unique across all of Salesforce): choose another user name domain.` };
    }
    if (existing.Email?.toLowerCase() !== person.email.toLowerCase()) {
      return { kind: 'conflict', message: `The user name "${username}" is already taken on the platform by another person (${existing.Email ?? 'no e-mail'}).` };
    }
    if (!existing.LastLoginDate) {
      const refused = await setPassword(String(existing.Id), person);
      if (refused) return refused;
    }
    if (existing.IsActive === false) {
      // Provisioning this person again (e.g. after Undo on platform) means a User that works.
      const answer = await client.call({ method: 'PATCH', path: `${base}/sobjects/User/${encodeURIComponent(String(existing.Id))}`, body: { IsActive: true } });
      if (isCallFailure(answer)) return answer;
      if (answer.status < 200 || answer.status >= 300) {
        const failure = salesforceFailure(answer);
        return failure.authRefused || failure.rateLimited ? failure : { ...failure, message: `The user ${username} exists but is inactive and was not activated again: ${failure.message}` };
      }
    }
    return { kind: 'linked', externalId: String(existing.Id) };
  };

  const outcomeOf = async (person: ProvisioningPerson, result: SaveResult | undefined): Promise<ProvisioningOutcome> => {
    if (!result) return { kind: 'failed', retryable: true, message: 'Salesforce did not answer for this person in its collection response.' };
    if (result.success && typeof result.id === 'string' && result.id) {
      const refused = await setPassword(result.id, person);
      return refused ?? { kind: 'created', externalId: result.id };
    }
    const errors = result.errors ?? [];
    if (errors.some((e) => e.statusCode === 'DUPLICATE_USERNAME')) return resolveExisting(person);
    const message = errors.map((e) => `${e.statusCode ?? 'ERROR'}: ${e.message ?? ''}${e.fields?.length ? ` (${e.fields.join(', ')})` : ''}`).join('; ').slice(0, 500) || 'Salesforce did not create the user and gave no reason.';
    return { kind: 'failed', retryable: errors.some((e) => TRANSIENT_CODES.has(e.statusCode ?? '')), message };
  };

  return {
    capabilities: async () => ({
      batchSize: SALESFORCE_BATCH,
      undo: 'deactivate',
      lifecycle: SALESFORCE_LIFECYCLE,
      // POST /sobjects/User/{id}/password sets a password with no "change at next login"; only
      // Salesforce's own reset (DELETE) expires it, with a password Salesforce makes and e-mails.
      mustChangePassword: {
        supported: false,
        reason: "Salesforce's API sets a password without a way to require a change at first sign-in (only Salesforce's own reset does, with a password it makes itself).",
      },
    }),

    async find({ username }) {
      const found = await lookup(salesforceUsername(username, settings));
      return found && !('kind' in found) ? externalOf(found) : found;
    },

    /** The dry run's second lookup: a User of this org with the person's e-mail under another name. */
    async findByEmail(email) {
      const found = await lookup(email, 'Email');
      return found && !('kind' in found) ? externalOf(found) : found;
    },

    async create(people) {
      const results: ProvisioningOutcome[] = [];
      for (let i = 0; i < people.length; i += SALESFORCE_BATCH) {
        const group = people.slice(i, i + SALESFORCE_BATCH);
        const answer = await client.call({ method: 'POST', path: `${base}/composite/sobjects`, body: { allOrNone: false, records: group.map(userOf) } });
        if (isCallFailure(answer)) {
          results.push(...group.map(() => answer));
          continue;
        }
        if (answer.status < 200 || answer.status >= 300) {
          const failure = salesforceFailure(answer);
          results.push(...group.map(() => failure));
          continue;
        }
        // SaveResults come back in the order of the records (documented), one per record.
        const saves = Array.isArray(answer.json) ? (answer.json as SaveResult[]) : [];
        // One password call per created User: a few at a time, not 200 at once.
        results.push(...(await mapBounded(group, SALESFORCE_PASSWORD_CONCURRENCY, (person, j) => outcomeOf(person, saves[j]))));
      }
      return results;
    },

    async undo(externalId): Promise<UndoOutcome> {
      const answer = await client.call({ method: 'PATCH', path: `${base}/sobjects/User/${encodeURIComponent(externalId)}`, body: { IsActive: false } });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'undone', action: 'deactivated' };
      return salesforceFailure(answer);
    },

    /** Reset Passwords: the same sObject User Password call as after a creation (204). */
    async setPassword(externalId, person): Promise<SetPasswordOutcome> {
      const answer = await client.call({ method: 'POST', path: `${base}/sobjects/User/${encodeURIComponent(externalId)}/password`, body: { NewPassword: person.password } });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'updated' };
      return salesforceFailure(answer);
    },

    async findById(externalId) {
      const answer = await client.call({ method: 'GET', path: `${userPath(externalId)}?fields=Id,Username,Email,IsActive,FirstName,LastName` });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return undefined;
      if (answer.status < 200 || answer.status >= 300) return salesforceFailure(answer);
      const user = answer.json as UserRecord | undefined;
      return typeof user?.Id === 'string' ? externalOf(user) : { kind: 'failed', retryable: false, message: `HTTP ${answer.status} without a Salesforce User in the answer.` };
    },

    /**
     * FirstName, LastName, Email and, regenerated, Username (at the integration's domain). Salesforce
     * applies a new Email only once its owner confirms the message it sends there; a Username held
     * in any Salesforce org is refused (DUPLICATE_USERNAME).
     */
    async update(externalId, changes): Promise<UpdateOutcome> {
      const username = changes.username !== undefined ? salesforceUsername(changes.username, settings) : undefined;
      const cleared = Object.fromEntries((changes.clearedPlatformAttributes ?? []).map((name) => [name, null]));
      const answer = await patchUser(externalId, { ...cleared, ...changes.platformAttributes, FirstName: changes.firstName, LastName: changes.lastName, Email: changes.email, ...(username ? { Username: username } : {}) });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone', detail: 'Salesforce has no such user.' };
      if (answer.status >= 200 && answer.status < 300) {
        return { kind: 'done', detail: `Updated in Salesforce${username ? `, as ${username}` : ''}; a new e-mail takes effect once its owner confirms Salesforce's message.` };
      }
      if (errorCodesOf(answer).includes('DUPLICATE_USERNAME')) {
        return { kind: 'conflict', message: `The user name "${username ?? ''}" is already taken in Salesforce (user names are unique across all of Salesforce). ${platformMessage(answer)}` };
      }
      return salesforceFailure(answer);
    },

    async setActive(externalId, active): Promise<SetActiveOutcome> {
      if (!active) {
        const outcome = await deactivate(externalId);
        return outcome.kind === 'done' ? { kind: 'done', detail: outcome.detail, ...(outcome.alreadyGone ? { alreadyGone: true } : {}) } : outcome;
      }
      const answer = await patchUser(externalId, { IsActive: true });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone', detail: 'Salesforce has no such user: there is nothing to reactivate.' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'done', detail: 'Active again in Salesforce (IsActive true).' };
      return salesforceFailure(answer);
    },

    /** Salesforce cannot delete a User: Delete deactivates it there, and says so. */
    async remove(externalId): Promise<RemoveOutcome> {
      const outcome = await deactivate(externalId);
      if (outcome.kind !== 'done') return outcome;
      return { ...outcome, detail: outcome.alreadyGone ? outcome.detail : "Deactivated in Salesforce (IsActive false): Salesforce keeps users, it cannot delete them." };
    },

    groups: salesforceGroups(client, base),

    close: () => client.close(),
  };
}
