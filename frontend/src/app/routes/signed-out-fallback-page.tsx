import { Button, Center, HStack, Heading, Stack, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { BrandLogo } from '../../components/brand-logo';

/** Any app path while signed out: say why nothing shows, offer sign-in. */
export function SignedOutFallbackPage() {
  return (
    <Center minH="100dvh" bg="bg.subtle" p="6">
      <Stack gap="5" maxW="md" align="center" textAlign="center">
        <RouterLink to="/" aria-label="BulkOnboard home">
          <BrandLogo size="lg" />
        </RouterLink>
        <Heading as="h1" size="xl">
          Sign in to continue
        </Heading>
        <Text color="fg.muted">You need to be signed in to see this page.</Text>
        <HStack gap="3">
          <Button asChild colorPalette="blue">
            <RouterLink to="/sign-in">Sign in</RouterLink>
          </Button>
          <Button asChild variant="outline">
            <RouterLink to="/">Home</RouterLink>
          </Button>
        </HStack>
      </Stack>
    </Center>
  );
}
