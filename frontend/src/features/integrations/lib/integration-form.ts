import type {
  CreateIntegrationInput,
  CreateIntegrationRequest,
  Integration,
  IntegrationPlatform,
  IntegrationTemplate,
  ProvisioningSettings,
} from '@shared/schemas/integrations';

/**
 * What the dialog starts from: blank, a quick-setup template's platform and methods (a ready
 * template, the local SCIM directory, fills everything in), or the integration being edited
 * (credentials blank: they are write-only, an empty one keeps the stored value).
 */
export function integrationFormDefaults(template?: IntegrationTemplate, editing?: Integration): Partial<CreateIntegrationInput> {
  if (editing) {
    return {
      name: editing.name,
      description: editing.description,
      platform: editing.platform,
      apiType: editing.apiType,
      baseUrl: editing.baseUrl,
      authMethod: editing.authMethod,
      authConfig: {},
      apiConfig: { testPath: editing.apiConfig.testPath ?? '', provisioning: { ...editing.apiConfig.provisioning } },
    };
  }
  return {
    name: template?.ready ? template.name : '',
    description: '',
    // No platform until one is chosen (spec 5: it is required); a template chooses it.
    platform: template?.platform,
    apiType: template?.apiType ?? 'REST',
    baseUrl: template?.ready?.baseUrl ?? '',
    authMethod: template?.authMethod ?? 'api_key',
    authConfig: { ...template?.ready?.authConfig },
    apiConfig: { testPath: template?.testPath ?? '', provisioning: {} },
  };
}

/** The template of a platform, whose example URL and test path suit it (never a ready one: its URL is one server's). */
export const templateFor = (templates: readonly IntegrationTemplate[] | undefined, platform: IntegrationPlatform | undefined) =>
  platform ? templates?.find((template) => template.platform === platform && !template.ready) : undefined;

const withoutBlanks = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== '' && value !== undefined));

/**
 * Settings left empty are left out, and so is a group of them left wholly empty (Salesforce's,
 * LDAP's): the platform's defaults apply, and an untouched group is not checked for its required
 * fields. A group with anything in it is checked whole.
 */
export function compactSettings<T>(settings: T): T | undefined {
  if (settings === '' || settings === null || settings === undefined) return undefined;
  if (typeof settings !== 'object' || Array.isArray(settings)) return settings;
  const kept = Object.entries(settings).flatMap(([key, value]) => {
    const compact = compactSettings(value);
    return compact === undefined ? [] : [[key, compact] as const];
  });
  return kept.length ? (Object.fromEntries(kept) as T) : undefined;
}

function provisioningOf(settings: ProvisioningSettings | undefined): { provisioning?: ProvisioningSettings } {
  const given = compactSettings(settings);
  return given ? { provisioning: given } : {};
}

/** The form's values as the schema reads them: empty provisioning settings left out (see compactSettings). */
export function withCompactSettings<T extends { apiConfig?: { provisioning?: unknown } }>(values: T): T {
  if (!values.apiConfig) return values;
  const { provisioning, ...apiConfig } = values.apiConfig;
  const compact = compactSettings(provisioning);
  return { ...values, apiConfig: compact ? { ...apiConfig, provisioning: compact } : apiConfig };
}

/**
 * Blank optional fields (a header name, a test path, pacing) are left out, so the server's
 * defaults apply; on edit a blank credential is left out too, which keeps the stored one.
 */
export const toCreateRequest = (values: CreateIntegrationRequest): CreateIntegrationRequest => {
  const { provisioning, ...apiConfig } = values.apiConfig;
  return {
    ...values,
    authConfig: withoutBlanks(values.authConfig),
    apiConfig: { ...withoutBlanks(apiConfig), ...provisioningOf(provisioning) },
  };
};

/** A number field of the form: empty is no value, so the default applies; anything else is checked as a number. */
export const optionalNumber = (value: unknown): number | undefined =>
  value === '' || value === null || value === undefined ? undefined : Number(value);

/** An empty select means the default (the platform's own undo). */
export const optionalChoice = (value: unknown): string | undefined => (value === '' || value == null ? undefined : String(value));

/** The placeholder of a credential field already stored: it is never shown, and an empty field keeps it. */
export const STORED_PLACEHOLDER = 'Stored - leave empty to keep';

/**
 * Whether two URLs reach the same server, by protocol and host as the server compares them (an
 * ldap:// URL has no origin): the server sends stored secrets to the same one only.
 */
export const sameOrigin = (a: string | undefined, b: string | undefined): boolean => {
  if (!a || !b || !URL.canParse(a) || !URL.canParse(b)) return false;
  const [x, y] = [new URL(a), new URL(b)];
  return x.protocol === y.protocol && x.host.toLowerCase() === y.host.toLowerCase();
};
