import type * as z from 'zod';
import { type attributeMappingPreviewSchema } from '../../shared/schemas/integrations';
import { mappingOf, mappingProblems, mappingTargetOf, mapAttributes, PREVIEW_SECRET, SAMPLE_PERSON, type AttributePreview } from '../../shared/schemas/attribute-mapping';
import { checkAttributes } from '../../shared/schemas/attributes';
import { usernameYear, baseUsername } from '../../shared/generation/username';
import { NotFoundError, ValidationError } from '../core/errors';
import { isIdShaped } from '../../shared/schemas/ids';
import { httpAdapter, withMappedAttributes } from '../provisioning/adapters';
import { ldapEntryOf } from '../provisioning/adapters/ldap';
import type { PlatformClient } from '../provisioning/platform-client';
import type { ProvisioningPerson } from '../provisioning/provisioning-port';
import type { IntegrationRecord } from './integration-record';
import { directoryAccessOf } from '../../shared/schemas/provisioning';

/** A password only the preview uses, replaced by PREVIEW_SECRET wherever the body carries it (any encoding). */
const PLACEHOLDER_PASSWORD = 'Preview-Password-0000';

/**
 * POST /api/integrations/{id}/attribute-preview (Pro, as the integration): the request the
 * integration's adapter would send to create one person (a sample, or the person given) with the
 * mapping given (the form's, not saved yet) or the integration's own, else the platform's default.
 * The adapter builds it against a client that records the call and sends nothing; no credential
 * is read, and the password is shown as PREVIEW_SECRET.
 */
export function attributePreview(deps: { integration: (userId: string, id: string) => Promise<IntegrationRecord | undefined>; now?: () => Date }) {
  return async (userId: string, integrationId: string, input: z.output<typeof attributeMappingPreviewSchema>): Promise<AttributePreview> => {
    const integration = isIdShaped(integrationId) ? await deps.integration(userId, integrationId) : undefined;
    if (!integration) throw new NotFoundError('Integration not found');
    const target = mappingTargetOf(integration);
    if (!target) throw new ValidationError('This platform takes no attributes from columns.');
    const own = input.attributeMapping ?? integration.apiConfig?.provisioning?.attributeMapping;
    const problems = input.attributeMapping ? mappingProblems(target, input.attributeMapping) : [];
    if (problems.length) throw new ValidationError(problems[0]!, problems.map((message) => ({ path: 'attributeMapping', message })));
    const mapping = { ...mappingOf(target, own) };
    const sample = input.person ?? SAMPLE_PERSON;
    const attributes = checkAttributes(sample.attributes ?? {});
    if (attributes.problems.length) throw new ValidationError(attributes.problems[0]!);
    const person: ProvisioningPerson = {
      accountId: 'preview',
      username: baseUsername(sample.firstName, sample.lastName, usernameYear(deps.now?.() ?? new Date())),
      password: PLACEHOLDER_PASSWORD,
      firstName: sample.firstName,
      lastName: sample.lastName,
      email: sample.email,
      attributes: attributes.attributes,
    };
    const mapped = mapAttributes(target, mapping, person.attributes);
    const withMapping: IntegrationRecord = { ...integration, apiConfig: { ...integration.apiConfig, provisioning: { ...integration.apiConfig?.provisioning, attributeMapping: mapping } } };
    return { target, mapping, isDefault: own === undefined, mapped, request: await requestFor(withMapping, person) };
  };
}

const NOT_READY = 'This integration cannot create accounts yet: complete its provisioning settings first.';

const hide = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null).split(PLACEHOLDER_PASSWORD).join(PREVIEW_SECRET)) as unknown;

/** The first call the adapter makes to create the person, recorded and never sent. */
async function requestFor(integration: IntegrationRecord, person: ProvisioningPerson): Promise<AttributePreview['request']> {
  if (integration.platform === 'active_directory' && directoryAccessOf(integration.baseUrl) === 'ldap') {
    const settings = integration.apiConfig?.provisioning?.ldap;
    if (!settings) throw new ValidationError(NOT_READY);
    // ldaps:// assumed: the preview shows the entry, not whether the connection may carry a password.
    const entry = ldapEntryOf({ ...person, platformAttributes: withPlatformAttributes(integration, person) }, settings, true);
    if ('kind' in entry) throw new ValidationError(entry.message);
    const attributes: Record<string, string[]> = {};
    for (const attribute of entry.attributes) {
      // Passwords in any form (userPassword's SSHA, AD's unicodePwd) are never shown.
      attributes[attribute.type] = /password|unicodepwd/i.test(attribute.type) ? [PREVIEW_SECRET] : attribute.values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
    }
    return { operation: 'add', dn: entry.dn, attributes };
  }
  let recorded: { method: string; path: string; body: unknown } | undefined;
  const client: PlatformClient = {
    async call(request) {
      // Reads (a SCIM provider's ServiceProviderConfig, a lookup) find nothing; the first write is the one shown.
      if (request.method === 'GET') return { status: 404, headers: {}, text: '', json: undefined };
      recorded ??= { method: request.method, path: request.path, body: request.body };
      return { kind: 'failed', retryable: false, message: 'preview' };
    },
    close: () => undefined,
  };
  const adapter = withMappedAttributes(integration, httpAdapter(integration, client));
  const [outcome] = await adapter.create([person]);
  // A value the platform would refuse (Graph: an employeeId over 16 characters...): the adapter's words.
  if (!recorded && outcome?.kind === 'failed' && outcome.message !== 'preview') throw new ValidationError(outcome.message);
  if (!recorded) throw new ValidationError(NOT_READY);
  return { method: recorded.method, path: recorded.path, body: hide(recorded.body) };
}

/** The person's mapped values, as the adapter factory gives them to the LDAP adapter. */
function withPlatformAttributes(integration: IntegrationRecord, person: ProvisioningPerson): Record<string, string> {
  const target = mappingTargetOf(integration)!;
  return mapAttributes(target, mappingOf(target, integration.apiConfig?.provisioning?.attributeMapping), person.attributes);
}
