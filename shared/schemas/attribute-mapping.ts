import { attributeLabel, isAttributeKey } from './attributes';

/**
 * Extra columns mapped to a platform's attributes (issue 28 item 5, Pro like provisioning): per
 * integration, `apiConfig.provisioning.attributeMapping` maps a column key (shared/schemas/
 * attributes.ts: department, title, managerEmail, phone, employeeId, costCenter...) to the name
 * of one of the platform's attributes; absent, the platform's default mapping below applies.
 * The adapters (functions/provisioning/adapters/) put each mapped value where their platform
 * wants it in the create and update bodies (docs/provisioning.md, "Extra columns on the platform").
 *
 * Zod-free: the frontend's settings form and the adapters import it.
 */

/** Where the values go: one kind of body per platform (and LDAP's two schemas). */
export const mappingTargets = ['scim', 'okta', 'graph', 'openldap', 'active_directory_ldap', 'salesforce'] as const;
export type MappingTarget = (typeof mappingTargets)[number];

export interface PlatformAttribute {
  /** The name as the platform spells it (SCIM: our short name, placed by the adapter; see below). */
  name: string;
  label: string;
}

/** SCIM enterprise extension (RFC 7643 4.3). */
export const SCIM_ENTERPRISE_USER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/**
 * What Microsoft Graph's user resource documents of the properties offered for mapping
 * (learn.microsoft.com/graph/api/resources/user, v1.0): the most characters each takes, and the
 * shape of those that are not a plain string. `businessPhones` is a string collection that holds
 * one number; `employeeHireDate` a DateTimeOffset (ISO 8601, UTC); `usageLocation` a two-letter
 * country code (ISO 3166). Graph refuses a value out of shape with 400 for the whole user, so
 * the adapter checks them first (graphValueProblem) and sends nothing for such a person. The
 * manager is not a property (PUT /users/{id}/manager/$ref with the manager's id), so it is not
 * offered. Every property here may be set on create (POST /users takes any writable property).
 */
export const graphPropertyRules: Readonly<Record<string, { max?: number; shape?: 'list' | 'dateTime' | 'country' }>> = {
  department: { max: 64 },
  jobTitle: { max: 128 },
  employeeId: { max: 16 },
  employeeType: {},
  employeeHireDate: { shape: 'dateTime' },
  mobilePhone: { max: 64 },
  businessPhones: { shape: 'list' },
  officeLocation: { max: 128 },
  companyName: { max: 64 },
  city: { max: 128 },
  state: { max: 128 },
  country: { max: 128 },
  streetAddress: { max: 1024 },
  postalCode: { max: 40 },
  usageLocation: { shape: 'country' },
  preferredLanguage: {},
};

/**
 * The attributes each platform offers for mapping. SCIM: core `title`, `nickName`, `userType`,
 * `preferredLanguage`, `locale`, `timezone`, `profileUrl`; `phoneNumbers` of type work / mobile;
 * the enterprise extension's `employeeNumber`, `costCenter`, `organization`, `division`,
 * `department` and `manager.value` (the manager's id on the provider). Graph: user properties.
 * Okta, LDAP and Salesforce also take any other (custom) attribute by its name.
 */
export const platformAttributes: Record<MappingTarget, readonly PlatformAttribute[]> = {
  scim: [
    { name: 'title', label: 'title' },
    { name: 'phoneNumbers.work', label: 'phoneNumbers (work)' },
    { name: 'phoneNumbers.mobile', label: 'phoneNumbers (mobile)' },
    { name: 'nickName', label: 'nickName' },
    { name: 'userType', label: 'userType' },
    { name: 'preferredLanguage', label: 'preferredLanguage' },
    { name: 'locale', label: 'locale' },
    { name: 'timezone', label: 'timezone' },
    { name: 'profileUrl', label: 'profileUrl' },
    { name: 'enterprise.department', label: 'enterprise: department' },
    { name: 'enterprise.employeeNumber', label: 'enterprise: employeeNumber' },
    { name: 'enterprise.costCenter', label: 'enterprise: costCenter' },
    { name: 'enterprise.organization', label: 'enterprise: organization' },
    { name: 'enterprise.division', label: 'enterprise: division' },
    { name: 'enterprise.manager', label: 'enterprise: manager.value' },
  ],
  okta: ['department', 'title', 'employeeNumber', 'mobilePhone', 'primaryPhone', 'managerId', 'manager', 'costCenter', 'division', 'organization', 'userType', 'city', 'state', 'countryCode', 'streetAddress', 'zipCode', 'nickName', 'displayName', 'locale', 'timezone', 'preferredLanguage'].map((name) => ({ name, label: name })),
  graph: Object.keys(graphPropertyRules).map((name) => ({ name, label: name })),
  openldap: ['departmentNumber', 'title', 'telephoneNumber', 'mobile', 'employeeNumber', 'employeeType', 'ou', 'o', 'l', 'st', 'street', 'postalCode', 'roomNumber', 'preferredLanguage'].map((name) => ({ name, label: name })),
  active_directory_ldap: ['department', 'title', 'telephoneNumber', 'mobile', 'employeeID', 'employeeNumber', 'employeeType', 'company', 'division', 'physicalDeliveryOfficeName', 'l', 'st', 'streetAddress', 'postalCode'].map((name) => ({ name, label: name })),
  salesforce: ['Department', 'Title', 'Phone', 'MobilePhone', 'EmployeeNumber', 'Division', 'CompanyName', 'Street', 'City', 'State', 'PostalCode', 'Country', 'Extension', 'Fax'].map((name) => ({ name, label: name })),
};

/** Platforms whose attributes are only those listed (no custom attribute can be named). */
const CLOSED: ReadonlySet<MappingTarget> = new Set(['scim', 'graph']);

/**
 * What each platform gets without a mapping of the user's: the well-known columns to the
 * platform's obvious attributes. A manager's e-mail is not an id: it is mapped only on Okta
 * (`managerId`, a free string there); elsewhere the manager is an id or a DN, left to the user.
 */
export const defaultAttributeMapping: Record<MappingTarget, Readonly<Record<string, string>>> = {
  scim: { department: 'enterprise.department', title: 'title', phone: 'phoneNumbers.work', employeeId: 'enterprise.employeeNumber' },
  okta: { department: 'department', title: 'title', phone: 'mobilePhone', employeeId: 'employeeNumber', managerEmail: 'managerId' },
  graph: { department: 'department', title: 'jobTitle', phone: 'mobilePhone', employeeId: 'employeeId' },
  openldap: { department: 'departmentNumber', title: 'title', phone: 'telephoneNumber', employeeId: 'employeeNumber' },
  active_directory_ldap: { department: 'department', title: 'title', phone: 'telephoneNumber', employeeId: 'employeeID' },
  salesforce: { department: 'Department', title: 'Title', phone: 'Phone', employeeId: 'EmployeeNumber' },
};


/** Graph's employeeId holds at most 16 characters. */
export const GRAPH_EMPLOYEE_ID_MAX = graphPropertyRules.employeeId!.max!;

/** A date (2026-03-01) or a date and time with its offset as the DateTimeOffset Graph stores (UTC); undefined: not one. */
function graphDateTime(value: string): string | undefined {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (day) {
    const date = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
    return date.toISOString().startsWith(value.trim()) ? `${value.trim()}T00:00:00Z` : undefined;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value.trim())) return undefined;
  const date = new Date(value.trim());
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.000Z$/, 'Z');
}

/** A mapped value as the JSON Graph takes for the property (the check is graphValueProblem's). */
export function graphValue(name: string, value: string): unknown {
  const shape = graphPropertyRules[name]?.shape;
  if (shape === 'list') return [value];
  if (shape === 'dateTime') return graphDateTime(value) ?? value;
  if (shape === 'country') return value.trim().toUpperCase();
  return value;
}

/** Why Graph would refuse this value of the property, in words; undefined: it takes it. */
export function graphValueProblem(name: string, value: string): string | undefined {
  const rule = graphPropertyRules[name];
  if (!rule) return undefined;
  const shown = `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (rule.max !== undefined && value.length > rule.max) return `${name} ${shown} has ${value.length} characters; Microsoft Entra ID takes at most ${rule.max}.`;
  if (rule.shape === 'dateTime' && graphDateTime(value) === undefined) return `${name} ${shown} is not a date: write it as 2026-03-01 (or a date and time with its offset, such as 2026-03-01T09:00:00+01:00).`;
  if (rule.shape === 'country' && !/^[A-Za-z]{2}$/.test(value.trim())) return `${name} ${shown} is not a two-letter country code (ISO 3166), such as US or GB.`;
  return undefined;
}

/** An attribute name a platform can take: one of its list, or (open platforms) a name its API accepts. */
export function isPlatformAttribute(target: MappingTarget, name: string): boolean {
  if (platformAttributes[target].some((attribute) => attribute.name === name)) return true;
  if (CLOSED.has(target)) return false;
  // Okta custom profile attributes, LDAP attribute types, Salesforce custom fields (Region__c).
  return target === 'openldap' || target === 'active_directory_ldap' ? /^[A-Za-z][A-Za-z0-9-]{0,63}$/.test(name) : /^[A-Za-z][A-Za-z0-9_]{0,79}$/.test(name);
}

/** Mapping problems, in words for the settings form: unknown columns' keys, attributes the platform has not. */
export function mappingProblems(target: MappingTarget, mapping: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const used = new Map<string, string>();
  for (const [column, attribute] of Object.entries(mapping)) {
    if (!isAttributeKey(column)) problems.push(`"${column.slice(0, 60)}" is not a column name (letters and digits)`);
    else if (!attribute) continue;
    else if (!isPlatformAttribute(target, attribute)) problems.push(`${attributeLabel(column)}: "${attribute.slice(0, 80)}" is not an attribute this platform takes`);
    else if (used.has(attribute)) problems.push(`${attributeLabel(column)} and ${attributeLabel(used.get(attribute)!)} both go to ${attribute}: map each attribute once`);
    else used.set(attribute, column);
  }
  return problems;
}

/** Where an integration's values go, from what every integration record has (platform, base URL, LDAP schema). */
export function mappingTargetOf(integration: { platform: string; baseUrl?: string; apiConfig?: { provisioning?: { ldap?: { directory?: string } } } }): MappingTarget | undefined {
  const protocol = integration.baseUrl && URL.canParse(integration.baseUrl) ? new URL(integration.baseUrl).protocol : '';
  switch (integration.platform) {
    case 'custom':
      return 'scim';
    case 'okta':
      return 'okta';
    case 'salesforce':
      return 'salesforce';
    case 'active_directory':
      if (protocol === 'ldap:' || protocol === 'ldaps:') return integration.apiConfig?.provisioning?.ldap?.directory === 'active_directory' ? 'active_directory_ldap' : 'openldap';
      return protocol === 'https:' || protocol === 'http:' ? 'graph' : undefined;
    default:
      return undefined;
  }
}

/** The mapping in force: the integration's own, else its platform's default. */
export const mappingOf = (target: MappingTarget, own: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> => own ?? defaultAttributeMapping[target];

/**
 * One person's platform values: each mapped column's value under its attribute (columns the
 * person lacks are left out; an attribute that is not the platform's is never sent).
 */
export function mapAttributes(target: MappingTarget, mapping: Readonly<Record<string, string>>, attributes: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const mapped: Record<string, string> = {};
  for (const [column, attribute] of Object.entries(mapping)) {
    const value = attributes?.[column];
    if (!attribute || value === undefined || value === '' || !isPlatformAttribute(target, attribute)) continue;
    mapped[attribute] = value;
  }
  return mapped;
}

/** The platform attributes a change of these columns clears (the columns the person no longer has). */
export function clearedAttributes(target: MappingTarget, mapping: Readonly<Record<string, string>>, removedColumns: readonly string[]): string[] {
  return removedColumns.map((column) => mapping[column]).filter((attribute): attribute is string => !!attribute && isPlatformAttribute(target, attribute));
}

/** POST /api/integrations/{id}/attribute-preview: what one person would look like on the platform. */
export interface AttributePreview {
  /** Where the values go (which platform's attributes). */
  target: MappingTarget;
  /** The mapping previewed (the one sent, else the integration's, else the platform's default). */
  mapping: Record<string, string>;
  /** Whether that mapping is the platform's default (the integration has none of its own). */
  isDefault: boolean;
  /** The person's mapped values: platform attribute -> value. */
  mapped: Record<string, string>;
  /** The call the adapter would make to create the person: an HTTP request, or an LDAP add. */
  request: { method: string; path: string; body: unknown } | { operation: 'add'; dn: string; attributes: Record<string, string[]> };
}

/** The person the preview shows when none is given: every well-known column filled. */
export const SAMPLE_PERSON = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada.lovelace@example.com',
  attributes: { department: 'Research', title: 'Analyst', managerEmail: 'charles.babbage@example.com', phone: '+44 20 7946 0000', employeeId: 'E-1815' },
} as const;

/** How a password shows in a preview: never the real one (there is none), never a real secret. */
export const PREVIEW_SECRET = '••••••••';
