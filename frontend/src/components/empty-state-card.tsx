import { Card, EmptyState, VStack } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** A card that says honestly that there is nothing here yet, with an optional next step. */
export function EmptyStateCard({
  icon,
  title,
  description,
  action,
}: {
  icon: ReactNode;
  title: string;
  description: string;
  action?: ReactNode;
}) {
  return (
    <Card.Root variant="outline">
      <Card.Body>
        <EmptyState.Root size="md">
          <EmptyState.Content>
            <EmptyState.Indicator>{icon}</EmptyState.Indicator>
            <VStack textAlign="center">
              <EmptyState.Title as="h2">{title}</EmptyState.Title>
              <EmptyState.Description>{description}</EmptyState.Description>
            </VStack>
            {action}
          </EmptyState.Content>
        </EmptyState.Root>
      </Card.Body>
    </Card.Root>
  );
}
