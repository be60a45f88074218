import { Box, Button, Card, DataList, HStack, Text } from '@chakra-ui/react';
import { DownloadIcon, EyeIcon, GlobeIcon } from 'lucide-react';
import { useId } from 'react';
import { Link as RouterLink } from 'react-router';
import type { Project } from '@shared/schemas/project';
import { ProjectStatusBadge } from '../../../components/project-status-badge';
import { formatDate } from '../../../lib/format-date';
import { projectSyncCounts } from '../../../lib/provisioning-progress';
import { useExportProject } from '../../../lib/projects-api';
import { ProjectDeletionProgress } from './project-delete';

const count = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** "https://lms.example.edu/login" -> "lms.example.edu"; nothing for an unparseable value. */
export function platformHost(platformUrl: string | undefined): string | undefined {
  if (!platformUrl) return undefined;
  try {
    return new URL(platformUrl).host || undefined;
  } catch {
    return undefined;
  }
}

export function ProjectCard({ project }: { project: Project }) {
  const titleId = useId();
  const exportProject = useExportProject();
  const host = platformHost(project.platformUrl);
  const synced = projectSyncCounts(project);

  return (
    <Card.Root as="article" aria-labelledby={titleId} variant="outline" size="sm">
      <Card.Header gap="2">
        <HStack justify="space-between" align="flex-start" gap="3">
          <Card.Title id={titleId} as="h2" fontSize="md" wordBreak="break-word">
            {project.name}
          </Card.Title>
          <ProjectStatusBadge status={project.status} expiredAt={project.expiredAt} />
        </HStack>
        {project.description ? (
          <Card.Description lineClamp={2} wordBreak="break-word">
            {project.description}
          </Card.Description>
        ) : null}
      </Card.Header>
      <Card.Body>
        <DataList.Root orientation="horizontal" size="sm" gap="2">
          <DataList.Item>
            <DataList.ItemLabel>Accounts</DataList.ItemLabel>
            <DataList.ItemValue fontWeight="medium">{count.format(project.accountCount)}</DataList.ItemValue>
          </DataList.Item>
          {project.integrationId ? (
            <DataList.Item>
              <DataList.ItemLabel>Synced</DataList.ItemLabel>
              <DataList.ItemValue fontWeight="medium">
                {count.format(synced.synced)} of {count.format(synced.total)}
                {synced.failed ? (
                  <Text as="span" color="fg.error" fontWeight="normal" ms="1">
                    ({count.format(synced.failed)} failed)
                  </Text>
                ) : null}
              </DataList.ItemValue>
            </DataList.Item>
          ) : null}
          <DataList.Item>
            <DataList.ItemLabel>Success Rate</DataList.ItemLabel>
            <DataList.ItemValue fontWeight="medium">{percent.format(project.successRate)}%</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Created</DataList.ItemLabel>
            <DataList.ItemValue>
              <time dateTime={project.createdAt}>{formatDate(project.createdAt)}</time>
            </DataList.ItemValue>
          </DataList.Item>
        </DataList.Root>
        {project.deletionActive ? (
          <Box mt="3">
            <ProjectDeletionProgress project={project} />
          </Box>
        ) : null}
        {host ? (
          <HStack gap="1.5" mt="3" color="fg.muted" fontSize="sm" minW="0">
            <GlobeIcon size={14} aria-hidden="true" />
            <Text truncate title={project.platformUrl}>
              {host}
            </Text>
          </HStack>
        ) : null}
      </Card.Body>
      <Card.Footer gap="2" justifyContent="flex-end">
        <Button
          size="sm"
          variant="outline"
          onClick={() => exportProject.mutate(project)}
          loading={exportProject.isPending}
          loadingText="Exporting..."
        >
          <DownloadIcon aria-hidden="true" />
          Export
        </Button>
        <Button asChild size="sm" colorPalette="blue" variant="subtle">
          <RouterLink to={`/projects/${encodeURIComponent(project.id)}`}>
            <EyeIcon aria-hidden="true" />
            View
          </RouterLink>
        </Button>
      </Card.Footer>
    </Card.Root>
  );
}
