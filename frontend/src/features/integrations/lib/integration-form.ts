import type {
  CreateIntegrationInput,
  CreateIntegrationRequest,
  IntegrationPlatform,
  IntegrationTemplate,
} from '@shared/schemas/integrations';
import { ApiError } from '../../../lib/api-client';

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

/**
 * The fields a 400 names ({ message, details: [{ path, message }] }), so the dialog can show the
 * server's reason (e.g. a refused private address) under the field as well as in the toast.
 * ApiError keeps only the body's message, so the details are read from its text.
 */
export function serverFieldErrors(error: unknown): { path: string; message: string }[] {
  if (!(error instanceof ApiError) || error.status !== 400) return [];
  try {
    const body: unknown = JSON.parse(error.message.slice(`${error.status}: `.length));
    const details = body && typeof body === 'object' && 'details' in body ? body.details : undefined;
    if (!Array.isArray(details)) return [];
    return details.filter(
      (detail): detail is { path: string; message: string } =>
        !!detail && typeof detail === 'object' && typeof detail.path === 'string' && typeof detail.message === 'string',
    );
  } catch {
    return [];
  }
}
