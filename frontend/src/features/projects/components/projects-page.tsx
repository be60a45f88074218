import { Button } from '@chakra-ui/react';
import { FolderOpenIcon } from 'lucide-react';
import { Link as RouterLink } from 'react-router';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function ProjectsPage() {
  return (
    <>
      <PageHeader title="Projects" subtitle="View and manage your bulk account creation projects." />
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
    </>
  );
}
