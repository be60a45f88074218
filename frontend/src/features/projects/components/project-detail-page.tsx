import { Alert, Badge, Button, Card, Flex, HStack, Link, Menu, Portal, Spinner, Stack, Text } from '@chakra-ui/react';
import { ArrowLeftIcon, ChevronDownIcon, DownloadIcon, KeyRoundIcon, ListChecksIcon, MailIcon, PowerIcon, PowerOffIcon, Trash2Icon, UsersIcon, XIcon } from 'lucide-react';
import { useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import type { AccountView, Project } from '@shared/schemas/project';
import { accountFilterLabels, accountFilters, type AccountFilter } from '@shared/schemas/account-selection';
import { AccountTable } from '../../../components/account-table';
import { AccountRowActions } from '../../../components/account-row-actions';
import { AccountActionDialog, type ActionTarget, type BulkAction } from '../../../components/account-action-dialog';
import { useSelectionCountQuery } from '../../../lib/account-actions-api';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { ListSkeleton } from '../../../components/list-skeleton';
import { PageHeader } from '../../../components/page-header';
import { PasswordVisibilityButton } from '../../../components/password-visibility-button';
import { ProjectStatusBadge } from '../../../components/project-status-badge';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDate } from '../../../lib/format-date';
import { EXPORT_CENTER_PATH, useExportProject, useProjectAccountsQuery, useProjectsQuery } from '../../../lib/projects-api';
import { platformHost } from './project-card';
import { ProjectProvisioning } from './project-provisioning';
import { ProjectActions } from './project-actions';
import { ProjectEmails, SendCredentialsFlow, type SendTarget } from './project-emails';
import { LoadMoreBar } from '../../../components/load-more-bar';
import { plural } from '@shared/text/plural';
import { DeleteProjectButton, ProjectDeletionProgress, useFollowedProjectDeletion } from './project-delete';

const count = new Intl.NumberFormat();

/** /projects/{id}: the project's facts and its accounts, 50 at a time. */
export function ProjectDetailPage() {
  const { projectId = '' } = useParams();
  const projects = useProjectsQuery();
  const project = projects.data?.find((candidate) => candidate.id === projectId);
  const exportProject = useExportProject();
  const [sending, setSending] = useState<SendTarget>();
  const deletion = useFollowedProjectDeletion(projectId);

  const backLink = (
    <Link asChild fontSize="sm" color="fg.muted" mb="3">
      <RouterLink to="/projects">
        <ArrowLeftIcon size={14} aria-hidden="true" />
        All projects
      </RouterLink>
    </Link>
  );

  if (projects.isPending) {
    return (
      <>
        {backLink}
        <ListSkeleton rows={4} height="12" label="Loading project" />
      </>
    );
  }
  if (projects.isError) {
    return (
      <>
        {backLink}
        <QueryErrorCard
          message="Failed to load the project."
          onRetry={() => void projects.refetch()}
          retrying={projects.isFetching}
        />
      </>
    );
  }
  if (!project && deletion.following) {
    // The deletion started here is ending: the list read meanwhile no longer holds the project.
    // Said in words (not a bare skeleton) until the page leaves for Projects with the toast.
    return (
      <>
        {backLink}
        <Card.Root variant="outline" role="status" aria-label="Deleting the project" aria-busy="true">
          <Card.Body>
            <HStack gap="3">
              <Spinner size="sm" color="fg.muted" aria-hidden="true" />
              <Stack gap="0">
                <Text fontWeight="medium">Deleting...</Text>
                <Text fontSize="sm" color="fg.muted">
                  The project's accounts are removed. You will be taken back to Projects when it is done.
                </Text>
              </Stack>
            </HStack>
          </Card.Body>
        </Card.Root>
      </>
    );
  }
  if (!project) {
    return (
      <>
        {backLink}
        <EmptyStateCard
          icon={<UsersIcon />}
          title="Project not found"
          description="This project does not exist or belongs to another account."
          action={
            <Button asChild colorPalette="blue">
              <RouterLink to="/projects">Back to projects</RouterLink>
            </Button>
          }
        />
      </>
    );
  }

  const host = platformHost(project.platformUrl);
  return (
    <>
      {backLink}
      <PageHeader
        title={project.name}
        subtitle={project.description || `${project.accountType} accounts`}
        actions={
          <HStack gap="2" wrap="wrap">
            <ProjectActions project={project} />
            <Button
              variant="outline"
              onClick={() => exportProject.mutate(project)}
              loading={exportProject.isPending}
              loadingText="Exporting..."
            >
              <DownloadIcon aria-hidden="true" />
              Export CSV
            </Button>
            <DeleteProjectButton project={project} />
          </HStack>
        }
      />
      <Stack gap="6">
        {exportProject.data?.kind === 'export-center' ? (
          // The toast goes after 5 s; the reason and the way to the file stay here (narrow and on
          // the left, clear of the toast in the top right corner).
          <Alert.Root status="info" role="status" maxW="xl">
            <Alert.Indicator />
            <Alert.Content gap="1">
              <Alert.Description>{exportProject.data.reason}</Alert.Description>
              <Link asChild color="blue.fg" fontWeight="medium" fontSize="sm" alignSelf="flex-start">
                <RouterLink to={EXPORT_CENTER_PATH}>Open the Export Center</RouterLink>
              </Link>
            </Alert.Content>
          </Alert.Root>
        ) : null}
        <HStack gap="3" wrap="wrap" fontSize="sm" color="fg.muted">
          <ProjectStatusBadge status={project.status} expiredAt={project.expiredAt} />
          <Text>{plural(project.accountCount, 'account')}</Text>
          <Text aria-hidden="true">·</Text>
          <Text>{project.successRate}% success rate</Text>
          <Text aria-hidden="true">·</Text>
          <Text>Created {formatDate(project.createdAt)}</Text>
          {project.expirationDate ? (
            <>
              <Text aria-hidden="true">·</Text>
              <Text>{project.expiredAt ? 'Expired' : 'Expires'} {formatDate(project.expirationDate)}</Text>
            </>
          ) : null}
          {project.remindersSent ? (
            <>
              <Text aria-hidden="true">·</Text>
              <Text>{plural(project.remindersSent, 'expiry reminder')} sent</Text>
            </>
          ) : null}
          {host ? (
            <>
              <Text aria-hidden="true">·</Text>
              <Text>{host}</Text>
            </>
          ) : null}
        </HStack>
        {project.groups?.length ? (
          <HStack gap="2" wrap="wrap" fontSize="sm" aria-label="Groups on the platform" role="group">
            <Text color="fg.muted">Groups on the platform{project.createGroups ? ' (created if missing)' : ''}:</Text>
            {project.groups.map((group) => (
              <Badge key={group} variant="subtle" colorPalette="purple" size="md">
                <UsersIcon aria-hidden="true" size={12} />
                {group}
              </Badge>
            ))}
          </HStack>
        ) : null}
        <ProjectDeletionProgress project={project} showKept />
        <ProjectProvisioning project={project} />
        <ProjectEmails project={project} onSend={setSending} />
        <ProjectAccounts project={project} onSend={(account) => setSending({ scope: 'account', account })} sendDisabled={project.mailSendActive === true} />
      </Stack>
      <SendCredentialsFlow project={project} target={sending} onClose={() => setSending(undefined)} />
    </>
  );
}

type Shown = 'all' | 'active' | 'deactivated';

/** The bulk bar's filters besides the ticked rows: their count now, from the project's exact counters (Active and Deactivated: from its deactivatedCount, or counted by the server when asked for a project older than it). */
const counterCounts = (project: Project) => ({
  all: project.accountCount,
  failed: project.syncFailedCount,
  synced: project.syncedCount,
  unsent: project.emailCounts.notSent,
  ...(project.deactivatedCount !== undefined ? { active: Math.max(0, project.accountCount - project.deactivatedCount), deactivated: project.deactivatedCount } : {}),
});
const selectedWords: Record<AccountFilter, (n: number) => string> = {
  all: (n) => `All ${plural(n, 'account')} selected`,
  failed: (n) => `${plural(n, 'account')} whose sync failed selected`,
  synced: (n) => `${plural(n, 'account')} on the platform selected`,
  unsent: (n) => `${plural(n, 'account')} never e-mailed selected`,
  active: (n) => `All ${plural(n, 'active account')} selected`,
  deactivated: (n) => `All ${plural(n, 'deactivated account')} selected`,
};

function ProjectAccounts({ project, onSend, sendDisabled }: { project: Project; onSend: (account: AccountView) => void; sendDisabled: boolean }) {
  const projectId = project.id;
  const total = project.accountCount;
  const [showPasswords, setShowPasswords] = useState(false);
  const [selectOpen, setSelectOpen] = useState(false);
  const accounts = useProjectAccountsQuery(projectId, showPasswords);
  const all = accounts.data?.pages.flatMap((page) => page.items) ?? [];
  // Selection: ticked rows, or a filter's accounts of the project (all, sync failed, never
  // e-mailed), the filter evaluated by the job on each account when it reaches it (docs/jobs.md).
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState<AccountFilter>();
  const [shown, setShown] = useState<Shown>('all');
  const [acting, setActing] = useState<{ action: BulkAction; target: ActionTarget }>();
  // The page's own views as sets of the whole project: the project's counters, or (a project older than them) counted when the Select menu opens or one is chosen.
  const counted = project.deactivatedCount === undefined;
  const activeCount = useSelectionCountQuery(projectId, 'active', counted && (selectOpen || filter === 'active' || shown === 'active'));
  const deactivatedCount = useSelectionCountQuery(projectId, 'deactivated', counted && (selectOpen || filter === 'deactivated' || shown === 'deactivated'));
  const counts: Record<AccountFilter, number | undefined> = { active: activeCount.data?.count, deactivated: deactivatedCount.data?.count, ...counterCounts(project) };
  const loaded = shown === 'all' ? all : all.filter((a) => a.isActive === (shown === 'active'));
  const deactivatedShown = project.deactivatedCount ?? all.filter((a) => !a.isActive).length;
  const filterCount = filter ? counts[filter] : undefined;
  const counting = filter !== undefined && filterCount === undefined;
  const clear = () => {
    setSelected(new Set());
    setFilter(undefined);
  };
  const selectFilter = (next: AccountFilter) => {
    setSelected(new Set());
    setFilter(next);
  };
  // The rows shown ticked under a filter: those loaded here that it takes now.
  const shownBy: Record<AccountFilter, (a: AccountView) => boolean> = { all: () => true, failed: (a) => a.externalStatus === 'failed', synced: (a) => a.externalStatus === 'success', unsent: (a) => !a.emailStatus, active: (a) => a.isActive, deactivated: (a) => !a.isActive };
  const ticked = filter ? new Set(all.filter(shownBy[filter]).map((a) => a.id)) : selected;
  const onSelect = (ids: string[], checked: boolean) => {
    setFilter(undefined);
    setSelected(() => {
      const next = new Set(ticked);
      for (const id of ids) {
        if (checked) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  };
  const act = (action: BulkAction) => setActing({ action, target: filter ? { filter, count: filterCount ?? 0 } : { accounts: all.filter((a) => selected.has(a.id)) } });

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <HStack gap="2">
            <Card.Title as="h2">Accounts</Card.Title>
            <Badge variant="subtle" colorPalette="blue">
              {count.format(total)}
            </Badge>
          </HStack>
          <PasswordVisibilityButton
            shown={showPasswords}
            onToggle={() => setShowPasswords((shown) => !shown)}
            loading={accounts.isPending && showPasswords}
          />
        </Flex>
      </Card.Header>
      <Card.Body gap="4">
        {accounts.isPending ? (
          <ListSkeleton rows={5} label="Loading accounts" />
        ) : accounts.isError ? (
          <QueryErrorCard
            message="Failed to load accounts."
            onRetry={() => void accounts.refetch()}
            retrying={accounts.isFetching}
          />
        ) : all.length === 0 ? (
          <Text color="fg.muted" fontSize="sm" textAlign="center" py="6">
            This project has no accounts.
          </Text>
        ) : (
          <>
            <Flex gap="2" wrap="wrap" justify="space-between" align="center">
              <HStack gap="1" wrap="wrap" role="group" aria-label="Show accounts">
                {(['all', 'active', 'deactivated'] as const).map((option) => (
                  <Button key={option} size="xs" variant={shown === option ? 'subtle' : 'ghost'} aria-pressed={shown === option} onClick={() => setShown(option)}>
                    {option === 'all' ? 'All' : option === 'active' ? 'Active' : `Deactivated${deactivatedShown ? ` (${deactivatedShown})` : ''}`}
                  </Button>
                ))}
              </HStack>
              <Menu.Root positioning={{ placement: 'bottom-end' }} onOpenChange={(details) => setSelectOpen(details.open)} onSelect={(details) => selectFilter(details.value as AccountFilter)}>
                <Menu.Trigger asChild>
                  <Button size="xs" variant="outline">
                    <ListChecksIcon aria-hidden="true" />
                    Select
                    <ChevronDownIcon aria-hidden="true" />
                  </Button>
                </Menu.Trigger>
                <Portal>
                  <Menu.Positioner>
                    <Menu.Content minW="56">
                      {accountFilters.map((option) => (
                        <Menu.Item key={option} value={option} disabled={counts[option] === 0}>
                          <Flex justify="space-between" w="full" gap="4">
                            <span>{accountFilterLabels[option]}</span>
                            <Text as="span" color="fg.muted">
                              {counts[option] === undefined ? '...' : count.format(counts[option])}
                            </Text>
                          </Flex>
                        </Menu.Item>
                      ))}
                    </Menu.Content>
                  </Menu.Positioner>
                </Portal>
              </Menu.Root>
            </Flex>
            {filter || selected.size > 0 ? (
              // The bulk bar: in the card's flow (never under a toast), wrapping on a phone.
              <Flex role="region" aria-label="Selected accounts" gap="2" align="center" wrap="wrap" borderWidth="1px" borderRadius="md" p="2" bg="bg.muted" minW="0">
                <Text fontSize="sm" fontWeight="medium">
                  {filter ? (filterCount === undefined ? `Counting the ${accountFilterLabels[filter].toLowerCase()} accounts...` : selectedWords[filter](filterCount)) : `${plural(selected.size, 'account')} selected`}
                </Text>
                {!filter && shown === 'all' && total > selected.size ? (
                  <Button size="xs" variant="plain" color="blue.fg" onClick={() => selectFilter('all')}>
                    Select all {count.format(total)} in the project
                  </Button>
                ) : null}
                {!filter && shown !== 'all' && counts[shown] !== undefined && (counts[shown] ?? 0) > selected.size ? (
                  // The page's view as the whole project's set: every account in it, not only those loaded.
                  <Button size="xs" variant="plain" color="blue.fg" onClick={() => selectFilter(shown)}>
                    Select all {count.format(counts[shown] ?? 0)} {shown} in the project
                  </Button>
                ) : null}
                <HStack gap="1" wrap="wrap" ms={{ md: 'auto' }} minW="0" aria-busy={counting}>
                  <Button size="xs" variant="outline" onClick={() => act('send')} disabled={sendDisabled || counting}>
                    <MailIcon aria-hidden="true" />
                    Send credentials
                  </Button>
                  <Button size="xs" variant="outline" onClick={() => act('reset')} disabled={counting}>
                    <KeyRoundIcon aria-hidden="true" />
                    Reset password
                  </Button>
                  <Button size="xs" variant="outline" onClick={() => act('deactivate')} disabled={counting}>
                    <PowerOffIcon aria-hidden="true" />
                    Deactivate
                  </Button>
                  <Button size="xs" variant="outline" onClick={() => act('reactivate')} disabled={counting}>
                    <PowerIcon aria-hidden="true" />
                    Reactivate
                  </Button>
                  <Button size="xs" variant="outline" colorPalette="red" onClick={() => act('delete')} disabled={counting}>
                    <Trash2Icon aria-hidden="true" />
                    Delete
                  </Button>
                  <Button size="xs" variant="ghost" onClick={clear}>
                    <XIcon aria-hidden="true" />
                    Clear
                  </Button>
                </HStack>
              </Flex>
            ) : null}
            <AccountTable
              accounts={loaded}
              showPasswords={showPasswords}
              showProject={false}
              selection={{ selected: ticked, onChange: onSelect }}
              caption="Accounts of this project"
              action={(account) => (
                <HStack gap="1">
                  <Button size="xs" variant="ghost" onClick={() => onSend(account)} disabled={sendDisabled} aria-label={`${account.emailStatus ? 'Resend' : 'Send'} credentials to ${account.firstName} ${account.lastName}`}>
                    <MailIcon aria-hidden="true" />
                    {account.emailStatus ? 'Resend' : 'Send'}
                  </Button>
                  <AccountRowActions account={account} onSendCredentials={onSend} />
                </HStack>
              )}
            />
            <LoadMoreBar
              shown={loaded.length}
              total={total}
              hasMore={accounts.hasNextPage}
              loading={accounts.isFetchingNextPage}
              onLoadMore={() => void accounts.fetchNextPage()}
            />
            {accounts.isFetchNextPageError ? (
              <Text color="fg.error" fontSize="sm" role="alert">
                Failed to load more accounts. Try again.
              </Text>
            ) : null}
          </>
        )}
        {acting ? <AccountActionDialog projectId={projectId} action={acting.action} target={acting.target} onStarted={clear} onClose={() => setActing(undefined)} /> : null}
      </Card.Body>
    </Card.Root>
  );
}
