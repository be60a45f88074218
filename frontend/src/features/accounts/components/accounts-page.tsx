import { Badge, Card, Flex, HStack, Input, InputGroup, Spinner, Stack } from '@chakra-ui/react';
import { DatabaseIcon, SearchIcon, SearchXIcon } from 'lucide-react';
import { useState } from 'react';
import type { AccountView } from '@shared/schemas/project';
import { AccountTable } from '../../../components/account-table';
import { AccountRowActions } from '../../../components/account-row-actions';
import { useSendCredentials } from '../../../lib/mail-sends-api';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { ListSkeleton } from '../../../components/list-skeleton';
import { PageHeader } from '../../../components/page-header';
import { PasswordVisibilityButton } from '../../../components/password-visibility-button';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useAccountSearchQuery } from '../api/account-search-api';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { plural } from '@shared/text/plural';

const SEARCH_DEBOUNCE_MS = 250;
const count = new Intl.NumberFormat();

export function AccountsPage() {
  const [term, setTerm] = useState('');
  const [showPasswords, setShowPasswords] = useState(false);
  const searchTerm = useDebouncedValue(term.trim(), SEARCH_DEBOUNCE_MS);
  const search = useAccountSearchQuery(searchTerm, showPasswords);
  const active = searchTerm.length > 0;
  // The results on screen belong to the term typed (not to the previous one kept while loading).
  const current = active && search.data && !search.isPlaceholderData ? search.data : undefined;
  const plan = useEffectivePlan();
  const send = useSendCredentials();
  // After an e-mail change, 'Send credentials' sends this one account's with the user's default
  // template, the password in the e-mail (the project page's send dialog offers the choices).
  const sendToNewAddress = (account: AccountView) => send.mutate({ projectId: account.projectId, scope: 'account', accountId: account.id, delivery: 'password' });

  return (
    <>
      <PageHeader title="Account Database" subtitle="Search all the accounts you have created." />
      <Stack gap="6">
        <Card.Root variant="outline">
          <Card.Body>
            <Flex gap="3" direction={{ base: 'column', md: 'row' }} align={{ base: 'stretch', md: 'center' }}>
              <InputGroup
                flex="1"
                startElement={<SearchIcon size={16} aria-hidden="true" />}
                endElement={active && search.isFetching ? <Spinner size="xs" /> : undefined}
              >
                <Input
                  type="search"
                  aria-label="Search accounts"
                  placeholder="Search by name, email, or username..."
                  value={term}
                  onChange={(event) => setTerm(event.target.value)}
                />
              </InputGroup>
              <HStack gap="3" justify="space-between">
                <Badge
                  size="lg"
                  variant="subtle"
                  colorPalette="blue"
                  aria-live="polite"
                  visibility={current ? 'visible' : 'hidden'}
                >
                  {plural(current?.count ?? 0, 'result')}
                </Badge>
                <PasswordVisibilityButton shown={showPasswords} onToggle={() => setShowPasswords((shown) => !shown)} />
              </HStack>
            </Flex>
          </Card.Body>
        </Card.Root>
        {!active ? (
          <EmptyStateCard
            icon={<DatabaseIcon />}
            title="Search your accounts"
            description="Type a first name, last name, e-mail or username to find accounts across all your projects."
          />
        ) : search.isError ? (
          <QueryErrorCard
            message="Failed to search accounts."
            onRetry={() => void search.refetch()}
            retrying={search.isFetching}
          />
        ) : !search.data ? (
          <ListSkeleton rows={5} label="Searching accounts" />
        ) : search.data.items.length === 0 && !search.isPlaceholderData ? (
          <EmptyStateCard
            icon={<SearchXIcon />}
            title="No accounts found"
            description={`No account matches "${searchTerm}".`}
          />
        ) : (
          <Stack gap="2" opacity={search.isPlaceholderData ? 0.6 : 1}>
            <AccountTable
              accounts={search.data.items}
              showPasswords={showPasswords}
              showProject
              caption={`Accounts matching ${searchTerm}`}
              action={(account) => <AccountRowActions account={account} {...(plan === 'pro' ? { onSendCredentials: sendToNewAddress } : {})} />}
            />
            {search.data.count > search.data.items.length ? (
              <Flex fontSize="sm" color="fg.muted">
                Showing the first {count.format(search.data.items.length)} of {count.format(search.data.count)}. Type
                more of the name to narrow it down.
              </Flex>
            ) : null}
          </Stack>
        )}
      </Stack>
    </>
  );
}
