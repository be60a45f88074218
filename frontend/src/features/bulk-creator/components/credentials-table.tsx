import { Code, Table, Text } from '@chakra-ui/react';
import type { CredentialRow } from '../lib/created-accounts-csv';
import { ScrollTable } from '../../../components/scroll-table';

const MASK = '••••••••••••';

/** Created accounts with their credentials; passwords masked until the user shows them. */
export function CredentialsTable({
  rows,
  showPasswords,
  caption,
  maxH,
}: {
  rows: readonly CredentialRow[];
  showPasswords: boolean;
  caption: string;
  maxH?: string;
}) {
  return (
    <ScrollTable label={caption} borderWidth="1px" borderRadius="md" maxH={maxH}>
      <Table.Root size="sm" stickyHeader>
        <Table.Caption srOnly>{caption}</Table.Caption>
        <Table.Header>
          <Table.Row bg="bg.muted">
            <Table.ColumnHeader>Name</Table.ColumnHeader>
            <Table.ColumnHeader>Email</Table.ColumnHeader>
            <Table.ColumnHeader>Username</Table.ColumnHeader>
            <Table.ColumnHeader>Password</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((row) => (
            <Table.Row key={row.id}>
              <Table.Cell whiteSpace="nowrap">
                {row.firstName} {row.lastName}
              </Table.Cell>
              <Table.Cell>
                <Text wordBreak="break-all" minW="36">
                  {row.email}
                </Text>
              </Table.Cell>
              <Table.Cell>
                <Code variant="surface">{row.username}</Code>
              </Table.Cell>
              <Table.Cell>
                {showPasswords ? (
                  <Code variant="surface" whiteSpace="nowrap">
                    {row.password ?? '—'}
                  </Code>
                ) : (
                  <Text as="span" color="fg.muted" aria-label="Password hidden" letterSpacing="wider">
                    {MASK}
                  </Text>
                )}
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </ScrollTable>
  );
}
