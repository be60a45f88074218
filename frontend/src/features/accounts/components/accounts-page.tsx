import { Card, Input, InputGroup, Stack } from '@chakra-ui/react';
import { DatabaseIcon, SearchIcon } from 'lucide-react';
import { useState } from 'react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function AccountsPage() {
  const [term, setTerm] = useState('');
  return (
    <>
      <PageHeader title="Account Database" subtitle="Search all the accounts you have created." />
      <Stack gap="6">
        <Card.Root variant="outline">
          <Card.Body>
            <InputGroup startElement={<SearchIcon size={16} aria-hidden="true" />}>
              <Input
                type="search"
                aria-label="Search accounts"
                placeholder="Search by name, email, or username..."
                value={term}
                onChange={(event) => setTerm(event.target.value)}
              />
            </InputGroup>
          </Card.Body>
        </Card.Root>
        <EmptyStateCard
          icon={<DatabaseIcon />}
          title="No accounts yet"
          description="Accounts appear here once you create them with the Bulk Creator."
        />
      </Stack>
    </>
  );
}
