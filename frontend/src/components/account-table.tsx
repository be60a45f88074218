import { Badge, Box, Checkbox, Code, Table, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { AccountView } from '@shared/schemas/project';
import { formatDate } from '../lib/format-date';
import { AccountStatusBadge } from './account-status-badge';
import { EmailStatusBadge } from './email-status-badge';
import { CredentialsViewedMarker } from './credentials-viewed-marker';
import { ScrollTable } from './scroll-table';

/**
 * Stored accounts (Account Database, a project's accounts). The password column shows only when
 * passwords were asked for; the project column only where accounts of several projects mix.
 */
export function AccountTable({
  accounts,
  showPasswords,
  showProject,
  caption,
  action,
  selection,
}: {
  accounts: AccountView[];
  showPasswords: boolean;
  showProject: boolean;
  caption: string;
  /** Per-row actions (the row menu: Edit, History; on the project page also Send / Resend of the credential e-mail). */
  action?: (account: AccountView) => ReactNode;
  /** Row selection (the project page's bulk actions): a checkbox per row and one for the rows shown. */
  selection?: { selected: ReadonlySet<string>; onChange: (ids: string[], checked: boolean) => void };
}) {
  const shownSelected = selection ? accounts.filter((a) => selection.selected.has(a.id)).length : 0;
  return (
    <ScrollTable label={caption} borderWidth="1px" borderRadius="md">
      <Table.Root size="sm" stickyHeader interactive>
        <Table.Caption srOnly>{caption}</Table.Caption>
        <Table.Header>
          <Table.Row bg="bg.muted">
            {selection ? (
              <Table.ColumnHeader w="8">
                <Checkbox.Root
                  size="sm"
                  checked={shownSelected === 0 ? false : shownSelected === accounts.length ? true : 'indeterminate'}
                  onCheckedChange={(details) => selection.onChange(accounts.map((a) => a.id), details.checked === true)}
                  aria-label="Select the accounts shown"
                >
                  <Checkbox.HiddenInput />
                  <Checkbox.Control />
                </Checkbox.Root>
              </Table.ColumnHeader>
            ) : null}
            <Table.ColumnHeader>Name</Table.ColumnHeader>
            <Table.ColumnHeader>Email</Table.ColumnHeader>
            <Table.ColumnHeader>Username</Table.ColumnHeader>
            {showPasswords ? <Table.ColumnHeader>Password</Table.ColumnHeader> : null}
            {showProject ? <Table.ColumnHeader>Project</Table.ColumnHeader> : null}
            <Table.ColumnHeader hideBelow="md">Status</Table.ColumnHeader>
            <Table.ColumnHeader>E-mail</Table.ColumnHeader>
            <Table.ColumnHeader>Created</Table.ColumnHeader>
            {action ? (
              <Table.ColumnHeader position="sticky" insetInlineEnd="0" bg="bg.muted" zIndex="2">
                <Text srOnly>Actions</Text>
              </Table.ColumnHeader>
            ) : null}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {accounts.map((account) => (
            <Table.Row key={account.id}>
              {selection ? (
                <Table.Cell>
                  <Checkbox.Root size="sm" checked={selection.selected.has(account.id)} onCheckedChange={(details) => selection.onChange([account.id], details.checked === true)} aria-label={`Select ${account.firstName} ${account.lastName}`}>
                    <Checkbox.HiddenInput />
                    <Checkbox.Control />
                  </Checkbox.Root>
                </Table.Cell>
              ) : null}
              <Table.Cell whiteSpace="nowrap" fontWeight="medium">
                {account.firstName} {account.lastName}
                {/* On a phone the status column is off to the side: the status (and why it failed) shows here. */}
                <Box hideFrom="md" mt="1" fontWeight="normal">
                  <AccountStatusBadge status={account.externalStatus} error={account.externalError} />
                  <LifecycleNote account={account} />
                  <PlatformChangeNote account={account} />
                </Box>
              </Table.Cell>
              <Table.Cell>
                <Text wordBreak="break-all" minW="36">
                  {account.email}
                </Text>
              </Table.Cell>
              <Table.Cell>
                <Code variant="surface">{account.username}</Code>
              </Table.Cell>
              {showPasswords ? (
                <Table.Cell>
                  <Code variant="surface" whiteSpace="nowrap">
                    {account.password ?? '—'}
                  </Code>
                </Table.Cell>
              ) : null}
              {showProject ? <Table.Cell whiteSpace="nowrap">{account.projectName}</Table.Cell> : null}
              <Table.Cell hideBelow="md">
                <AccountStatusBadge status={account.externalStatus} error={account.externalError} />
                <LifecycleNote account={account} />
                <PlatformChangeNote account={account} />
              </Table.Cell>
              <Table.Cell>
                <EmailStatusBadge status={account.emailStatus} error={account.emailError} />
                {account.emailSentToPreviousAddress ? (
                  <Text fontSize="xs" color="fg.muted" mt="1" minW="28">
                    To the previous address
                  </Text>
                ) : null}
              </Table.Cell>
              <Table.Cell whiteSpace="nowrap" color="fg.muted">
                {formatDate(account.createdAt)}
                {account.credentialsViewedAt ? <CredentialsViewedMarker at={account.credentialsViewedAt} /> : null}
              </Table.Cell>
              {action ? (
                // Kept in view at the row's end while the table scrolls sideways (a phone): the row's actions are always one tap away.
                <Table.Cell whiteSpace="nowrap" position="sticky" insetInlineEnd="0" bg="bg" zIndex="1">
                  {action(account)}
                </Table.Cell>
              ) : null}
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </ScrollTable>
  );
}

/** An account edited here after it was provisioned: the platform does not have the change yet (never shown as Synced alone). */
function PlatformChangeNote({ account }: { account: AccountView }) {
  if (!account.platformChange) return null;
  return (
    <Text fontSize="xs" color="fg.warning" mt="1" minW="40" maxW="60" whiteSpace="normal">
      {account.platformChange.text}
    </Text>
  );
}

/** Deactivated here (and on its platform, where it is one; 'Expired' when its project's expiry did it), and the last action its platform refused, in its words. */
function LifecycleNote({ account }: { account: AccountView }) {
  if (account.isActive && !account.actionError) return null;
  return (
    <Box mt="1">
      {account.isActive ? null : (
        <Badge colorPalette="gray" variant="outline">
          {account.expiredAt ? 'Expired' : 'Deactivated'}
        </Badge>
      )}
      {account.actionError ? (
        <Text fontSize="xs" color="fg.error" mt="1" minW="40" maxW="60" whiteSpace="normal" overflowWrap="anywhere">
          {account.actionError}
        </Text>
      ) : null}
    </Box>
  );
}
