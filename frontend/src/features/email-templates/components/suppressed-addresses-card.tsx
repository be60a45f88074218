import { Badge, Box, Button, Card, HStack, List, Stack, Text } from '@chakra-ui/react';
import { MailCheckIcon, Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import type { EmailSuppression } from '@shared/schemas/email-suppressions';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDate } from '../../../lib/format-date';
import { useEmailSuppressionsQuery, useRemoveEmailSuppression } from '../api/email-suppressions-api';

const reasonLabel: Record<EmailSuppression['reason'], string> = { bounced: 'Bounced', complained: 'Marked as spam' };

/** 'Remove' with a confirmation; the dialog stays open while the request runs. */
function RemoveSuppressionButton({ suppression }: { suppression: EmailSuppression }) {
  const [open, setOpen] = useState(false);
  const remove = useRemoveEmailSuppression();
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={setOpen}
      trigger={
        <Button size="xs" variant="outline" colorPalette="red" aria-label={`Remove ${suppression.email}`}>
          <Trash2Icon aria-hidden="true" />
          Remove
        </Button>
      }
      title="Remove from the suppression list?"
      description={
        <>
          Credential e-mails will be sent to <strong>{suppression.email}</strong> again.{' '}
          {suppression.reason === 'complained'
            ? 'Its holder marked an earlier e-mail as spam: sending again can hurt your sender reputation.'
            : 'It bounced before: remove it only if the address has been fixed.'}
        </>
      }
      confirmLabel="Remove Address"
      busy={remove.isPending}
      busyLabel="Removing..."
      onConfirm={() => remove.mutate(suppression, { onSettled: () => setOpen(false) })}
    />
  );
}

/**
 * The user's suppression list (issue 12): addresses that bounced for good or complained, which
 * credential e-mails skip. Every plan sees it and may remove an address.
 */
export function SuppressedAddressesCard() {
  const suppressions = useEmailSuppressionsQuery();
  const list = suppressions.data;
  return (
    <Card.Root variant="outline" size="sm" as="section" aria-labelledby="suppressed-addresses-title">
      <Card.Header>
        <Card.Title as="h2" id="suppressed-addresses-title">
          Suppressed addresses
        </Card.Title>
        <Card.Description>Addresses that bounced or marked an e-mail as spam. Credential e-mails skip them.</Card.Description>
      </Card.Header>
      <Card.Body>
        {suppressions.isError && !list ? (
          <QueryErrorCard message="Failed to load the suppressed addresses." onRetry={() => void suppressions.refetch()} retrying={suppressions.isFetching} />
        ) : !list ? (
          <ListSkeleton rows={2} label="Loading the suppressed addresses" />
        ) : list.length === 0 ? (
          <HStack gap="3" color="fg.muted">
            <MailCheckIcon aria-hidden="true" />
            <Text fontSize="sm">No suppressed addresses. Every address is sent to.</Text>
          </HStack>
        ) : (
          <List.Root variant="plain" gap="3" aria-label="Suppressed addresses">
            {list.map((suppression) => (
              <List.Item key={suppression.email} display="flex" alignItems="center" gap="3" flexWrap="wrap">
                <Stack gap="0.5" flex="1" minW="0">
                  <HStack gap="2" flexWrap="wrap">
                    <Text fontWeight="medium" wordBreak="break-all">
                      {suppression.email}
                    </Text>
                    <Badge colorPalette={suppression.reason === 'complained' ? 'orange' : 'red'} variant="subtle">
                      {reasonLabel[suppression.reason]}
                    </Badge>
                  </HStack>
                  <Text fontSize="xs" color="fg.muted">
                    Since {formatDate(suppression.createdAt)}
                    {suppression.detail ? (
                      <Box as="span" wordBreak="break-word">
                        {' '}
                        · {suppression.detail}
                      </Box>
                    ) : null}
                  </Text>
                </Stack>
                <RemoveSuppressionButton suppression={suppression} />
              </List.Item>
            ))}
          </List.Root>
        )}
      </Card.Body>
    </Card.Root>
  );
}
