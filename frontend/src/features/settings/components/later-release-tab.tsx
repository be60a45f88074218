import { Card, Text } from '@chakra-ui/react';

/** A settings tab whose settings are not built yet: say so, save nothing. */
export function LaterReleaseTab({ title, description }: { title: string; description: string }) {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">{title}</Card.Title>
        <Card.Description>{description}</Card.Description>
      </Card.Header>
      <Card.Body>
        <Text color="fg.muted" fontSize="sm">
          These settings arrive in a later release.
        </Text>
      </Card.Body>
    </Card.Root>
  );
}
