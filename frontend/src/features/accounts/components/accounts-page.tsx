import { Badge, Button, Card, CloseButton, Field, Flex, HStack, Input, InputGroup, NativeSelect, SimpleGrid, Spinner, Stack, Text } from '@chakra-ui/react';
import { DatabaseIcon, FilterIcon, KeyRoundIcon, MailIcon, PowerIcon, PowerOffIcon, RefreshCwIcon, SearchIcon, SearchXIcon, Trash2Icon, XIcon } from 'lucide-react';
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
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
import { DirectoryActionDialog, directoryActionWords, type DirectoryTarget } from './directory-action-dialog';
import type { DirectoryAction } from '@shared/schemas/directory-actions';
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

/** "All N matching" in the badge's terms: exact, an upper bound, or a lower bound (a term with more hits). */
function matchingText(count: number, countIs: 'exact' | 'at-most' | 'at-least'): string {
  if (countIs === 'at-most') return `All matching (up to ${number.format(count)})`;
  if (countIs === 'at-least') return `All matching (${number.format(count)}+)`;
  return `All ${number.format(count)} matching`;
}

export function AccountsPage() {
  const [term, setTerm] = useState('');
  const [showPasswords, setShowPasswords] = useState(false);
  const [sort, setSort] = useState<DirectorySort>('date');
  const [filters, setFilters] = useState<DirectoryFilters>({});
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [attributeValue, setAttributeValue] = useState('');
  const panelId = useId();
  const [searchTerm, flushTerm] = useDebouncedValue(term.trim(), SEARCH_DEBOUNCE_MS);
  const [typedValue, flushValue] = useDebouncedValue(attributeValue.trim(), SEARCH_DEBOUNCE_MS);
  // A filter or sort chosen while a term is still being typed applies with the term as typed: the
  // rows (and a selection made on them) never belong to the filter over the term before it.
  const applyTyped = () => {
    flushTerm();
    flushValue();
  };
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
    applyTyped();
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

  // Selection: the rows ticked, or every account matching the filters and term ("all N matching"),
  // which the action takes as they match when it starts (docs/jobs.md). A new search or filter clears it.
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const [acting, setActing] = useState<{ action: DirectoryAction; target: DirectoryTarget }>();
  const selectionKey = JSON.stringify({ searchTerm, filters });
  const [selectionOf, setSelectionOf] = useState(selectionKey);
  if (selectionOf !== selectionKey) {
    setSelectionOf(selectionKey);
    setSelected(new Set());
    setAllMatching(false);
  }
  const clearSelection = () => {
    setSelected(new Set());
    setAllMatching(false);
  };
  const ticked = allMatching ? new Set(accounts.map((a) => a.id)) : selected;
  const onSelect = (ids: string[], checked: boolean) => {
    setAllMatching(false);
    setSelected(() => {
      const next = new Set(ticked);
      for (const id of ids) {
        if (checked) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  };
  const act = (action: DirectoryAction) => {
    const matching = { sort, ...(searchTerm ? { q: searchTerm } : {}), ...Object.fromEntries(Object.entries(filters).filter(([, value]) => typeof value === 'string' && value)) };
    setActing({ action, target: allMatching && current ? { matching, count: current.count, countIs: current.countIs } : { accounts: accounts.filter((a) => selected.has(a.id)) } });
  };
  const bulkActions: { action: DirectoryAction; icon: ReactNode; danger?: boolean }[] = [
    { action: 'send', icon: <MailIcon aria-hidden="true" /> },
    { action: 'reset', icon: <KeyRoundIcon aria-hidden="true" /> },
    { action: 'retry', icon: <RefreshCwIcon aria-hidden="true" /> },
    { action: 'deactivate', icon: <PowerOffIcon aria-hidden="true" /> },
    { action: 'reactivate', icon: <PowerIcon aria-hidden="true" /> },
    { action: 'delete', icon: <Trash2Icon aria-hidden="true" />, danger: true },
  ];

  const setFilter = (name: FilterName, value: string) => {
    applyTyped();
    setFilters((before) => ({ ...before, [name]: value || undefined }));
  };
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
                    <NativeSelect.Field aria-label="Sort accounts" value={sort} onChange={(event) => {
                        applyTyped();
                        setSort(event.target.value as DirectorySort);
                      }}>
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
            {allMatching || selected.size > 0 ? (
              // The bulk bar: in the page's flow, wrapping on a phone.
              <Flex role="region" aria-label="Selected accounts" gap="2" align="center" wrap="wrap" borderWidth="1px" borderRadius="md" p="2" bg="bg.muted" minW="0">
                <Text fontSize="sm" fontWeight="medium">
                  {allMatching && current ? `${matchingText(current.count, current.countIs)} selected` : `${plural(selected.size, 'account')} selected`}
                </Text>
                {!allMatching && current && (current.count > selected.size || current.countIs !== 'exact') ? (
                  <Button size="xs" variant="plain" color="blue.fg" onClick={() => setAllMatching(true)}>
                    Select {matchingText(current.count, current.countIs).toLowerCase()}
                  </Button>
                ) : null}
                <HStack gap="1" wrap="wrap" ms={{ md: 'auto' }} minW="0">
                  {bulkActions.map(({ action, icon, danger }) => (
                    <Button key={action} size="xs" variant="outline" {...(danger ? { colorPalette: 'red' } : {})} onClick={() => act(action)}>
                      {icon}
                      {directoryActionWords[action].label}
                    </Button>
                  ))}
                  <Button size="xs" variant="ghost" onClick={clearSelection}>
                    <XIcon aria-hidden="true" />
                    Clear
                  </Button>
                </HStack>
              </Flex>
            ) : null}
            <AccountTable
              accounts={accounts}
              showPasswords={showPasswords}
              showProject
              caption={searchTerm ? `Accounts matching ${searchTerm}` : 'Accounts'}
              selection={{ selected: ticked, onChange: onSelect }}
              action={(account) => <AccountRowActions account={account} {...(plan === 'pro' ? { onSendCredentials: sendToNewAddress } : {})} />}
            />
            <LoadMoreBar shown={accounts.length} total={current && current.countIs !== 'at-least' ? current.count : accounts.length} hasMore={Boolean(hasNextPage)} loading={isFetchingNextPage} onLoadMore={() => void fetchNextPage()} />
          </Stack>
        )}
      </Stack>
      {acting ? <DirectoryActionDialog action={acting.action} target={acting.target} onStarted={clearSelection} onClose={() => setActing(undefined)} /> : null}
    </>
  );
}
