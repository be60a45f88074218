import { Card, Heading, HStack, Text } from '@chakra-ui/react';
import { CircleAlertIcon } from 'lucide-react';

export function NotFoundPage() {
  return (
    <Card.Root variant="outline" maxW="lg" mx="auto" mt="10">
      <Card.Body gap="3">
        <HStack gap="2" color="fg.error">
          <CircleAlertIcon size={28} aria-hidden="true" />
          <Heading as="h1" size="xl" color="fg">
            404 Page Not Found
          </Heading>
        </HStack>
        <Text color="fg.muted">Did you forget to add the page to the router?</Text>
      </Card.Body>
    </Card.Root>
  );
}
