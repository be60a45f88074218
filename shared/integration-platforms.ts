/**
 * The platforms an integration can name, its sign-in methods and their credential fields (spec 3,
 * api_integrations). Free of zod: the schemas are in shared/schemas/integrations.ts.
 */
export const integrationPlatforms = ['salesforce', 'active_directory', 'okta', 'workday', 'custom'] as const;
export type IntegrationPlatform = (typeof integrationPlatforms)[number];
export const platformLabels: Record<IntegrationPlatform, string> = {
  salesforce: 'Salesforce',
  active_directory: 'Active Directory',
  okta: 'Okta',
  workday: 'Workday',
  custom: 'Custom API',
};

export const apiTypes = ['REST', 'SOAP', 'GraphQL'] as const;
export const authMethods = ['api_key', 'oauth2', 'basic_auth', 'bearer_token'] as const;
export type AuthMethod = (typeof authMethods)[number];
export const authMethodLabels: Record<AuthMethod, string> = {
  api_key: 'API Key',
  oauth2: 'OAuth 2.0 (client credentials)',
  basic_auth: 'Basic Auth',
  bearer_token: 'Bearer Token',
};

/**
 * The credential fields each sign-in method takes (authConfig). They are encrypted at rest and
 * never sent back to the browser: a stored integration only says which fields are set.
 */
export const authFields: Record<AuthMethod, readonly { name: string; label: string; secret: boolean; required: boolean; hint?: string }[]> = {
  api_key: [
    { name: 'apiKey', label: 'API key', secret: true, required: true },
    { name: 'headerName', label: 'Header name', secret: false, required: false, hint: 'Defaults to Authorization (SSWS for Okta) or X-API-Key' },
  ],
  oauth2: [
    { name: 'clientId', label: 'Client ID', secret: false, required: true },
    { name: 'clientSecret', label: 'Client secret', secret: true, required: true },
    { name: 'tokenUrl', label: 'Token URL', secret: false, required: false, hint: 'Required, except for Salesforce (its /services/oauth2/token)' },
    { name: 'scope', label: 'Scope', secret: false, required: false, hint: 'Empty: okta.users.manage for Okta, https://graph.microsoft.com/.default for Microsoft Graph' },
  ],
  basic_auth: [
    { name: 'username', label: 'Username', secret: false, required: true },
    { name: 'password', label: 'Password', secret: true, required: true },
  ],
  bearer_token: [{ name: 'token', label: 'Token', secret: true, required: true }],
};

