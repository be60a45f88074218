import { Center, Spinner, Text, VStack } from '@chakra-ui/react';

/** Full-page spinner while authentication loads. */
export function LoadingScreen() {
  return (
    <Center minH="100dvh" bg="bg">
      <VStack gap="3" role="status" aria-live="polite">
        <Spinner size="lg" color="blue.solid" borderWidth="3px" />
        <Text color="fg.muted">Loading...</Text>
      </VStack>
    </Center>
  );
}

/** Spinner inside the layout while a lazily loaded page arrives. */
export function PageLoading() {
  return (
    <Center py="20" role="status" aria-live="polite">
      <VStack gap="3">
        <Spinner size="md" color="blue.solid" />
        <Text color="fg.muted" fontSize="sm">
          Loading...
        </Text>
      </VStack>
    </Center>
  );
}
