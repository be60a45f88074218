import { Card, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** A dashboard list card: title, then the list or its empty text. */
export function ListCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">{title}</Card.Title>
      </Card.Header>
      <Card.Body>{children}</Card.Body>
    </Card.Root>
  );
}

export function ListEmpty({ icon, text }: { icon: ReactNode; text: string }) {
  return (
    <Stack align="center" textAlign="center" gap="3" py="6" color="fg.muted">
      {icon}
      <Text fontSize="sm">{text}</Text>
    </Stack>
  );
}
