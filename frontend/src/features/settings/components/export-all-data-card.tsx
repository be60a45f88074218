import { Card, Text } from '@chakra-ui/react';

/** Export All Data: one zip of everything BulkOnboard holds on the user. */
export function ExportAllDataCard() {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Export All Data</Card.Title>
        <Card.Description>Download everything BulkOnboard holds on you in one file.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Text color="fg.muted" fontSize="sm">
          Coming with this release.
        </Text>
      </Card.Body>
    </Card.Root>
  );
}
