import { Alert, Badge, Box, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import type { ProvisioningJob, ProvisioningStatus } from '@shared/schemas/provisioning';
import { countsText, jobSyncCounts, provisioningStatusLabels, settledPercent, shownStatus } from '../lib/provisioning-progress';

const statusPalette: Record<ProvisioningStatus, string> = {
  waiting: 'gray',
  queued: 'gray',
  running: 'blue',
  paused: 'orange',
  completed: 'green',
  failed: 'red',
};

/**
 * A provisioning run's progress, apart from the accounts' creation: "Provisioning to <name>: N
 * synced, N failed, N pending of T" (an undo: "Undo on <name>: N removed, ..."), a bar of the
 * accounts settled, and why it waits (for its accounts, or on the shared queue behind other
 * runs: the server's waitReason), paused (with the way to the integration) or failed.
 */
export function ProvisioningProgress({ job, lost }: { job: ProvisioningJob; /** Its progress cannot be read right now. */ lost?: boolean }) {
  const counts = jobSyncCounts(job);
  const percent = settledPercent(counts);
  // No worker has it yet (the shared queue is busy with other runs): said so, with the server's reason.
  const status = shownStatus(job);
  const notStarted = status === 'waiting' || status === 'queued';
  const label = job.mode === 'undo' ? `Undo on ${job.integrationName}` : `Provisioning to ${job.integrationName}`;
  const share = (part: number) => (counts.total > 0 ? `${(part / counts.total) * 100}%` : '0%');
  return (
    <Stack gap="3" borderWidth="1px" borderRadius="md" p="4" aria-label={label} role="group">
      <HStack justify="space-between" align="flex-start" gap="2" wrap="wrap">
        <Text fontWeight="semibold" wordBreak="break-word">
          {label}
        </Text>
        <Badge colorPalette={statusPalette[status] ?? 'gray'} variant="subtle">
          {provisioningStatusLabels[status] ?? status}
        </Badge>
      </HStack>
      {/* Synced and failed side by side: one colour for both would read as all done, or all failed. */}
      <Box
        role="progressbar"
        aria-label={`${label} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={notStarted ? undefined : Math.round(percent)}
        aria-valuetext={countsText(counts, job.mode)}
        display="flex"
        h="2"
        borderRadius="full"
        bg="bg.emphasized"
        overflow="hidden"
      >
        <Box bg="green.solid" w={share(counts.synced)} />
        <Box bg="red.solid" w={share(counts.failed)} />
      </Box>
      <Text fontSize="sm" role="status" aria-live="polite">
        {countsText(counts, job.mode)}
      </Text>
      {/* Require password change (Security Center): whether this platform could be asked to. */}
      {job.passwordChange ? (
        <Text fontSize="sm" color={job.passwordChange.applied ? 'fg.muted' : 'fg.warning'}>
          {job.passwordChange.applied ? 'New accounts must change their password at first sign-in. ' : 'Require password change is on, but not applied here: '}
          {job.passwordChange.detail}
        </Text>
      ) : null}
      {job.waitReason ? (
        <Text fontSize="sm" color="fg.muted" data-testid="provisioning-wait-reason">
          {job.waitReason}
        </Text>
      ) : null}
      {job.status === 'paused' ? (
        <Alert.Root status="warning" size="sm">
          <Alert.Indicator />
          <Alert.Content gap="1">
            <Alert.Description>{job.reason ?? 'The run is paused.'}</Alert.Description>
            <Link asChild color="blue.fg" fontWeight="medium" fontSize="sm" alignSelf="flex-start">
              <RouterLink to="/integrations">Open API Integrations</RouterLink>
            </Link>
          </Alert.Content>
        </Alert.Root>
      ) : job.status === 'failed' ? (
        <Alert.Root status="error" size="sm">
          <Alert.Indicator />
          <Alert.Description>
            The run stopped{job.reason ? `: ${job.reason}` : '.'} Accounts it did not reach stay pending.
          </Alert.Description>
        </Alert.Root>
      ) : job.reason ? (
        <Text fontSize="sm" color="fg.muted">
          {job.reason}
        </Text>
      ) : null}
      {lost ? (
        <Text fontSize="sm" color="fg.warning">
          The run&apos;s progress cannot be read right now (still trying). It goes on without this window.
        </Text>
      ) : null}
    </Stack>
  );
}
