import type {
  CreateIntegrationInput,
  CreateIntegrationRequest,
  IntegrationPlatform,
  IntegrationTemplate,
} from '@shared/schemas/integrations';

/** What the create dialog starts from: blank, or a quick-setup template's platform and methods. */
export function integrationFormDefaults(template?: IntegrationTemplate): Partial<CreateIntegrationInput> {
  return {
    name: '',
    description: '',
    // No platform until one is chosen (spec 5: it is required); a template chooses it.
    platform: template?.platform,
    apiType: template?.apiType ?? 'REST',
    baseUrl: '',
    authMethod: template?.authMethod ?? 'api_key',
    authConfig: {},
    apiConfig: { testPath: template?.testPath ?? '' },
  };
}

/** The template of a platform, whose example URL and test path suit it. */
export const templateFor = (templates: readonly IntegrationTemplate[] | undefined, platform: IntegrationPlatform | undefined) =>
  platform ? templates?.find((template) => template.platform === platform) : undefined;

const withoutBlanks = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ''));

/** Blank optional fields (a header name, a test path) are left out, so the server's defaults apply. */
export const toCreateRequest = (values: CreateIntegrationRequest): CreateIntegrationRequest => ({
  ...values,
  authConfig: withoutBlanks(values.authConfig),
  apiConfig: withoutBlanks(values.apiConfig),
});

