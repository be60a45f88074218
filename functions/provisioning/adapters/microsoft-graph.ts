import { GRAPH_LIFECYCLE } from '../../../shared/schemas/lifecycle';
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
import { failureOf, isCallFailure, lifecycleAnswer, type CallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';
import { microsoftGraphGroups } from './microsoft-graph-groups';
import { graphValue, graphValueProblem } from '../../../shared/schemas/attribute-mapping';

/** What a lifecycle call says of an account Microsoft Entra ID no longer has. */
const gone = goneFrom('Microsoft Entra ID');

/**
 * Microsoft Entra ID through Microsoft Graph (the `active_directory` platform with an http(s)
 * base URL such as https://graph.microsoft.com/v1.0): POST /users, grouped in JSON $batch
 * requests of up to 20, each sub-request's status read on its own.
 */

/** Requests one JSON $batch may hold (Graph's documented limit). */
export const GRAPH_BATCH_MAX = 20;

export interface GraphSettings {
  /** The tenant's verified domain: userPrincipalName = username@domain. */
  domain: string;
  /** Undo by PATCH accountEnabled=false (deactivate, the default) or DELETE. */
  undo?: 'deactivate' | 'delete';
}

interface GraphUser {
  id?: unknown;
  userPrincipalName?: unknown;
  mail?: unknown;
  otherMails?: unknown;
  accountEnabled?: unknown;
  givenName?: unknown;
  surname?: unknown;
}

export const userPrincipalNameOf = (person: Pick<ProvisioningPerson, 'username'>, settings: GraphSettings) => `${person.username}@${settings.domain}`;

/** mailNickname may not hold spaces or @ ( ) \ [ ] " ; : < > , and is at most 64 characters. */
const mailNicknameOf = (username: string) => username.replace(/[\s@()\\[\]";:<>,]/g, '').slice(0, 64) || 'user';

/**
 * passwordProfile.forceChangePasswordNextSignIn follows the user's Require password change
 * setting: on, Entra ID asks for a new password at the first sign-in.
 */
/** Mapped values as Graph properties (graphValue: businessPhones a one-number list, employeeHireDate a DateTimeOffset...). */
const graphProperties = (values: Readonly<Record<string, string>> = {}) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, graphValue(name, value)]));

/**
 * A mapped value Graph would refuse (400 for the whole user: an employeeId over 16 characters, a
 * hire date that is not a date...): the person's or change's failure, not retried, sent nowhere.
 */
const refusedValue = (values: Readonly<Record<string, string>> = {}): CallFailure | undefined => {
  for (const [name, value] of Object.entries(values)) {
    const problem = graphValueProblem(name, value);
    if (problem) return { kind: 'failed', retryable: false, message: `Not sent to Microsoft Entra ID: ${problem} Correct the account's value (or the integration's attribute mapping) and try again.` };
  }
  return undefined;
};

export const graphUser = (person: ProvisioningPerson, settings: GraphSettings, policy: AccountPolicy = {}) => ({
  ...graphProperties(person.platformAttributes),
  accountEnabled: true,
  displayName: `${person.firstName} ${person.lastName}`.trim() || person.username,
  mailNickname: mailNicknameOf(person.username),
  userPrincipalName: userPrincipalNameOf(person, settings),
  mail: person.email,
  givenName: person.firstName,
  surname: person.lastName,
  passwordProfile: { password: person.password, forceChangePasswordNextSignIn: policy.requirePasswordChange === true },
});

const externalOf = (user: GraphUser | undefined): ExternalAccount | undefined => {
  if (!user || typeof user.id !== 'string') return undefined;
  const others = Array.isArray(user.otherMails) ? user.otherMails : [];
  return {
    externalId: user.id,
    userName: typeof user.userPrincipalName === 'string' ? user.userPrincipalName : '',
    emails: [user.mail, ...others].filter((e): e is string => typeof e === 'string' && e !== '').map((e) => e.toLowerCase()),
    ...(typeof user.accountEnabled === 'boolean' ? { active: user.accountEnabled } : {}),
  };
};

/**
 * An Edit as PATCH /users/{id}: givenName, surname, displayName and mail; with a regenerated
 * username, the userPrincipalName (username@domain) and the mailNickname made from it.
 */
export const graphChanges = (changes: AccountChanges, settings: GraphSettings) => ({
  // Cleared properties null (businessPhones an empty list), mapped ones set.
  ...Object.fromEntries((changes.clearedPlatformAttributes ?? []).map((name) => [name, name === 'businessPhones' ? [] : null])),
  ...graphProperties(changes.platformAttributes),
  givenName: changes.firstName,
  surname: changes.lastName,
  displayName: `${changes.firstName} ${changes.lastName}`.trim() || changes.username || changes.email,
  mail: changes.email,
  ...(changes.username !== undefined ? { userPrincipalName: userPrincipalNameOf({ username: changes.username }, settings), mailNickname: mailNicknameOf(changes.username) } : {}),
});

/** A value Graph keeps unique is taken (userPrincipalName, or mail through proxyAddresses): 400 with ObjectConflict. */
const isConflict = (status: number, json: unknown): boolean => {
  if (status !== 400) return false;
  const error = (json as { error?: { message?: unknown; details?: { code?: unknown }[] } } | undefined)?.error;
  if (typeof error?.message === 'string' && /another object with the same value for property/i.test(error.message)) return true;
  return Array.isArray(error?.details) && error.details.some((d) => d?.code === 'ObjectConflict');
};

/**
 * Graph's answer to a userPrincipalName it already holds: 400 "Another object with the same value
 * for property userPrincipalName already exists." (details: ObjectConflict on userPrincipalName).
 */
const isNameTaken = (status: number, json: unknown): boolean => {
  if (status !== 400) return false;
  const error = (json as { error?: { message?: unknown; details?: { code?: unknown; target?: unknown }[] } } | undefined)?.error;
  if (typeof error?.message === 'string' && /same value for property userPrincipalName already exists/i.test(error.message)) return true;
  return Array.isArray(error?.details) && error.details.some((d) => d?.code === 'ObjectConflict' && d?.target === 'userPrincipalName');
};

/** An OData string literal: single quotes, a quote inside doubled. */
const odataString = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Header names in a $batch sub-response are as Graph writes them (Retry-After): read them lower-cased. */
const lowerCased = (headers: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(headers && typeof headers === 'object' ? (headers as Record<string, unknown>) : {}).map(([name, value]) => [name.toLowerCase(), String(value)]));

export function microsoftGraphAdapter(client: PlatformClient, settings: GraphSettings, policy: AccountPolicy = {}): ProvisioningAdapter {
  const undoSetting = settings.undo ?? 'deactivate';

  const find: ProvisioningAdapter['find'] = async (person) => {
    const upn = userPrincipalNameOf(person, settings);
    const filter = encodeURIComponent(`userPrincipalName eq ${odataString(upn)}`);
    const answer = await client.call({ method: 'GET', path: `/users?$filter=${filter}&$select=id,userPrincipalName,mail,otherMails,accountEnabled` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
    const users = (answer.json as { value?: GraphUser[] } | undefined)?.value ?? [];
    const wanted = upn.toLowerCase();
    return users.map(externalOf).find((u) => u && u.userName.toLowerCase() === wanted);
  };

  /** A name Graph already holds: ours when its mail is this person's, someone else's otherwise. */
  const resolveExisting = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const existing = await find(person);
    if (existing && 'kind' in existing) return existing;
    const upn = userPrincipalNameOf(person, settings);
    // Directory writes reach every replica within seconds: a name just refused may not be readable yet.
    if (!existing) return { kind: 'failed', retryable: true, message: `Microsoft Graph says "${upn}" exists but did not find it (directory writes take seconds to reach every replica).` };
    if (existing.emails.includes(person.email.toLowerCase())) return { kind: 'linked', externalId: existing.externalId };
    return { kind: 'conflict', message: `The user principal name "${upn}" is already taken in Microsoft Entra ID by another person (${existing.emails[0] ?? 'no e-mail'}).` };
  };

  /** One created user's answer (a POST's or a $batch sub-response's) as an outcome. */
  const outcomeOf = async (person: ProvisioningPerson, answer: PlatformAnswer): Promise<ProvisioningOutcome> => {
    if (answer.status >= 200 && answer.status < 300) {
      const created = externalOf(answer.json as GraphUser);
      if (created) return { kind: 'created', externalId: created.externalId };
      const found = await find(person);
      if (found && !('kind' in found)) return { kind: 'created', externalId: found.externalId };
      return { kind: 'failed', retryable: true, message: `HTTP ${answer.status} without the created user, and no user of that name found.` };
    }
    if (isNameTaken(answer.status, answer.json)) return resolveExisting(person);
    return failureOf(answer);
  };

  const createOne = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const answer = await client.call({ method: 'POST', path: '/users', body: graphUser(person, settings, policy) });
    if (isCallFailure(answer)) return answer;
    return outcomeOf(person, answer);
  };

  /**
   * One JSON $batch: every sub-request's own status. A sub-request Graph throttled (429) is that
   * person's retryable failure with its own Retry-After: the use case sends it again alone.
   */
  const createBatch = async (people: readonly ProvisioningPerson[]): Promise<ProvisioningOutcome[]> => {
    const body = {
      requests: people.map((person, i) => ({ id: String(i + 1), method: 'POST', url: '/users', headers: { 'Content-Type': 'application/json' }, body: graphUser(person, settings, policy) })),
    };
    const answer = await client.call({ method: 'POST', path: '/$batch', body });
    if (isCallFailure(answer)) return people.map(() => answer);
    if (answer.status < 200 || answer.status >= 300) {
      const failure = failureOf(answer);
      return people.map(() => failure);
    }
    const responses = (answer.json as { responses?: { id?: unknown; status?: unknown; headers?: unknown; body?: unknown }[] } | undefined)?.responses ?? [];
    // Graph answers in any order: match by id.
    const byId = new Map(responses.map((r) => [String(r.id), r]));
    return Promise.all(
      people.map((person, i) => {
        const sub = byId.get(String(i + 1));
        if (!sub || typeof sub.status !== 'number') {
          return { kind: 'failed', retryable: true, message: 'Microsoft Graph did not answer for this person in its $batch response.' } as CallFailure;
        }
        return outcomeOf(person, { status: sub.status, headers: lowerCased(sub.headers), text: '', json: sub.body });
      }),
    );
  };

  const userPath = (externalId: string) => `/users/${encodeURIComponent(externalId)}`;

  return {
    capabilities: async () => ({
      batchSize: GRAPH_BATCH_MAX,
      undo: undoSetting,
      lifecycle: GRAPH_LIFECYCLE,
      mustChangePassword: { supported: true, how: 'Entra ID asks for a new password at the first sign-in (passwordProfile.forceChangePasswordNextSignIn).' },
    }),

    find,

    async create(people) {
      // A person with a value Graph would refuse fails alone, before any call; the others are sent.
      const outcomes: (ProvisioningOutcome | undefined)[] = people.map((person) => refusedValue(person.platformAttributes));
      const sendable = people.filter((_, i) => !outcomes[i]);
      const groups: ProvisioningPerson[][] = [];
      for (let i = 0; i < sendable.length; i += GRAPH_BATCH_MAX) groups.push(sendable.slice(i, i + GRAPH_BATCH_MAX));
      const sent = (await Promise.all(groups.map((group) => (group.length === 1 ? Promise.all(group.map(createOne)) : createBatch(group))))).flat();
      return outcomes.map((refused) => refused ?? sent.shift()!);
    },

    async undo(externalId): Promise<UndoOutcome> {
      const path = `/users/${encodeURIComponent(externalId)}`;
      const answer = undoSetting === 'delete' ? await client.call({ method: 'DELETE', path }) : await client.call({ method: 'PATCH', path, body: { accountEnabled: false } });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'undone', action: undoSetting === 'delete' ? 'deleted' : 'deactivated' };
      return failureOf(answer);
    },

    /** PATCH /users/{id} with a new passwordProfile (an administrator's reset; the must-change flag as the setting says). */
    async setPassword(externalId, person): Promise<SetPasswordOutcome> {
      const answer = await client.call({
        method: 'PATCH',
        path: `/users/${encodeURIComponent(externalId)}`,
        body: { passwordProfile: { password: person.password, forceChangePasswordNextSignIn: policy.requirePasswordChange === true } },
      });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'updated' };
      return failureOf(answer);
    },

    async findById(externalId) {
      const answer = await client.call({ method: 'GET', path: `${userPath(externalId)}?$select=id,userPrincipalName,mail,otherMails,accountEnabled,givenName,surname` });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return undefined;
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      const user = answer.json as GraphUser | undefined;
      const account = externalOf(user);
      if (!account) return { kind: 'failed', retryable: false, message: `HTTP ${answer.status} without a Microsoft Graph user in the answer.` };
      return {
        ...account,
        ...(typeof user?.givenName === 'string' ? { firstName: user.givenName } : {}),
        ...(typeof user?.surname === 'string' ? { lastName: user.surname } : {}),
      };
    },

    /** PATCH /users/{id}: 204 No Content when Graph took the changes. */
    async update(externalId, changes): Promise<UpdateOutcome> {
      const refused = refusedValue(changes.platformAttributes);
      if (refused) return refused;
      const body = graphChanges(changes, settings);
      const answer = await client.call({ method: 'PATCH', path: userPath(externalId), body });
      return lifecycleAnswer<UpdateOutcome>(answer, {
        gone: gone.update,
        done: { kind: 'done', detail: body.userPrincipalName ? `Updated in Microsoft Entra ID, as ${body.userPrincipalName}.` : 'Updated in Microsoft Entra ID.' },
        conflict: (refused) => (isConflict(refused.status, refused.json) ? { kind: 'conflict', message: `Microsoft Entra ID refused the change: a value it keeps unique is taken. ${failureOf(refused).message}` } : undefined),
      });
    },

    /** PATCH accountEnabled: false blocks sign-in, true allows it again. */
    async setActive(externalId, active): Promise<SetActiveOutcome> {
      const answer = await client.call({ method: 'PATCH', path: userPath(externalId), body: { accountEnabled: active } });
      return lifecycleAnswer<SetActiveOutcome>(answer, { gone: gone.setActive(active), done: { kind: 'done', detail: active ? 'Sign-in allowed again in Microsoft Entra ID.' : 'Sign-in blocked in Microsoft Entra ID (accountEnabled false).' } });
    },

    /** DELETE /users/{id}: Entra ID keeps the user in its deleted items for 30 days. */
    async remove(externalId): Promise<RemoveOutcome> {
      const answer = await client.call({ method: 'DELETE', path: userPath(externalId) });
      return lifecycleAnswer<RemoveOutcome>(answer, { gone: gone.remove, done: { kind: 'done', action: 'deleted', detail: 'Deleted in Microsoft Entra ID (restorable there for 30 days).' } });
    },

    groups: microsoftGraphGroups(client),

    close: () => client.close(),
  };
}
