import { SCIM_LIFECYCLE, SCIM_NO_PATCH } from '../../../shared/schemas/lifecycle';
import type {
  AccountChanges,
  ExternalAccount,
  LifecycleSupport,
  MustChangeSupport,
  ProvisioningAdapter,
  ProvisioningCapabilities,
  ProvisioningOutcome,
  ProvisioningPerson,
  RemoveOutcome,
  SetActiveOutcome,
  SetPasswordOutcome,
  UndoOutcome,
  UpdateOutcome,
} from '../provisioning-port';
import { goneFrom } from '../provisioning-port';
import { scimGroups } from './scim-groups';
import { SCIM_ENTERPRISE_USER } from '../../../shared/schemas/attribute-mapping';
import { failureOf, isCallFailure, lifecycleAnswer, platformMessage, type CallFailure, type PlatformAnswer, type PlatformClient } from '../platform-client';

/** What a lifecycle call says of an account The SCIM provider no longer has. */
const gone = goneFrom('The SCIM provider');

/**
 * SCIM 2.0 (RFC 7643 schema, RFC 7644 protocol): the `custom` platform and any SCIM service
 * provider. Reads /ServiceProviderConfig once; creates with /Bulk when the provider supports it
 * (operations within its maxOperations and maxPayloadSize), with single POST /Users otherwise.
 */
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const BULK_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SCIM_JSON = 'application/scim+json';

/** Operations per /Bulk request at most, whatever the provider allows: one request's answer stays small. */
export const SCIM_BULK_MAX = 100;

export interface ScimSettings {
  /** Undo by PATCH active=false (deactivate, the default) or DELETE. */
  undo?: 'deactivate' | 'delete';
}

const userPath = (externalId: string) => `/Users/${encodeURIComponent(externalId)}`;

/** A filter value in double quotes (RFC 7644 3.4.2.2: a JSON string). */
const quoted = (value: string) => JSON.stringify(value);

/**
 * Mapped values as SCIM places them (shared/schemas/attribute-mapping.ts): core singular
 * attributes by name, `phoneNumbers.<type>` as phoneNumbers entries of that type, and
 * `enterprise.<name>` in the enterprise extension (RFC 7643 4.3; its manager as `{ value }`).
 */
export function scimAttributeParts(values: Readonly<Record<string, string>> = {}) {
  const core: Record<string, string> = {};
  const phoneNumbers: { value: string; type: string }[] = [];
  const enterprise: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if (name.startsWith('enterprise.')) {
      const field = name.slice('enterprise.'.length);
      enterprise[field] = field === 'manager' ? { value } : value;
    } else if (name.startsWith('phoneNumbers.')) phoneNumbers.push({ value, type: name.slice('phoneNumbers.'.length) });
    else core[name] = value;
  }
  return { core, phoneNumbers, enterprise };
}

export const scimUser = (person: ProvisioningPerson) => {
  const { core, phoneNumbers, enterprise } = scimAttributeParts(person.platformAttributes);
  const extended = Object.keys(enterprise).length > 0;
  return {
    schemas: extended ? [USER_SCHEMA, SCIM_ENTERPRISE_USER] : [USER_SCHEMA],
    userName: person.username,
    name: { givenName: person.firstName, familyName: person.lastName, formatted: `${person.firstName} ${person.lastName}` },
    displayName: `${person.firstName} ${person.lastName}`,
    emails: [{ value: person.email, type: 'work', primary: true }],
    ...core,
    ...(phoneNumbers.length ? { phoneNumbers } : {}),
    ...(extended ? { [SCIM_ENTERPRISE_USER]: enterprise } : {}),
    active: true,
    password: person.password,
  };
};

const externalOf = (resource: unknown): ExternalAccount | undefined => {
  const r = resource as { id?: unknown; userName?: unknown; emails?: { value?: unknown }[]; active?: unknown; name?: { givenName?: unknown; familyName?: unknown } } | undefined;
  if (!r || typeof r.id !== 'string') return undefined;
  return {
    externalId: r.id,
    userName: typeof r.userName === 'string' ? r.userName : '',
    emails: Array.isArray(r.emails) ? r.emails.map((e) => String(e?.value ?? '').toLowerCase()).filter(Boolean) : [],
    ...(typeof r.active === 'boolean' ? { active: r.active } : {}),
    ...(typeof r.name?.givenName === 'string' ? { firstName: r.name.givenName } : {}),
    ...(typeof r.name?.familyName === 'string' ? { lastName: r.name.familyName } : {}),
  };
};

/**
 * An Edit as RFC 7644 3.5.2 replace operations, each with its path: the name parts, the display
 * name, the e-mail (the `emails` attribute replaced by the one work address, as created) and, when
 * regenerated, the userName.
 */
export const scimChanges = (changes: AccountChanges) => ({
  schemas: [PATCH_OP],
  Operations: [
    { op: 'replace', path: 'name.givenName', value: changes.firstName },
    { op: 'replace', path: 'name.familyName', value: changes.lastName },
    { op: 'replace', path: 'name.formatted', value: `${changes.firstName} ${changes.lastName}`.trim() },
    { op: 'replace', path: 'displayName', value: `${changes.firstName} ${changes.lastName}`.trim() },
    { op: 'replace', path: 'emails', value: [{ value: changes.email, type: 'work', primary: true }] },
    ...(changes.username !== undefined ? [{ op: 'replace', path: 'userName', value: changes.username }] : []),
    ...scimAttributeOperations(changes),
  ],
});

/**
 * The mapped extra columns as PATCH operations: replace each value (the enterprise extension's by
 * its URN-qualified path), remove the cleared ones; phone numbers as the whole list of the mapped
 * types the account has (removed when none is left).
 */
function scimAttributeOperations(changes: AccountChanges): Record<string, unknown>[] {
  const { core, phoneNumbers, enterprise } = scimAttributeParts(changes.platformAttributes);
  const cleared = changes.clearedPlatformAttributes ?? [];
  const operations: Record<string, unknown>[] = [];
  for (const [name, value] of Object.entries(core)) operations.push({ op: 'replace', path: name, value });
  for (const [name, value] of Object.entries(enterprise)) operations.push({ op: 'replace', path: `${SCIM_ENTERPRISE_USER}:${name}`, value });
  const phonesTouched = phoneNumbers.length > 0 || cleared.some((name) => name.startsWith('phoneNumbers.'));
  if (phonesTouched) operations.push(phoneNumbers.length ? { op: 'replace', path: 'phoneNumbers', value: phoneNumbers } : { op: 'remove', path: 'phoneNumbers' });
  for (const name of cleared) {
    if (name.startsWith('phoneNumbers.')) continue;
    operations.push({ op: 'remove', path: name.startsWith('enterprise.') ? `${SCIM_ENTERPRISE_USER}:${name.slice('enterprise.'.length)}` : name });
  }
  return operations;
}

/** SCIM's own error shape inside a bulk operation's `response` (status as a string there). */
const scimTypeOf = (json: unknown): string | undefined => {
  const value = (json as { scimType?: unknown } | undefined)?.scimType;
  return typeof value === 'string' ? value : undefined;
};

/**
 * RFC 7643 defines no "must change the password at first sign-in" attribute, and a provider's
 * ServiceProviderConfig has no way to advertise one: the flag is never sent to a SCIM provider.
 */
export const SCIM_MUST_CHANGE: MustChangeSupport = {
  supported: false,
  reason: 'SCIM 2.0 has no standard way to require a password change at first sign-in, so the platform was not asked to.',
};

export function scimAdapter(client: PlatformClient, settings: ScimSettings = {}): ProvisioningAdapter {
  let capabilities: Promise<ProvisioningCapabilities & { maxPayloadSize: number; changePassword: boolean; patch: boolean }> | undefined;

  const find: ProvisioningAdapter['find'] = async ({ username }) => {
    const answer = await client.call({ method: 'GET', path: `/Users?filter=${encodeURIComponent(`userName eq ${quoted(username)}`)}&count=2` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
    const resources = (answer.json as { Resources?: unknown[] } | undefined)?.Resources ?? [];
    const wanted = username.toLowerCase();
    // userName is case-insensitive (RFC 7643 4.1.1): the provider's filter already is; check anyway.
    return resources.map(externalOf).find((r) => r && r.userName.toLowerCase() === wanted);
  };

  const findByEmail: NonNullable<ProvisioningAdapter['findByEmail']> = async (email) => {
    const answer = await client.call({ method: 'GET', path: `/Users?filter=${encodeURIComponent(`emails.value eq ${quoted(email)}`)}&count=2` });
    if (isCallFailure(answer)) return answer;
    if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
    const wanted = email.toLowerCase();
    return ((answer.json as { Resources?: unknown[] } | undefined)?.Resources ?? []).map(externalOf).find((r) => r?.emails.includes(wanted));
  };

  /**
   * A 409 uniqueness (RFC 7644 3.12) says some unique value is taken, not which. A user with this
   * name: ours when the e-mail is this person's, someone else's otherwise. No user with this name:
   * another value the provider keeps unique is taken (most often the e-mail: better-auth, for one,
   * answers "A Better Auth User already uses this email"): a conflict in the platform's own words,
   * final, since sending the same person again meets the same refusal.
   */
  const resolveExisting = async (person: ProvisioningPerson, refusal: string): Promise<ProvisioningOutcome> => {
    const existing = await find(person);
    if (existing && 'kind' in existing) return existing;
    if (existing) {
      if (existing.emails.includes(person.email.toLowerCase())) return { kind: 'linked', externalId: existing.externalId };
      return { kind: 'conflict', message: `The user name "${person.username}" is already taken on the platform by another person (${existing.emails[0] ?? 'no e-mail'}).` };
    }
    const holder = await findByEmail(person.email);
    if (holder && !('kind' in holder)) {
      return { kind: 'conflict', message: `The e-mail address ${person.email} is already used on the platform by another user ("${holder.userName}"), so "${person.username}" was not created. The platform says: ${refusal}` };
    }
    return { kind: 'conflict', message: `The platform refused "${person.username}" as a duplicate, but holds no user of that name: another of this person's values is already taken there. The platform says: ${refusal}` };
  };

  /** One created resource's answer (a POST's, or a bulk operation's) as an outcome. */
  const outcomeOf = async (person: ProvisioningPerson, status: number, json: unknown, answer?: PlatformAnswer): Promise<ProvisioningOutcome> => {
    if (status === 201 || status === 200) {
      const created = externalOf(json);
      if (created) return { kind: 'created', externalId: created.externalId };
      // A provider that answers 201 without the resource: find it by name.
      const found = await find(person);
      if (found && !('kind' in found)) return { kind: 'created', externalId: found.externalId };
      return { kind: 'failed', retryable: true, message: `HTTP ${status} without the created user, and no user of that name found.` };
    }
    if (status === 409 || scimTypeOf(json) === 'uniqueness') return resolveExisting(person, platformMessage({ status, json, text: answer?.text ?? '' }));
    return failureOf(answer ?? { status, headers: {}, text: '', json });
  };

  const createOne = async (person: ProvisioningPerson): Promise<ProvisioningOutcome> => {
    const answer = await client.call({ method: 'POST', path: '/Users', body: scimUser(person), contentType: SCIM_JSON });
    if (isCallFailure(answer)) return answer;
    return outcomeOf(person, answer.status, answer.json, answer);
  };

  /** A /Bulk request for these people: each operation's status read on its own (RFC 7644 3.7). */
  const createBulk = async (people: readonly ProvisioningPerson[]): Promise<ProvisioningOutcome[]> => {
    const bulkIds = people.map((_, i) => `op${i}`);
    const body = {
      schemas: [BULK_REQUEST],
      // Every operation runs whatever the others do: one person's failure is that person's.
      Operations: people.map((person, i) => ({ method: 'POST', path: '/Users', bulkId: bulkIds[i], data: scimUser(person) })),
    };
    const answer = await client.call({ method: 'POST', path: '/Bulk', body, contentType: SCIM_JSON });
    if (isCallFailure(answer)) return people.map(() => answer);
    if (answer.status === 413) return Promise.all(people.map(createOne));
    if (answer.status < 200 || answer.status >= 300) {
      const failure = failureOf(answer);
      return people.map(() => failure);
    }
    const operations = (answer.json as { Operations?: { bulkId?: string; status?: unknown; location?: string; response?: unknown }[] } | undefined)?.Operations ?? [];
    const byBulkId = new Map(operations.map((op) => [op.bulkId, op]));
    return Promise.all(
      people.map(async (person, i) => {
        const op = byBulkId.get(bulkIds[i]);
        if (!op) return { kind: 'failed', retryable: true, message: 'The platform did not answer for this person in its bulk response.' } as CallFailure;
        const status = Number(typeof op.status === 'object' && op.status !== null ? (op.status as { code?: unknown }).code : op.status);
        if (status === 201 || status === 200) {
          const id = externalOf(op.response)?.externalId ?? op.location?.split('/').pop();
          if (id) return { kind: 'created', externalId: decodeURIComponent(id) } as ProvisioningOutcome;
        }
        return outcomeOf(person, status, op.response, { status, headers: {}, text: '', json: op.response });
      }),
    );
  };

  const config = () =>
    (capabilities ??= (async () => {
        const answer = await client.call({ method: 'GET', path: '/ServiceProviderConfig' });
        const undo = settings.undo ?? 'deactivate';
        // Unknown (no config): try the PATCH; the provider's answer says the rest.
        if (isCallFailure(answer) || answer.status < 200 || answer.status >= 300) {
          return { batchSize: 1, undo, maxPayloadSize: 0, mustChangePassword: SCIM_MUST_CHANGE, changePassword: true, patch: true, lifecycle: SCIM_LIFECYCLE };
        }
        const config = answer.json as { bulk?: { supported?: unknown; maxOperations?: unknown; maxPayloadSize?: unknown }; changePassword?: { supported?: unknown }; patch?: { supported?: unknown } } | undefined;
        // RFC 7643 5: patch.supported says whether PATCH is; without it, a user cannot be changed (DELETE still works).
        const patch = config?.patch?.supported !== false;
        const lifecycle: LifecycleSupport = patch
          ? SCIM_LIFECYCLE
          : { ...SCIM_LIFECYCLE, update: { supported: false, reason: SCIM_NO_PATCH }, userName: { supported: false, reason: SCIM_NO_PATCH }, setActive: { supported: false, reason: SCIM_NO_PATCH }, groups: { supported: false, reason: SCIM_NO_PATCH } };
        const bulk = config?.bulk;
        const supported = bulk?.supported === true && Number(bulk.maxOperations) > 1;
        return {
          batchSize: supported ? Math.min(SCIM_BULK_MAX, Number(bulk.maxOperations)) : 1,
          undo,
          maxPayloadSize: supported ? Number(bulk.maxPayloadSize) || 0 : 0,
          mustChangePassword: SCIM_MUST_CHANGE,
          // RFC 7643 5: changePassword.supported says whether the password may be changed by PATCH.
          changePassword: config?.changePassword?.supported !== false,
          patch,
          lifecycle,
        };
      })());

  return {
    capabilities: () => config().then(({ batchSize, undo, mustChangePassword, lifecycle }) => ({ batchSize, undo, mustChangePassword, lifecycle })),

    find,
    findByEmail,

    async create(people) {
      const { batchSize, maxPayloadSize } = await config();
      if (batchSize <= 1 || people.length === 1) return Promise.all(people.map(createOne));
      // Within the provider's maxPayloadSize: a group that would pass it is split.
      const groups: ProvisioningPerson[][] = [];
      let group: ProvisioningPerson[] = [];
      let size = 200;
      for (const person of people) {
        const bytes = Buffer.byteLength(JSON.stringify(scimUser(person))) + 80;
        if (group.length && (group.length >= batchSize || (maxPayloadSize > 0 && size + bytes > maxPayloadSize))) {
          groups.push(group);
          group = [];
          size = 200;
        }
        group.push(person);
        size += bytes;
      }
      if (group.length) groups.push(group);
      return (await Promise.all(groups.map((g) => (g.length === 1 ? Promise.all(g.map(createOne)) : createBulk(g))))).flat();
    },

    async undo(externalId): Promise<UndoOutcome> {
      const path = `/Users/${encodeURIComponent(externalId)}`;
      const answer =
        (settings.undo ?? 'deactivate') === 'delete'
          ? await client.call({ method: 'DELETE', path })
          : await client.call({ method: 'PATCH', path, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }, contentType: SCIM_JSON });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'undone', action: settings.undo === 'delete' ? 'deleted' : 'deactivated' };
      return { ...failureOf(answer), message: platformMessage(answer) };
    },

    /** PATCH replace of the password (RFC 7644 3.5.2), where the provider's changePassword allows it. */
    async setPassword(externalId, person): Promise<SetPasswordOutcome> {
      if (!(await config()).changePassword) {
        return { kind: 'failed', retryable: false, message: 'The SCIM provider does not allow password changes (its ServiceProviderConfig says changePassword is not supported).' };
      }
      const answer = await client.call({
        method: 'PATCH',
        path: `/Users/${encodeURIComponent(externalId)}`,
        body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: person.password }] },
        contentType: SCIM_JSON,
      });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return { kind: 'gone' };
      if (answer.status >= 200 && answer.status < 300) return { kind: 'updated' };
      return failureOf(answer);
    },

    async findById(externalId) {
      const answer = await client.call({ method: 'GET', path: userPath(externalId) });
      if (isCallFailure(answer)) return answer;
      if (answer.status === 404) return undefined;
      if (answer.status < 200 || answer.status >= 300) return failureOf(answer);
      return externalOf(answer.json) ?? { kind: 'failed', retryable: false, message: `HTTP ${answer.status} without a SCIM user in the answer.` };
    },

    async update(externalId, changes): Promise<UpdateOutcome> {
      if (!(await config()).patch) return { kind: 'failed', retryable: false, message: SCIM_NO_PATCH };
      const answer = await client.call({ method: 'PATCH', path: userPath(externalId), body: scimChanges(changes), contentType: SCIM_JSON });
      return lifecycleAnswer<UpdateOutcome>(answer, {
        gone: gone.update,
        done: { kind: 'done', detail: changes.username !== undefined ? 'Updated on the SCIM provider, with the new user name.' : 'Updated on the SCIM provider.' },
        // RFC 7644 3.12: 409 uniqueness, a value the provider keeps unique (userName, or an e-mail) is taken.
        conflict: (refused) =>
          refused.status === 409 || scimTypeOf(refused.json) === 'uniqueness' ? { kind: 'conflict', message: `The SCIM provider refused the change: a value it keeps unique is taken. The platform says: ${platformMessage(refused)}` } : undefined,
      });
    },

    async setActive(externalId, active): Promise<SetActiveOutcome> {
      if (!(await config()).patch) return { kind: 'failed', retryable: false, message: SCIM_NO_PATCH };
      const answer = await client.call({ method: 'PATCH', path: userPath(externalId), body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: active }] }, contentType: SCIM_JSON });
      return lifecycleAnswer<SetActiveOutcome>(answer, { gone: gone.setActive(active), done: { kind: 'done', detail: active ? 'Active again on the SCIM provider.' : 'Inactive on the SCIM provider (active false).' } });
    },

    async remove(externalId): Promise<RemoveOutcome> {
      const answer = await client.call({ method: 'DELETE', path: userPath(externalId) });
      return lifecycleAnswer<RemoveOutcome>(answer, { gone: gone.remove, done: { kind: 'done', action: 'deleted', detail: 'Deleted from the SCIM provider.' } });
    },

    groups: scimGroups(client),

    close: () => client.close(),
  };
}
