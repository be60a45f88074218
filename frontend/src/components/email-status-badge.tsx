import { Badge, Stack, Text } from '@chakra-ui/react';
import { emailStatusLabels } from '@shared/schemas/mail-send';
import type { EmailStatus } from '@shared/schemas/email-status';

const palettes: Record<EmailStatus | 'none', string> = {
  none: 'gray',
  queued: 'blue',
  sent: 'teal',
  delivered: 'green',
  bounced: 'red',
  complained: 'orange',
  failed: 'red',
  suppressed: 'purple',
};

/**
 * An account's credential e-mail: Not sent, Queued, Sent, Delivered, Bounced, Complained, Failed
 * or Skipped: suppressed. Why it failed or was skipped shows under the badge as text (read on
 * touch screens and by screen readers alike).
 */
export function EmailStatusBadge({ status, error }: { status?: EmailStatus; error?: string }) {
  const key = status ?? 'none';
  const badge = (
    <Badge colorPalette={palettes[key]} variant="subtle" alignSelf="flex-start" whiteSpace="nowrap" data-testid="email-status">
      {emailStatusLabels[key]}
    </Badge>
  );
  if (!error || (status !== 'failed' && status !== 'suppressed' && status !== 'bounced' && status !== 'complained')) return badge;
  return (
    <Stack gap="1" minW="40" maxW="sm">
      {badge}
      <Text fontSize="xs" color={status === 'suppressed' ? 'fg.muted' : 'fg.error'} overflowWrap="anywhere" whiteSpace="normal">
        {error}
      </Text>
    </Stack>
  );
}
