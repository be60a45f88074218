import { HStack, List, Progress, Stack, Text } from '@chakra-ui/react';
import { CircleCheckIcon, CircleIcon } from 'lucide-react';

/** Spec 4: the checklist ticks above 30%, 60% and 90%. */
const steps = [
  { label: 'Validating user data', above: 30 },
  { label: 'Generating usernames and passwords', above: 60 },
  { label: 'Creating accounts', above: 90 },
] as const;

/**
 * The progress bar and checklist while accounts are being created. A job still queued behind
 * others has made no progress to show: it says so, and why (the server's `waitReason`: how busy
 * the shared queue is), with a bar that moves without a number, rather than a '0%' that reads as stuck.
 */
export function BulkProcessingStage({ percent, detail, queued = false, waitReason }: { percent: number; detail?: string; queued?: boolean; waitReason?: string }) {
  const rounded = Math.round(percent);
  return (
    <Stack gap="5" py="4">
      <Stack gap="1" textAlign="center">
        <Text fontWeight="semibold" fontSize="lg" role="status">
          {queued ? 'Queued — waiting for its turn' : 'Creating accounts...'}
        </Text>
        {queued && waitReason ? (
          <Text fontSize="sm" data-testid="bulk-wait-reason">
            {waitReason}
          </Text>
        ) : null}
        <Text fontSize="sm" color="fg.muted">
          {queued
            ? 'It starts on its own. You can close this window: the accounts appear in Projects when done.'
            : 'Please keep this window open until it finishes.'}
        </Text>
      </Stack>
      <Progress.Root
        value={queued ? null : rounded}
        max={100}
        colorPalette="blue"
        size="lg"
        aria-label="Account creation progress"
      >
        <HStack justify="space-between" mb="1">
          <Progress.Label fontSize="sm">{detail ?? 'Processing'}</Progress.Label>
          {queued ? null : <Progress.ValueText />}
        </HStack>
        <Progress.Track borderRadius="full">
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      <List.Root variant="plain" gap="2" aria-label="Steps">
        {steps.map(({ label, above }) => {
          const done = percent > above;
          return (
            <List.Item key={label} color={done ? 'fg' : 'fg.muted'}>
              <List.Indicator asChild color={done ? 'green.solid' : 'fg.subtle'}>
                {done ? <CircleCheckIcon size={18} /> : <CircleIcon size={18} />}
              </List.Indicator>
              {label}
              <Text as="span" srOnly>
                {done ? ' (done)' : ' (pending)'}
              </Text>
            </List.Item>
          );
        })}
      </List.Root>
    </Stack>
  );
}
