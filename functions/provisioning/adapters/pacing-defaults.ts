import type { IntegrationRecord } from '../../integrations/integration-record';
import type { Pacing } from '../../account-jobs/platform-calls';
import { directoryAccessOf } from '../../../shared/schemas/provisioning';

/**
 * Documented limits per platform, used when the integration sets none (docs/provisioning.md):
 * Okta's default /api/v1/users limit is 600 requests a minute and 75 concurrent per org; a SCIM
 * service provider documents its own, so a custom one is bounded by calls in flight only.
 */
export const defaultPacing: Record<IntegrationRecord['platform'], Pacing> = {
  custom: { concurrency: 8 },
  okta: { requestsPerMinute: 600, concurrency: 75 },
  active_directory: { requestsPerMinute: 3000, concurrency: 4 },
  salesforce: { requestsPerMinute: 1000, concurrency: 4 },
  workday: { requestsPerMinute: 60, concurrency: 1 },
};

/**
 * Microsoft Graph (Entra ID): the directory's write limit is 3,000 requests per 150 seconds per
 * app and tenant (learn.microsoft.com/graph/throttling-limits, identity and access service), i.e.
 * 1,200 a minute; each sub-request of a $batch counts. The token bucket counts our calls, and a
 * call is a $batch of up to 20 creations: 60 calls a minute stay within 1,200 creations. 4 calls
 * in flight.
 */
export const microsoftGraphPacing: Pacing = { requestsPerMinute: 60, concurrency: 4 };

export const pacingOf = (integration: IntegrationRecord): Pacing => {
  const settings = integration.apiConfig?.provisioning;
  const platform =
    integration.platform === 'active_directory' && directoryAccessOf(integration.baseUrl) === 'graph' ? microsoftGraphPacing : defaultPacing[integration.platform];
  return { requestsPerMinute: settings?.requestsPerMinute ?? platform.requestsPerMinute, concurrency: settings?.concurrency ?? platform.concurrency };
};
