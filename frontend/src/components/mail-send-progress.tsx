import { Badge, Box, HStack, Stack, Text } from '@chakra-ui/react';
import { pauseWords, type MailSend, type MailSendStatus } from '@shared/schemas/mail-send';

const statusLabels: Record<MailSendStatus, string> = { waiting: 'Waiting for the accounts', queued: 'Queued', running: 'Sending', completed: 'Completed', failed: 'Failed' };
const statusPalette: Record<MailSendStatus, string> = { waiting: 'gray', queued: 'gray', running: 'blue', completed: 'green', failed: 'red' };

const count = new Intl.NumberFormat();

/** "N sent, N failed, N skipped (suppressed), N queued, N pending of T": they add up to T. */
export function sendCountsText(send: MailSend): string {
  const parts = [`${count.format(send.sent)} sent`, `${count.format(send.failed)} failed`];
  if (send.suppressed) parts.push(`${count.format(send.suppressed)} skipped (suppressed)`);
  if (send.queued) parts.push(`${count.format(send.queued)} queued`);
  if (send.pending) parts.push(`${count.format(send.pending)} pending`);
  return `${parts.join(', ')} of ${count.format(send.total)}`;
}

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** 'Paused: the sending quota for today is used; resumes at 14:05. No account fails because of it.' */
export function pausedText(paused: NonNullable<MailSend['paused']>): string {
  const at = new Date(paused.resumesAt);
  const when = Number.isNaN(at.getTime()) ? 'shortly' : `at ${time.format(at)}`;
  return `Paused: ${pauseWords(paused.reason)}; resumes ${when}. No account fails because of it.`;
}

/** A credentials send's progress: sent, failed and skipped side by side on a bar, and the counts in words. */
export function MailSendProgress({ send, lost }: { send: MailSend; lost?: boolean }) {
  const label = `Credential e-mails with ${send.templateName}`;
  const share = (part: number) => (send.total > 0 ? `${(part / send.total) * 100}%` : '0%');
  const done = send.sent + send.failed + send.suppressed;
  return (
    <Stack gap="3" borderWidth="1px" borderRadius="md" p="4" role="group" aria-label={label}>
      <HStack justify="space-between" align="flex-start" gap="2" wrap="wrap">
        <Text fontWeight="semibold" wordBreak="break-word">
          {label}
          {send.delivery === 'link' ? ` (one-time links, ${send.linkExpiresInDays} days)` : ''}
        </Text>
        <Badge colorPalette={send.paused ? 'orange' : statusPalette[send.status]} variant="subtle">
          {send.paused ? 'Paused' : statusLabels[send.status]}
        </Badge>
      </HStack>
      <Box
        role="progressbar"
        aria-label={`${label} progress`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={send.total ? Math.round((done / send.total) * 100) : undefined}
        aria-valuetext={sendCountsText(send)}
        display="flex"
        h="2"
        borderRadius="full"
        bg="bg.emphasized"
        overflow="hidden"
      >
        <Box bg="teal.solid" w={share(send.sent)} />
        <Box bg="red.solid" w={share(send.failed)} />
        <Box bg="purple.solid" w={share(send.suppressed)} />
      </Box>
      <Text fontSize="sm" role="status" aria-live="polite" data-testid="mail-send-counts">
        {sendCountsText(send)}
      </Text>
      {send.paused ? (
        <Text fontSize="sm" color="fg.warning" data-testid="mail-send-paused">
          {pausedText(send.paused)}
        </Text>
      ) : null}
      {send.reason ? (
        <Text fontSize="sm" color="fg.error">
          {send.reason}
        </Text>
      ) : null}
      {lost ? (
        <Text fontSize="sm" color="fg.muted">
          The progress cannot be read right now; the e-mails go on.
        </Text>
      ) : null}
    </Stack>
  );
}
