import { Badge } from '@chakra-ui/react';
import type { Integration } from '@shared/schemas/integrations';

/** Spec 4: success, failed, otherwise pending; 'Not tested' while it has never been tested. */
export function IntegrationTestBadge({ integration }: { integration: Pick<Integration, 'lastTestDate' | 'lastTestStatus'> }) {
  if (!integration.lastTestDate) return <Badge colorPalette="gray">Not tested</Badge>;
  switch (integration.lastTestStatus) {
    case 'success':
      return <Badge colorPalette="green">Test passed</Badge>;
    case 'failed':
      return <Badge colorPalette="red">Test failed</Badge>;
    default:
      return <Badge colorPalette="yellow">Test pending</Badge>;
  }
}
