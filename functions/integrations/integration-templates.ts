import { localScimTenantToken } from './local-scim-tenant';
import type { IntegrationPlatform, IntegrationTemplate } from '../../shared/schemas/integrations';

/**
 * GET /api/integration-templates: the quick-setup cards. Each names the platform's usual API
 * style and sign-in method, an example base URL and the read-only call the connection test makes.
 */
export const integrationTemplates: readonly IntegrationTemplate[] = [
  {
    id: 'salesforce',
    platform: 'salesforce',
    name: 'Salesforce',
    description: 'Create users in Salesforce through the REST API (connected app, client credentials).',
    apiType: 'REST',
    authMethod: 'oauth2',
    baseUrlExample: 'https://your-domain.my.salesforce.com',
    testPath: '/services/data/',
    isBuiltIn: true,
  },
  {
    id: 'active_directory',
    platform: 'active_directory',
    name: 'Active Directory',
    description: 'Create users in Microsoft Entra ID (Azure AD) through Microsoft Graph.',
    apiType: 'REST',
    authMethod: 'oauth2',
    baseUrlExample: 'https://graph.microsoft.com/v1.0',
    testPath: '/users?$top=1',
    isBuiltIn: true,
  },
  {
    id: 'okta',
    platform: 'okta',
    name: 'Okta',
    description: 'Create and activate users in your Okta org with an API token.',
    apiType: 'REST',
    authMethod: 'api_key',
    baseUrlExample: 'https://your-org.okta.com',
    testPath: '/api/v1/users?limit=1',
    isBuiltIn: true,
  },
  {
    id: 'workday',
    platform: 'workday',
    name: 'Workday',
    description: 'Create workers through the Workday REST API (API client for integrations).',
    apiType: 'REST',
    authMethod: 'oauth2',
    baseUrlExample: 'https://wd2-impl-services1.workday.com/ccx/api/v1/your-tenant',
    testPath: '/workers?limit=1',
    isBuiltIn: true,
  },
  {
    id: 'custom',
    platform: 'custom',
    name: 'Custom API',
    description: 'A SCIM 2.0 service provider (a provisioning target), or any HTTPS API of your own: choose the sign-in method and the path the test reads.',
    apiType: 'REST',
    authMethod: 'bearer_token',
    baseUrlExample: 'https://api.example.com/scim/v2',
    // A SCIM provider answers its configuration to any signed-in client (RFC 7644 4); another API: change the path.
    testPath: '/ServiceProviderConfig',
    isBuiltIn: true,
  },
];

/** The path the connection test reads for a platform when the integration names none. */
export const defaultTestPath = (platform: IntegrationPlatform): string => integrationTemplates.find((t) => t.platform === platform)?.testPath ?? '';

/**
 * The local stack's SCIM directory (bin/local/scim-server.ts, built on scimmy) as a ready
 * quick-setup card, so a new user can try provisioning with no account anywhere: with the token of
 * this user's own tenant (functions/integrations/local-scim-tenant.ts), never one another user
 * holds. Only where LOCAL_SCIM_URL and LOCAL_SCIM_TENANT_KEY are set: `npm start` and the tests,
 * never AWS.
 */
export function localDirectoryTemplate(url: string | undefined, tenantKey: string | undefined, userId: string): IntegrationTemplate | undefined {
  if (!url || !tenantKey) return undefined;
  const token = localScimTenantToken(tenantKey, userId);
  return {
    id: 'local-scim',
    platform: 'custom',
    name: 'Local SCIM directory',
    description: 'A real SCIM 2.0 directory running beside the app on this machine: try provisioning without an account anywhere.',
    apiType: 'REST',
    authMethod: 'bearer_token',
    baseUrlExample: url,
    testPath: '/ServiceProviderConfig',
    isBuiltIn: true,
    ready: { baseUrl: url, authConfig: { token } },
  };
}
