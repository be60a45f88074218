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

/** Pacing and undo left empty are left out: the platform's documented defaults apply. */
function provisioningOf(settings: ProvisioningSettings | undefined): { provisioning?: ProvisioningSettings } {
  const given = withoutBlanks({ ...settings });
  return Object.keys(given).length ? { provisioning: given } : {};
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

/** Whether two URLs reach the same origin (the server sends stored secrets to the same one only). */
export const sameOrigin = (a: string | undefined, b: string | undefined): boolean =>
  !!a && !!b && URL.canParse(a) && URL.canParse(b) && new URL(a).origin === new URL(b).origin;
