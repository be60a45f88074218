import { Badge, Button, Card, CloseButton, Field, Flex, HStack, Input, InputGroup, NativeSelect, SimpleGrid, Spinner, Stack, Text } from '@chakra-ui/react';
import { DatabaseIcon, FilterIcon, SearchIcon, SearchXIcon } from 'lucide-react';
import { useEffect, useId, useMemo, useState } from 'react';
import {
  accountStateFilterLabels,
  accountStateFilters,
  directoryFilterNames,
  emailStatusFilterLabels,
  emailStatusFilters,
  platformStatusFilterLabels,
  platformStatusFilters,
  type DirectoryFilters,
  type DirectorySort,
} from '@shared/schemas/account-directory';
import { accountTypes } from '@shared/schemas/bulk';
import type { AccountView } from '@shared/schemas/project';
import { AccountTable } from '../../../components/account-table';
import { AccountRowActions } from '../../../components/account-row-actions';
import { useSendCredentials } from '../../../lib/mail-sends-api';
import { useProjectsQuery } from '../../../lib/projects-api';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { ListSkeleton } from '../../../components/list-skeleton';
import { LoadMoreBar } from '../../../components/load-more-bar';
import { PageHeader } from '../../../components/page-header';
import { PasswordVisibilityButton } from '../../../components/password-visibility-button';
import { QueryErrorCard } from '../../../components/query-error-card';
import { DIRECTORY_PAGE_SIZE, useAccountDirectoryQuery } from '../api/account-directory-api';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { ExportAllDialog } from './export-all-dialog';
import { plural } from '@shared/text/plural';
import { attributeLabel, orderedAttributeKeys } from '@shared/schemas/attributes';

const SEARCH_DEBOUNCE_MS = 250;
/** Pages fetched on their own to fill the first screen when a filter matches few of the accounts a page passes over. */
const AUTO_PAGES = 12;
const number = new Intl.NumberFormat('en-US');

const sortLabels: Record<DirectorySort, string> = { date: 'Newest first', name: 'Name', project: 'Project' };

type FilterName = (typeof directoryFilterNames)[number];
const filterLabels: Record<FilterName, string> = {
  projectId: 'Project',
  accountType: 'Account type',
  platformStatus: 'Platform status',
  emailStatus: 'E-mail status',
  state: 'Status',
  createdFrom: 'Created from',
  createdTo: 'Created to',
  expiresFrom: 'Expires from',
  expiresTo: 'Expires to',
  attributeName: 'Column',
  attributeValue: 'Value',
};
/** The Attribute filter is one chip ('Department: Sales'), sent only with both halves. */
const attributeFilterNames: readonly FilterName[] = ['attributeName', 'attributeValue'];

function countText(count: number, countIs: 'exact' | 'at-most' | 'at-least'): string {
  if (countIs === 'at-most') return `Up to ${plural(count, 'result')}`;
  if (countIs === 'at-least') return `${number.format(count)}+ results`;
  return plural(count, 'result');
}

export function AccountsPage() {
  const [term, setTerm] = useState('');
  const [showPasswords, setShowPasswords] = useState(false);
  const [sort, setSort] = useState<DirectorySort>('date');
  const [filters, setFilters] = useState<DirectoryFilters>({});
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [attributeValue, setAttributeValue] = useState('');
  const panelId = useId();
  const searchTerm = useDebouncedValue(term.trim(), SEARCH_DEBOUNCE_MS);
  const typedValue = useDebouncedValue(attributeValue.trim(), SEARCH_DEBOUNCE_MS);
  // The Attribute filter applies once a column is chosen and a value typed.
  const applied: DirectoryFilters = useMemo(() => {
    const { attributeName, attributeValue: _typed, ...rest } = filters;
    return attributeName && typedValue ? { ...rest, attributeName, attributeValue: typedValue } : rest;
  }, [filters, typedValue]);
  const directory = useAccountDirectoryQuery({ term: searchTerm, sort, filters: applied, showPasswords });
  const projects = useProjectsQuery();
  // The columns the user's accounts carry (department, title...): each project keeps its own.
  const columns = useMemo(() => orderedAttributeKeys((projects.data ?? []).flatMap((project) => project.attributeKeys ?? [])), [projects.data]);
  const plan = useEffectivePlan();
  const send = useSendCredentials();
  // After an e-mail change, 'Send credentials' sends this one account's with the user's default
  // template, the password in the e-mail (the project page's send dialog offers the choices).
  const sendToNewAddress = (account: AccountView) => send.mutate({ projectId: account.projectId, scope: 'account', accountId: account.id, delivery: 'password' });

  const pages = useMemo(() => directory.data?.pages ?? [], [directory.data]);
  const accounts = useMemo(() => pages.flatMap((page) => page.items), [pages]);
  const first = pages[0];
  const current = first && !directory.isPlaceholderData ? first : undefined;
  const activeFilters = directoryFilterNames.filter((name) => applied[name] && !attributeFilterNames.includes(name));
  const attributeChip = applied.attributeName ? `${attributeLabel(applied.attributeName)}: ${applied.attributeValue}` : undefined;
  const clearAttribute = () => {
    setFilters((before) => ({ ...before, attributeName: undefined }));
    setAttributeValue('');
  };
  const narrowed = searchTerm.length > 0 || activeFilters.length > 0 || !!attributeChip;
  const filterCount = activeFilters.length + (attributeChip ? 1 : 0);

  // A filter that matches few accounts can answer a page with fewer rows (each request reads a
  // bounded number): the next pages are asked for at once until the screen has a page's worth.
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isPlaceholderData } = directory;
  useEffect(() => {
    if (!isPlaceholderData && hasNextPage && !isFetchingNextPage && accounts.length < DIRECTORY_PAGE_SIZE && pages.length < AUTO_PAGES) void fetchNextPage();
  }, [accounts.length, pages.length, hasNextPage, isFetchingNextPage, isPlaceholderData, fetchNextPage]);

  const setFilter = (name: FilterName, value: string) => setFilters((before) => ({ ...before, [name]: value || undefined }));
  const chipValue = (name: FilterName): string => {
    const value = filters[name] ?? '';
    if (name === 'projectId') return projects.data?.find((project) => project.id === value)?.name ?? 'Unknown project';
    if (name === 'platformStatus') return platformStatusFilterLabels[value as keyof typeof platformStatusFilterLabels];
    if (name === 'emailStatus') return emailStatusFilterLabels[value as keyof typeof emailStatusFilterLabels];
    if (name === 'state') return accountStateFilterLabels[value as keyof typeof accountStateFilterLabels];
    return value;
  };

  const select = (name: FilterName, options: { value: string; label: string }[]) => (
    <Field.Root>
      <Field.Label>{filterLabels[name]}</Field.Label>
      <NativeSelect.Root size="sm">
        <NativeSelect.Field value={filters[name] ?? ''} onChange={(event) => setFilter(name, event.target.value)}>
          <option value="">Any</option>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
    </Field.Root>
  );
  const dateField = (name: FilterName) => (
    <Field.Root>
      <Field.Label>{filterLabels[name]}</Field.Label>
      <Input size="sm" type="date" value={filters[name] ?? ''} onChange={(event) => setFilter(name, event.target.value)} />
    </Field.Root>
  );

  return (
    <>
      <PageHeader title="Account Database" subtitle="Browse, filter and search all the accounts you have created." />
      <Stack gap="6">
        <Card.Root variant="outline">
          <Card.Body>
            <Stack gap="4">
              <Flex gap="3" direction={{ base: 'column', '2xl': 'row' }} align={{ base: 'stretch', '2xl': 'center' }}>
                <InputGroup flex="1" startElement={<SearchIcon size={16} aria-hidden="true" />} endElement={directory.isFetching ? <Spinner size="xs" /> : undefined}>
                  <Input type="search" aria-label="Search accounts" placeholder="Search by name, email, or username..." value={term} onChange={(event) => setTerm(event.target.value)} />
                </InputGroup>
                <HStack gap="3" justify={{ base: 'flex-start', '2xl': 'flex-end' }} wrap="wrap">
                  <Badge size="lg" variant="subtle" colorPalette="blue" aria-live="polite" visibility={current ? 'visible' : 'hidden'}>
                    {current ? countText(current.count, current.countIs) : plural(0, 'result')}
                  </Badge>
                  <NativeSelect.Root size="sm" width="auto">
                    <NativeSelect.Field aria-label="Sort accounts" value={sort} onChange={(event) => setSort(event.target.value as DirectorySort)}>
                      {Object.entries(sortLabels).map(([value, label]) => (
                        <option key={value} value={value}>
                          {label}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                  <Button variant="outline" size="sm" aria-expanded={filtersOpen} aria-controls={panelId} onClick={() => setFiltersOpen((open) => !open)}>
                    <FilterIcon aria-hidden="true" /> Filters{filterCount ? ` (${filterCount})` : ''}
                  </Button>
                  <PasswordVisibilityButton shown={showPasswords} onToggle={() => setShowPasswords((shown) => !shown)} />
                  <ExportAllDialog term={searchTerm} sort={sort} filters={applied} countText={current ? countText(current.count, current.countIs).toLowerCase() : 'the accounts shown'} />
                </HStack>
              </Flex>
              {filtersOpen ? (
                <Stack id={panelId} role="group" aria-label="Filters" gap="3" borderTopWidth="1px" pt="4">
                  <SimpleGrid columns={{ base: 1, sm: 2, lg: 3 }} gap="3">
                    {select('projectId', (projects.data ?? []).map((project) => ({ value: project.id, label: project.name })))}
                    {select('accountType', accountTypes.map((type) => ({ value: type, label: type })))}
                    {select('platformStatus', platformStatusFilters.map((value) => ({ value, label: platformStatusFilterLabels[value] })))}
                    {select('emailStatus', emailStatusFilters.map((value) => ({ value, label: emailStatusFilterLabels[value] })))}
                    {select('state', accountStateFilters.map((value) => ({ value, label: accountStateFilterLabels[value] })))}
                  </SimpleGrid>
                  <SimpleGrid columns={{ base: 2, lg: 4 }} gap="3">
                    {dateField('createdFrom')}
                    {dateField('createdTo')}
                    {dateField('expiresFrom')}
                    {dateField('expiresTo')}
                  </SimpleGrid>
                  {columns.length ? (
                    <SimpleGrid columns={{ base: 1, sm: 2 }} gap="3">
                      <Field.Root>
                        <Field.Label>Attribute</Field.Label>
                        <NativeSelect.Root size="sm">
                          <NativeSelect.Field value={filters.attributeName ?? ''} onChange={(event) => setFilter('attributeName', event.target.value)}>
                            <option value="">Any column</option>
                            {columns.map((key) => (
                              <option key={key} value={key}>
                                {attributeLabel(key)}
                              </option>
                            ))}
                          </NativeSelect.Field>
                          <NativeSelect.Indicator />
                        </NativeSelect.Root>
                      </Field.Root>
                      <Field.Root disabled={!filters.attributeName}>
                        <Field.Label>Attribute value</Field.Label>
                        <Input size="sm" placeholder={filters.attributeName ? `Exact ${attributeLabel(filters.attributeName).toLowerCase()}` : 'Choose a column first'} value={attributeValue} onChange={(event) => setAttributeValue(event.target.value)} />
                        <Field.HelperText>The whole value, in any case.</Field.HelperText>
                      </Field.Root>
                    </SimpleGrid>
                  ) : null}
                </Stack>
              ) : null}
              {filterCount ? (
                <HStack gap="2" wrap="wrap">
                  <HStack gap="2" wrap="wrap" aria-label="Active filters" role="list">
                    {attributeChip ? (
                      <Badge role="listitem" size="lg" variant="surface" colorPalette="gray" pe="0">
                        {attributeChip}
                        <CloseButton size="2xs" aria-label={`Remove filter ${attributeChip}`} onClick={clearAttribute} />
                      </Badge>
                    ) : null}
                    {activeFilters.map((name) => (
                      <Badge key={name} role="listitem" size="lg" variant="surface" colorPalette="gray" pe="0">
                        {filterLabels[name]}: {chipValue(name)}
                        <CloseButton size="2xs" aria-label={`Remove filter ${filterLabels[name]}: ${chipValue(name)}`} onClick={() => setFilter(name, '')} />
                      </Badge>
                    ))}
                  </HStack>
                  <Button
                    variant="plain"
                    size="xs"
                    onClick={() => {
                      setFilters({});
                      setAttributeValue('');
                    }}
                  >
                    Clear all
                  </Button>
                </HStack>
              ) : null}
            </Stack>
          </Card.Body>
        </Card.Root>
        {directory.isError ? (
          <QueryErrorCard message="Failed to load accounts." onRetry={() => void directory.refetch()} retrying={directory.isFetching} />
        ) : !first ? (
          <ListSkeleton rows={5} label="Loading accounts" />
        ) : accounts.length === 0 && !directory.isPlaceholderData && !hasNextPage && !isFetchingNextPage ? (
          narrowed ? (
            <EmptyStateCard
              icon={<SearchXIcon />}
              title="No accounts found"
              description={searchTerm ? `No account matches "${searchTerm}"${filterCount ? ' with these filters' : ''}.` : 'No account matches these filters.'}
            />
          ) : (
            <EmptyStateCard icon={<DatabaseIcon />} title="No accounts yet" description="The accounts you create in your projects appear here, from every project." />
          )
        ) : accounts.length === 0 ? (
          <ListSkeleton rows={5} label="Loading accounts" />
        ) : (
          <Stack gap="2" opacity={directory.isPlaceholderData ? 0.6 : 1}>
            <AccountTable
              accounts={accounts}
              showPasswords={showPasswords}
              showProject
              caption={searchTerm ? `Accounts matching ${searchTerm}` : 'Accounts'}
              action={(account) => <AccountRowActions account={account} {...(plan === 'pro' ? { onSendCredentials: sendToNewAddress } : {})} />}
            />
            {searchTerm && current?.countIs === 'at-least' ? (
              <Text fontSize="sm" color="fg.muted">
                Showing the first {number.format(accounts.length)} matches. Type more of the name to narrow it down.
              </Text>
            ) : (
              <LoadMoreBar shown={accounts.length} total={current?.count ?? accounts.length} hasMore={Boolean(hasNextPage)} loading={isFetchingNextPage} onLoadMore={() => void fetchNextPage()} />
            )}
          </Stack>
        )}
      </Stack>
    </>
  );
}
