import { Alert, Badge, Button, Card, Flex, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { ArrowLeftIcon, DownloadIcon, MailIcon, UsersIcon } from 'lucide-react';
import { useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router';
import type { AccountView } from '@shared/schemas/project';
import { AccountTable } from '../../../components/account-table';
import { AccountRowActions } from '../../../components/account-row-actions';
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

const count = new Intl.NumberFormat();

/** /projects/{id}: the project's facts and its accounts, 50 at a time. */
export function ProjectDetailPage() {
  const { projectId = '' } = useParams();
  const projects = useProjectsQuery();
  const project = projects.data?.find((candidate) => candidate.id === projectId);
  const exportProject = useExportProject();
  const [sending, setSending] = useState<SendTarget>();

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
          <ProjectStatusBadge status={project.status} />
          <Text>{plural(project.accountCount, 'account')}</Text>
          <Text aria-hidden="true">·</Text>
          <Text>{project.successRate}% success rate</Text>
          <Text aria-hidden="true">·</Text>
          <Text>Created {formatDate(project.createdAt)}</Text>
          {project.expirationDate ? (
            <>
              <Text aria-hidden="true">·</Text>
              <Text>Expires {formatDate(project.expirationDate)}</Text>
            </>
          ) : null}
          {host ? (
            <>
              <Text aria-hidden="true">·</Text>
              <Text>{host}</Text>
            </>
          ) : null}
        </HStack>
        <ProjectProvisioning project={project} />
        <ProjectEmails project={project} onSend={setSending} />
        <ProjectAccounts projectId={project.id} total={project.accountCount} onSend={(account) => setSending({ scope: 'account', account })} sendDisabled={project.mailSendActive === true} />
      </Stack>
      <SendCredentialsFlow project={project} target={sending} onClose={() => setSending(undefined)} />
    </>
  );
}

function ProjectAccounts({ projectId, total, onSend, sendDisabled }: { projectId: string; total: number; onSend: (account: AccountView) => void; sendDisabled: boolean }) {
  const [showPasswords, setShowPasswords] = useState(false);
  const accounts = useProjectAccountsQuery(projectId, showPasswords);
  const loaded = accounts.data?.pages.flatMap((page) => page.items) ?? [];

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
        ) : loaded.length === 0 ? (
          <Text color="fg.muted" fontSize="sm" textAlign="center" py="6">
            This project has no accounts.
          </Text>
        ) : (
          <>
            <AccountTable
              accounts={loaded}
              showPasswords={showPasswords}
              showProject={false}
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
      </Card.Body>
    </Card.Root>
  );
}
