import { Button, Card, SimpleGrid } from '@chakra-ui/react';
import { DownloadIcon, PlusIcon, UsersIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';

/**
 * Bulk Create opens the Bulk Creator's dialog (through its ?dialog=csv, not an import of that
 * feature). A project is made by creating its accounts, so New Project goes to the Bulk Creator;
 * each project exports from the Projects page.
 */
export function QuickActionsCard() {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Quick Actions</Card.Title>
      </Card.Header>
      <Card.Body>
        <SimpleGrid columns={{ base: 1, sm: 3 }} gap="3">
          <QuickAction to="/bulk-creator?dialog=csv" icon={<UsersIcon aria-hidden="true" />} label="Bulk Create Accounts" />
          <QuickAction to="/bulk-creator" icon={<PlusIcon aria-hidden="true" />} label="New Project" />
          <QuickAction to="/projects" icon={<DownloadIcon aria-hidden="true" />} label="Export Data" />
        </SimpleGrid>
      </Card.Body>
    </Card.Root>
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
