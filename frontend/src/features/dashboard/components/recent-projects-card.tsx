import { Flex, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { FolderKanbanIcon } from 'lucide-react';
import { Link as RouterLink } from 'react-router';
import { ListSkeleton } from '../../../components/list-skeleton';
import { ProjectStatusBadge } from '../../../components/project-status-badge';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDate } from '../../../lib/format-date';
import { useProjectsQuery } from '../../../lib/projects-api';
import { ListCard, ListEmpty } from './list-card';
import { plural } from '@shared/text/plural';

const RECENT_PROJECTS = 3;

export function RecentProjectsCard() {
  const projects = useProjectsQuery();
  return (
    <ListCard title="Recent Projects">
      {projects.isPending ? (
        <ListSkeleton rows={3} height="14" label="Loading projects" />
      ) : projects.isError ? (
        <QueryErrorCard
          message="Failed to load projects."
          onRetry={() => void projects.refetch()}
          retrying={projects.isFetching}
        />
      ) : projects.data.length === 0 ? (
        <ListEmpty
          icon={<FolderKanbanIcon size={20} aria-hidden="true" />}
          text="No projects yet. Create your first project to get started."
        />
      ) : (
        <Stack as="ul" gap="2" listStyleType="none">
          {projects.data.slice(0, RECENT_PROJECTS).map((project) => (
            <Flex
              as="li"
              key={project.id}
              justify="space-between"
              align="center"
              gap="3"
              p="3"
              borderWidth="1px"
              borderRadius="md"
            >
              <Stack gap="0.5" minW="0">
                <Link asChild fontWeight="medium" truncate>
                  <RouterLink to={`/projects/${encodeURIComponent(project.id)}`}>{project.name}</RouterLink>
                </Link>
                <Text fontSize="sm" color="fg.muted">
                  {plural(project.accountCount, 'account')} created
                </Text>
              </Stack>
              <Stack gap="1" align="flex-end" flexShrink="0">
                <ProjectStatusBadge status={project.status} expiredAt={project.expiredAt} />
                <HStack fontSize="xs" color="fg.muted">
                  <time dateTime={project.createdAt}>{formatDate(project.createdAt)}</time>
                </HStack>
              </Stack>
            </Flex>
          ))}
        </Stack>
      )}
    </ListCard>
  );
}
