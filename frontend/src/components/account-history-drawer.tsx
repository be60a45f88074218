import { Box, Button, CloseButton, Code, DataList, Drawer, Heading, List, Portal, Stack, Text } from '@chakra-ui/react';
import {
  CircleAlertIcon,
  CircleCheckIcon,
  CirclePlusIcon,
  CloudIcon,
  CloudOffIcon,
  EyeIcon,
  KeyRoundIcon,
  MailCheckIcon,
  MailIcon,
  MailXIcon,
  PencilIcon,
  PowerIcon,
  PowerOffIcon,
  TimerOffIcon,
} from 'lucide-react';
import type { ReactNode } from 'react';
import { changedFieldLabel, type AccountHistoryEntry, type AccountHistoryKind } from '@shared/schemas/account-edit';
import type { AccountView } from '@shared/schemas/project';
import { attributeLabel, orderedAttributeKeys } from '@shared/schemas/attributes';
import { formatDateTime } from '../lib/format-date';
import { useAccountHistoryQuery } from '../lib/accounts-api';
import { ListSkeleton } from './list-skeleton';
import { QueryErrorCard } from './query-error-card';

const icons: Record<AccountHistoryKind, { icon: ReactNode; color: string }> = {
  created: { icon: <CirclePlusIcon size={16} />, color: 'blue.fg' },
  provisioned: { icon: <CloudIcon size={16} />, color: 'green.fg' },
  provision_failed: { icon: <CircleAlertIcon size={16} />, color: 'fg.error' },
  removed_from_platform: { icon: <CloudOffIcon size={16} />, color: 'orange.fg' },
  emailed: { icon: <MailIcon size={16} />, color: 'blue.fg' },
  email_failed: { icon: <MailXIcon size={16} />, color: 'fg.error' },
  email_skipped: { icon: <MailXIcon size={16} />, color: 'fg.warning' },
  delivered: { icon: <MailCheckIcon size={16} />, color: 'green.fg' },
  bounced: { icon: <MailXIcon size={16} />, color: 'fg.error' },
  complained: { icon: <MailXIcon size={16} />, color: 'fg.error' },
  credentials_viewed: { icon: <EyeIcon size={16} />, color: 'green.fg' },
  password_reset: { icon: <KeyRoundIcon size={16} />, color: 'blue.fg' },
  password_reset_failed: { icon: <KeyRoundIcon size={16} />, color: 'fg.error' },
  edited: { icon: <PencilIcon size={16} />, color: 'fg' },
  updated_on_platform: { icon: <CloudIcon size={16} />, color: 'green.fg' },
  deactivated: { icon: <PowerOffIcon size={16} />, color: 'fg.warning' },
  reactivated: { icon: <PowerIcon size={16} />, color: 'green.fg' },
  expired: { icon: <TimerOffIcon size={16} />, color: 'fg.warning' },
};

/** What happened to one account and when, newest first (GET /api/accounts/{id}/history), read while open. */
export function AccountHistoryDrawer({ account, onClose }: { account: AccountView; onClose: () => void }) {
  const history = useAccountHistoryQuery(account.id, true);
  const entries = history.data?.pages.flatMap((page) => page.entries) ?? [];
  const name = `${account.firstName} ${account.lastName}`;
  return (
    <Drawer.Root open onOpenChange={(details) => (details.open ? undefined : onClose())} placement="end" size="sm">
      <Portal>
        <Drawer.Backdrop />
        <Drawer.Positioner>
          <Drawer.Content>
            <Drawer.Header>
              <Stack gap="1">
                <Drawer.Title>History of {name}</Drawer.Title>
                <Code variant="surface" alignSelf="flex-start" fontSize="xs">
                  {account.username}
                </Code>
              </Stack>
            </Drawer.Header>
            <Drawer.Body pb="6">
              <AccountDetails account={account} />
              {history.isPending ? (
                <ListSkeleton rows={4} label="Loading the history" />
              ) : history.isError ? (
                <QueryErrorCard message="Failed to load the history." onRetry={() => void history.refetch()} retrying={history.isFetching} />
              ) : entries.length === 0 ? (
                <Text color="fg.muted">Nothing recorded yet.</Text>
              ) : (
                <Stack gap="4">
                  <List.Root variant="plain" gap="4" aria-label={`History of ${name}, newest first`}>
                    {entries.map((entry) => (
                      <HistoryItem key={entry.id} entry={entry} />
                    ))}
                  </List.Root>
                  {history.hasNextPage ? (
                    <Button variant="outline" size="sm" alignSelf="flex-start" onClick={() => void history.fetchNextPage()} loading={history.isFetchingNextPage} loadingText="Loading...">
                      Show older
                    </Button>
                  ) : null}
                  {history.isFetchNextPageError ? (
                    <Text color="fg.error" fontSize="sm" role="alert">
                      Failed to load more. Try again.
                    </Text>
                  ) : null}
                </Stack>
              )}
            </Drawer.Body>
            <Drawer.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close the history" />
            </Drawer.CloseTrigger>
          </Drawer.Content>
        </Drawer.Positioner>
      </Portal>
    </Drawer.Root>
  );
}

/** The account's extra columns (department, title...), when it has any: kept from its CSV, edited with Edit. */
function AccountDetails({ account }: { account: AccountView }) {
  const keys = orderedAttributeKeys(Object.keys(account.attributes ?? {}));
  if (!keys.length) return null;
  return (
    <Stack gap="2" mb="6" data-testid="account-details">
      <Heading as="h3" size="sm">
        Details
      </Heading>
      <DataList.Root orientation="horizontal" size="sm" aria-label={`Details of ${account.firstName} ${account.lastName}`}>
        {keys.map((key) => (
          <DataList.Item key={key}>
            <DataList.ItemLabel>{attributeLabel(key)}</DataList.ItemLabel>
            <DataList.ItemValue overflowWrap="anywhere">{account.attributes![key]}</DataList.ItemValue>
          </DataList.Item>
        ))}
      </DataList.Root>
    </Stack>
  );
}

function HistoryItem({ entry }: { entry: AccountHistoryEntry }) {
  const { icon, color } = icons[entry.kind] ?? { icon: <CircleCheckIcon size={16} />, color: 'fg' };
  return (
    <List.Item alignItems="flex-start" gap="3" data-kind={entry.kind}>
      <Box color={color} mt="0.5" aria-hidden="true">
        {icon}
      </Box>
      <Stack gap="0.5" minW="0" flex="1">
        <Text fontWeight="medium">{entry.title}</Text>
        <Text fontSize="xs" color="fg.muted">
          <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
        </Text>
        {entry.changes?.length ? (
          <List.Root as="ul" variant="plain" gap="0.5" fontSize="sm">
            {entry.changes.map((change) => (
              <List.Item key={change.field} display="block" overflowWrap="anywhere">
                {changedFieldLabel(change.field)}: <Text as="span" textDecoration="line-through" color="fg.muted">{change.from}</Text> → {change.to}
              </List.Item>
            ))}
          </List.Root>
        ) : null}
        {entry.detail ? (
          <Text fontSize="sm" color={entry.kind.endsWith('failed') || entry.kind === 'bounced' ? 'fg.error' : 'fg.muted'} overflowWrap="anywhere">
            {entry.detail}
          </Text>
        ) : null}
      </Stack>
    </List.Item>
  );
}
