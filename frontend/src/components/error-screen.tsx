import { Button, Center, HStack, Heading, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** Full-page error with a way out (retry, sign out, ...). */
export function ErrorScreen({ title, message, actions }: { title: string; message: string; actions?: ReactNode }) {
  return (
    <Center minH="100dvh" bg="bg" p="6">
      <Stack gap="4" maxW="md" textAlign="center" align="center" role="alert">
        <Heading as="h1" size="xl">
          {title}
        </Heading>
        <Text color="fg.muted" wordBreak="break-word">
          {message}
        </Text>
        <HStack gap="3">{actions ?? <Button onClick={() => window.location.reload()}>Reload</Button>}</HStack>
      </Stack>
    </Center>
  );
}
