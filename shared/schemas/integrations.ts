import * as z from 'zod/mini';
import './zod-messages';
import { mappingProblems, mappingTargetOf } from './attribute-mapping';

// The platforms, sign-in methods and their credential fields: in the zod-free shared/integration-platforms.ts
// (a function that only names them, as the Security Center's overview, bundles no schema).
import { apiTypes, authFields, authMethodLabels, authMethods, integrationPlatforms, type AuthMethod, type IntegrationPlatform } from '../integration-platforms';
export { apiTypes, authFields, authMethodLabels, authMethods, integrationPlatforms, platformLabels, type AuthMethod, type IntegrationPlatform } from '../integration-platforms';

export const INTEGRATION_NAME_MAX = 100;
export const MAX_INTEGRATIONS_PER_USER = 50;

/** Headers that address or frame the request: never taken from a user. */
const RESERVED_HEADERS = /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|te|trailer|upgrade|expect|accept|user-agent|cookie|proxy-.*)$/i;

const credentialValue = z.string().check(z.trim(), z.maxLength(4096, 'A credential must be at most 4,096 characters'));

const domainName = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/**
 * Salesforce: what a new User needs beside the person (the org's picklist values, the profile),
 * and the domain of its user names (Salesforce user names are e-mail shaped and unique across
 * every Salesforce org). Defaults: UTF-8, en_US, GMT, API version 62.0.
 */
export const salesforceSettingsSchema = z.object({
  usernameDomain: z
    .string('The user name domain must be text')
    .check(
      z.trim(),
      z.toLowerCase(),
      z.refine((value) => domainName.test(value), 'The user name domain must be a domain such as example.com (Salesforce user names look like e-mails: name@domain)'),
    ),
  profileId: z
    .string('The profile id must be text')
    .check(z.trim(), z.regex(/^00e[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'The profile id is a Salesforce Profile record id: 15 or 18 characters starting with 00e (Setup, Profiles, the id in the address)')),
  timeZoneSidKey: z.optional(z.string('The time zone must be text').check(z.trim(), z.regex(/^[A-Za-z0-9_+\-/]{1,40}$/, 'The time zone is a Salesforce TimeZoneSidKey such as Europe/Paris or GMT'))),
  localeSidKey: z.optional(z.string('The locale must be text').check(z.trim(), z.regex(/^[a-z]{2,3}(?:_[A-Za-z0-9]{2,8}){0,3}$/, 'The locale is a Salesforce LocaleSidKey such as en_US'))),
  languageLocaleKey: z.optional(z.string('The language must be text').check(z.trim(), z.regex(/^[a-z]{2,3}(?:_[A-Za-z]{2,4})?$/, 'The language is a Salesforce LanguageLocaleKey such as en_US'))),
  emailEncodingKey: z.optional(z.string('The e-mail encoding must be text').check(z.trim(), z.regex(/^[A-Za-z0-9_-]{1,40}$/, 'The e-mail encoding is a Salesforce EmailEncodingKey such as UTF-8'))),
  apiVersion: z.optional(z.string('The API version must be text').check(z.trim(), z.regex(/^\d{2,3}\.0$/, 'The API version is a REST API version such as 62.0'))),
});
export type SalesforceSettings = z.infer<typeof salesforceSettingsSchema>;

/**
 * Active Directory / LDAP (platform `active_directory` with an ldap:// or ldaps:// base URL, an
 * on-premises directory): where people are added (`baseDn`), which attributes they get
 * (`directory`: inetOrgPerson + userPassword for OpenLDAP and most directories, or Active
 * Directory's user with sAMAccountName, userPrincipalName, unicodePwd, userAccountControl) and,
 * for Active Directory, the userPrincipalName suffix (default: the base DN's dc= parts).
 */
export const ldapDirectories = ['openldap', 'active_directory'] as const;
export const ldapSettingsSchema = z.object({
  baseDn: z
    .string('The base DN must be text')
    .check(
      z.trim(),
      z.minLength(1, 'The base DN is required: where new people are added, e.g. ou=People,dc=example,dc=org'),
      z.maxLength(1024, 'The base DN must be at most 1,024 characters'),
      z.refine((value) => /^[A-Za-z][A-Za-z0-9-]*=(?:[^,\\]|\\.)+(?:,\s*[A-Za-z][A-Za-z0-9-]*=(?:[^,\\]|\\.)+)*$/.test(value), 'The base DN must be a distinguished name such as ou=People,dc=example,dc=org'),
    ),
  directory: z.optional(z.enum(ldapDirectories, 'The directory is openldap (inetOrgPerson) or active_directory')),
  upnSuffix: z.optional(
    z
      .string('The user principal name suffix must be text')
      .check(z.trim(), z.toLowerCase(), z.refine((value) => domainName.test(value), 'The user principal name suffix must be a domain such as corp.example.com')),
  ),
});
export type LdapSettings = z.infer<typeof ldapSettingsSchema>;

/** An ldap:// or ldaps:// URL: an on-premises directory (Active Directory over LDAP, OpenLDAP). */
export const isLdapUrl = (value: string) => /^ldaps?:\/\//i.test(value.trim());

/** What Deactivate does on Okta, per integration: deactivate (the default) or suspend. */
export const oktaDeactivations = ['deactivate', 'suspend'] as const;
export const OKTA_DEACTIVATION_DEFAULT: (typeof oktaDeactivations)[number] = 'deactivate';

/**
 * How accounts are provisioned through an integration: pacing (requests a minute and calls in
 * flight, for all workers together; empty: the platform's documented default) and what undo does.
 */
export const provisioningSettingsSchema = z.object({
  requestsPerMinute: z.optional(
    z
      .number('Requests per minute must be a number')
      .check(z.int('Requests per minute must be a whole number'), z.minimum(1, 'Requests per minute must be at least 1'), z.maximum(100_000, 'Requests per minute must be at most 100,000')),
  ),
  concurrency: z.optional(
    z.number('Concurrent requests must be a number').check(z.int('Concurrent requests must be a whole number'), z.minimum(1, 'Concurrent requests must be at least 1'), z.maximum(100, 'Concurrent requests must be at most 100')),
  ),
  undo: z.optional(z.enum(['deactivate', 'delete'], 'Undo must deactivate or delete')),
  // Okta: the login is the generated username unless the org wants e-mail logins (Okta's
  // default login pattern asks for an e-mail address).
  oktaLogin: z.optional(z.enum(['username', 'email'], 'The Okta login must be the username or the e-mail')),
  // Okta: what Deactivate does there (empty: OKTA_DEACTIVATION_DEFAULT). Deactivate: the user is
  // DEPROVISIONED (app assignments removed) and activated again on Reactivate; suspend: only an
  // ACTIVE user can be suspended (app assignments kept), and unsuspend brings them back.
  oktaDeactivation: z.optional(z.enum(oktaDeactivations, 'Okta deactivation must be deactivate or suspend')),
  // Microsoft Entra ID (Graph): the tenant's verified domain the userPrincipalName ends with
  // (username@domain); Graph refuses a UPN on any other domain.
  entraDomain: z.optional(
    z
      .string('The verified domain must be text')
      .check(
        z.trim(),
        z.toLowerCase(),
        z.maxLength(253, 'The verified domain must be at most 253 characters'),
        z.regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/, 'The verified domain must be a domain name such as contoso.com or contoso.onmicrosoft.com'),
      ),
  ),
  /** Salesforce (platform `salesforce`): the User's profile, picklists and user name domain. */
  salesforce: z.optional(salesforceSettingsSchema),
  /** Active Directory / LDAP (platform `active_directory`, ldap:// or ldaps:// base URL). */
  ldap: z.optional(ldapSettingsSchema),
  /**
   * Extra columns to the platform's attributes: column key (shared/schemas/attributes.ts) ->
   * attribute name (shared/schemas/attribute-mapping.ts). Absent: the platform's default mapping;
   * {}: nothing mapped. Checked against the platform's attributes with the integration.
   */
  attributeMapping: z.optional(
    z.record(z.string().check(z.maxLength(60)), z.string().check(z.trim(), z.maxLength(100))).check(z.refine((mapping) => Object.keys(mapping).length <= 100, 'At most 100 mapped columns')),
  ),
});
export type ProvisioningSettings = z.infer<typeof provisioningSettingsSchema>;

/** POST /api/integrations/{id}/attribute-preview: an unsaved mapping to preview, and the person to show (none: a sample). */
export const attributeMappingPreviewSchema = z.object({
  attributeMapping: provisioningSettingsSchema.shape.attributeMapping,
  person: z.optional(
    z.object({
      firstName: z.string().check(z.trim(), z.minLength(1, 'First name is required'), z.maxLength(100)),
      lastName: z.string().check(z.trim(), z.minLength(1, 'Last name is required'), z.maxLength(100)),
      email: z.string().check(z.trim(), z.maxLength(254), z.email('Valid email is required')),
      attributes: z.optional(z.record(z.string().check(z.maxLength(200)), z.string().check(z.maxLength(1000)))),
    }),
  ),
});

/** The fields of an integration as a user enters them. */
const integrationFields = z.object({
    name: z.string('Name is required').check(z.trim(), z.minLength(1, 'Name is required'), z.maxLength(INTEGRATION_NAME_MAX, `Name must be at most ${INTEGRATION_NAME_MAX} characters`)),
    description: z._default(z.optional(z.string().check(z.trim(), z.maxLength(500, 'Description must be at most 500 characters'))), ''),
    platform: z.enum(integrationPlatforms, 'Choose a platform'),
    apiType: z._default(z.optional(z.enum(apiTypes, 'Choose REST, SOAP or GraphQL')), 'REST'),
    baseUrl: z
      .string('Base URL is required')
      .check(
        z.trim(),
        z.minLength(1, 'Base URL is required'),
        z.maxLength(2048, 'Base URL must be at most 2,048 characters'),
        z.refine((value) => URL.canParse(value) && /^(https?|ldaps?):$/.test(new URL(value).protocol), 'Base URL must be a valid http(s) URL'),
      ),
    authMethod: z.enum(authMethods, 'Choose an authentication method'),
    authConfig: z._default(z.optional(z.record(z.string(), credentialValue)), {}),
    /** Non-secret settings: the path the connection test reads, e.g. '/api/v1/users?limit=1'. Other keys are dropped. */
    apiConfig: z._default(
      z.optional(
        z.object({
          testPath: z.optional(
            z
              .string('The test path must be text')
              .check(
                z.trim(),
                z.maxLength(2048, 'The test path must be at most 2,048 characters'),
                z.refine((value) => !/^[a-z][a-z0-9+.-]*:|^\/\/|[\s\\]/i.test(value), 'The test path is a path on the base URL, e.g. /api/v1/users?limit=1'),
              ),
          ),
          provisioning: z.optional(provisioningSettingsSchema),
        }),
      ),
      {},
    ),
  });

/** An ldap(s):// base URL: Active Directory / LDAP only, the server alone, signed in with a bind DN. */
const checkLdapUrl = (value: { platform: IntegrationPlatform; baseUrl: string; authMethod: AuthMethod }, ctx: z.core.$RefinementCtx) => {
  if (!isLdapUrl(value.baseUrl) || !URL.canParse(value.baseUrl)) return;
  const url = new URL(value.baseUrl);
  if (value.platform !== 'active_directory') {
    ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'ldap:// and ldaps:// URLs are for Active Directory (LDAP) integrations; this platform needs an https URL' });
  } else if ((url.pathname && url.pathname !== '/') || url.search || url.hash || url.username || url.password) {
    ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'An LDAP URL names the server only, e.g. ldaps://dc1.corp.example.com:636 (the base DN is a provisioning setting)' });
  } else if (value.authMethod !== 'basic_auth') {
    ctx.addIssue({ code: 'custom', path: ['authMethod'], message: 'An LDAP directory signs in with Basic Auth: the bind DN as the username and its password' });
  }
};

/** An attribute mapping names only the platform's attributes, each once. */
const checkAttributeMapping = (value: { platform: IntegrationPlatform; baseUrl: string; apiConfig?: { provisioning?: ProvisioningSettings } }, ctx: z.core.$RefinementCtx) => {
  const mapping = value.apiConfig?.provisioning?.attributeMapping;
  if (!mapping) return;
  const target = mappingTargetOf(value);
  if (!target) {
    if (Object.values(mapping).some(Boolean)) ctx.addIssue({ code: 'custom', path: ['apiConfig', 'provisioning', 'attributeMapping'], message: 'This platform takes no attributes from columns' });
    return;
  }
  for (const message of mappingProblems(target, mapping)) ctx.addIssue({ code: 'custom', path: ['apiConfig', 'provisioning', 'attributeMapping'], message });
};

/**
 * The credential checks: required fields (unless `stored` names the fields kept from before),
 * no field of another method, a plain header name.
 */
const checkCredentials =
  (requireAll: boolean) =>
  (value: { platform: IntegrationPlatform; baseUrl: string; authMethod: AuthMethod; authConfig: Record<string, string>; apiConfig?: { provisioning?: ProvisioningSettings } }, ctx: z.core.$RefinementCtx) => {
    checkLdapUrl(value, ctx);
    checkAttributeMapping(value, ctx);
    const fields = authFields[value.authMethod];
    if (requireAll) {
      for (const field of fields) {
        if (field.required && !value.authConfig[field.name]) {
          ctx.addIssue({ code: 'custom', path: ['authConfig', field.name], message: `${field.label} is required` });
        }
      }
    }
    for (const name of Object.keys(value.authConfig)) {
      if (!fields.some((f) => f.name === name)) {
        ctx.addIssue({ code: 'custom', path: ['authConfig', name], message: `${name} is not a field of ${authMethodLabels[value.authMethod]}` });
      }
    }
    const headerName = value.authMethod === 'api_key' ? value.authConfig.headerName : undefined;
    if (headerName && (!/^[A-Za-z0-9-]{1,64}$/.test(headerName) || RESERVED_HEADERS.test(headerName))) {
      ctx.addIssue({ code: 'custom', path: ['authConfig', 'headerName'], message: 'Header name must be a plain header such as X-API-Key or Authorization' });
    }
  };

/** POST /api/integrations (spec 5: name, platform and baseUrl required). */
export const createIntegrationSchema = integrationFields.check(z.superRefine(checkCredentials(true)));
/**
 * PUT /api/integrations/{id}: the same fields. Credentials are write-only: a field left empty keeps
 * the stored value (when the sign-in method is unchanged); the server checks the merged result.
 */
export const updateIntegrationSchema = integrationFields.check(z.superRefine(checkCredentials(false)));
export type UpdateIntegrationInput = z.input<typeof updateIntegrationSchema>;
export type UpdateIntegrationRequest = z.output<typeof updateIntegrationSchema>;
/** Which required credential fields are missing from a (merged) set. */
export const missingCredentials = (authMethod: AuthMethod, authConfig: Record<string, string>) =>
  authFields[authMethod].filter((field) => field.required && !authConfig[field.name]).map((field) => ({ path: `authConfig.${field.name}`, message: `${field.label} is required` }));
export type CreateIntegrationInput = z.input<typeof createIntegrationSchema>;
export type CreateIntegrationRequest = z.output<typeof createIntegrationSchema>;

export const integrationTestStatuses = ['success', 'failed', 'pending'] as const;

/** An integration as the API returns it: credentials never leave the server. */
export interface Integration {
  id: string;
  name: string;
  description: string;
  platform: IntegrationPlatform;
  apiType: (typeof apiTypes)[number];
  baseUrl: string;
  authMethod: AuthMethod;
  /** Names of the credential fields that are stored (their values are never returned). */
  authFieldsSet: string[];
  apiConfig: { testPath?: string; provisioning?: ProvisioningSettings };
  isActive: boolean;
  lastTestDate?: string;
  lastTestStatus: (typeof integrationTestStatuses)[number];
  /** What the last test found, e.g. 'HTTP 401 Unauthorized' or 'Connected (HTTP 200)'. */
  lastTestMessage?: string;
  createdAt: string;
  updatedAt: string;
}

/** GET /api/integration-templates: the quick-setup cards. */
export interface IntegrationTemplate {
  id: string;
  platform: IntegrationPlatform;
  name: string;
  description: string;
  apiType: (typeof apiTypes)[number];
  authMethod: AuthMethod;
  /** An example base URL shown as the field's placeholder. */
  baseUrlExample: string;
  /** The path the connection test reads, relative to the base URL. */
  testPath: string;
  isBuiltIn: true;
  /**
   * A ready integration: the form is filled with these values as they are. Only the local stack's
   * own SCIM directory (a loopback server of `npm start`) has one, with the token of the signed-in
   * user's own tenant there; never on AWS.
   */
  ready?: { baseUrl: string; authConfig: Record<string, string> };
}
