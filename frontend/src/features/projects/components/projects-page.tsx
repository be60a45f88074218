import { Button, Flex, Input, InputGroup, NativeSelect, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { FolderOpenIcon, PlusIcon, SearchIcon } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import type { Project } from '@shared/schemas/project';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useProjectsQuery } from '../../../lib/projects-api';
import { ProjectCard } from './project-card';
import { plural } from '@shared/text/plural';

const DAY_MS = 24 * 60 * 60 * 1000;
const dateRanges = [
  { value: 'all', label: 'All time', days: undefined },
  { value: '7', label: 'Last 7 days', days: 7 },
  { value: '30', label: 'Last 30 days', days: 30 },
] as const;
type DateRange = (typeof dateRanges)[number]['value'];

interface Filters {
  search: string;
  range: DateRange;
  /** Created at or after this instant; fixed when the range is picked. */
  since?: number;
}

function filterProjects(projects: Project[], { search, since }: Filters): Project[] {
  const term = search.trim().toLocaleLowerCase();
  return projects.filter(
    (project) =>
      (!term || project.name.toLocaleLowerCase().includes(term)) &&
      (since === undefined || Date.parse(project.createdAt) >= since),
  );
}

const newProjectButton = (
  <Button asChild colorPalette="blue">
    <RouterLink to="/bulk-creator">
      <PlusIcon aria-hidden="true" />
      New Project
    </RouterLink>
  </Button>
);

export function ProjectsPage() {
  const projects = useProjectsQuery();
  const [filters, setFilters] = useState<Filters>({ search: '', range: 'all' });
  const visible = useMemo(() => filterProjects(projects.data ?? [], filters), [projects.data, filters]);

  const pickRange = (range: DateRange) => {
    const days = dateRanges.find((option) => option.value === range)?.days;
    setFilters((current) => ({ ...current, range, since: days ? Date.now() - days * DAY_MS : undefined }));
  };

  return (
    <>
      <PageHeader
        title="Projects"
        subtitle="View and manage your bulk account creation projects."
        actions={newProjectButton}
      />
      {projects.isPending ? (
        <SimpleGrid columns={{ base: 1, md: 2, xl: 3 }} gap="4" role="status" aria-label="Loading projects">
          {Array.from({ length: 3 }, (_, index) => (
            <Skeleton key={index} height="56" borderRadius="lg" />
          ))}
        </SimpleGrid>
      ) : projects.isError ? (
        <QueryErrorCard
          message="Failed to load projects."
          onRetry={() => void projects.refetch()}
          retrying={projects.isFetching}
        />
      ) : projects.data.length === 0 ? (
        <EmptyStateCard
          icon={<FolderOpenIcon />}
          title="No projects yet"
          description="A project groups the accounts you create from one CSV file or manual entry."
          action={
            <Button asChild colorPalette="blue">
              <RouterLink to="/bulk-creator">Create First Project</RouterLink>
            </Button>
          }
        />
      ) : (
        <Stack gap="4">
          <Flex gap="3" direction={{ base: 'column', sm: 'row' }}>
            <InputGroup flex="1" startElement={<SearchIcon size={16} aria-hidden="true" />}>
              <Input
                type="search"
                aria-label="Search projects"
                placeholder="Search projects..."
                value={filters.search}
                onChange={(event) => setFilters((current) => ({ ...current, search: event.target.value }))}
              />
            </InputGroup>
            <NativeSelect.Root w={{ base: 'full', sm: '44' }}>
              <NativeSelect.Field
                aria-label="Date range"
                value={filters.range}
                onChange={(event) => pickRange(event.target.value as DateRange)}
              >
                {dateRanges.map(({ value, label }) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Flex>
          <Text fontSize="sm" color="fg.muted" aria-live="polite">
            {visible.length === projects.data.length
              ? plural(projects.data.length, 'project')
              : `${visible.length} of ${plural(projects.data.length, 'project')}`}
          </Text>
          {visible.length === 0 ? (
            <EmptyStateCard
              icon={<SearchIcon />}
              title="No matching projects"
              description="No project matches this search and date range."
              action={
                <Button variant="outline" onClick={() => setFilters({ search: '', range: 'all' })}>
                  Clear filters
                </Button>
              }
            />
          ) : (
            <SimpleGrid columns={{ base: 1, md: 2, xl: 3 }} gap="4">
              {visible.map((project) => (
                <ProjectCard key={project.id} project={project} />
              ))}
            </SimpleGrid>
          )}
        </Stack>
      )}
    </>
  );
}
