import { Button, Card, HStack, Stack, Text } from '@chakra-ui/react';
import { DownloadIcon, ShieldIcon } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { saveFile } from '../../../lib/save-file';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import { toaster } from '../../../lib/toaster';
import { useUser } from '../../../lib/user-api';
import { securityReportPdf, securityReportSections } from '../lib/security-report';

/** Settings > Security: the way to the Security Center, and the security report as a PDF. */
export function SecurityTab() {
  const user = useUser();
  const subscription = useSubscriptionStatus();
  const [busy, setBusy] = useState(false);

  const download = async () => {
    setBusy(true);
    try {
      const pdf = await securityReportPdf(securityReportSections(user, subscription.data));
      saveFile(pdf, `bulkonboard-security-report-${new Date().toISOString().slice(0, 10)}.pdf`);
      toaster.create({ type: 'success', title: 'Report downloaded', description: 'Your security report is in your downloads.' });
    } catch {
      toaster.create({ type: 'error', title: 'Download failed', description: 'The security report could not be made. Please try again.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Security</Card.Title>
        <Card.Description>How your account is protected, and a report of it to keep.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="5">
          <HStack justify="space-between" gap="4" flexWrap="wrap">
            <Stack gap="0.5" minW="0">
              <Text fontWeight="medium">Security Center</Text>
              <Text fontSize="sm" color="fg.muted">
                Review your security settings and events.
              </Text>
            </Stack>
            <Button asChild variant="outline">
              <Link to="/security">
                <ShieldIcon size={16} aria-hidden="true" />
                Open Security Center
              </Link>
            </Button>
          </HStack>
          <HStack justify="space-between" gap="4" flexWrap="wrap">
            <Stack gap="0.5" minW="0">
              <Text fontWeight="medium">Security report</Text>
              <Text fontSize="sm" color="fg.muted">
                A PDF with your account, sign-in and plan facts.
              </Text>
            </Stack>
            <Button colorPalette="blue" onClick={() => void download()} loading={busy} loadingText="Preparing...">
              <DownloadIcon size={16} aria-hidden="true" />
              Download Security Report
            </Button>
          </HStack>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
