import { Badge, Button, Card, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { ActivityIcon, DownloadIcon, FolderKanbanIcon, PlusIcon, UsersIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { PageHeader } from '../../../components/page-header';

/** Dashboard. Stats, recent projects and activity come with the projects feature; empty until then. */
export function DashboardPage() {
  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle="Manage your bulk account creation projects and monitor their progress."
        actions={
          <Badge variant="outline" size="lg">
            Last 30 days
          </Badge>
        }
      />
      <Stack gap="6">
        <Card.Root variant="outline">
          <Card.Header>
            <Card.Title>Quick Actions</Card.Title>
          </Card.Header>
          <Card.Body>
            <SimpleGrid columns={{ base: 1, sm: 3 }} gap="3">
              <QuickAction to="/bulk-creator" icon={<UsersIcon aria-hidden="true" />} label="Bulk Create Accounts" />
              <QuickAction to="/projects" icon={<PlusIcon aria-hidden="true" />} label="New Project" />
              <QuickAction to="/exports" icon={<DownloadIcon aria-hidden="true" />} label="Export Data" />
            </SimpleGrid>
          </Card.Body>
        </Card.Root>
        <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6">
          <EmptyListCard
            title="Recent Projects"
            icon={<FolderKanbanIcon size={20} aria-hidden="true" />}
            text="No projects yet. Create your first project to get started."
          />
          <EmptyListCard
            title="Recent Activity"
            icon={<ActivityIcon size={20} aria-hidden="true" />}
            text="No recent activity. Start creating projects to see activity here."
          />
        </SimpleGrid>
      </Stack>
    </>
  );
}

function QuickAction({ to, icon, label }: { to: string; icon: ReactNode; label: string }) {
  return (
    <Button asChild variant="outline" justifyContent="flex-start" h="12">
      <RouterLink to={to}>
        {icon}
        {label}
      </RouterLink>
    </Button>
  );
}

function EmptyListCard({ title, icon, text }: { title: string; icon: ReactNode; text: string }) {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title>{title}</Card.Title>
      </Card.Header>
      <Card.Body>
        <Stack align="center" textAlign="center" gap="3" py="6" color="fg.muted">
          {icon}
          <Text fontSize="sm">{text}</Text>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
