import { Box, Card, Center, Heading, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { BrandLogo } from '../../../components/brand-logo';

/** Centered card shared by the auth screens. */
export function AuthLayout({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <Center minH="100dvh" bg="bg.subtle" px="4" py="10">
      <Stack gap="6" w="full" maxW="md" align="center">
        <RouterLink to="/" aria-label="BulkOnboard home">
          <BrandLogo size="lg" />
        </RouterLink>
        <Card.Root w="full" variant="elevated">
          <Card.Body gap="6" p={{ base: '6', md: '8' }}>
            <Stack gap="1">
              <Heading as="h1" size="xl">
                {title}
              </Heading>
              <Text color="fg.muted" fontSize="sm">
                {subtitle}
              </Text>
            </Stack>
            {children}
          </Card.Body>
        </Card.Root>
        {footer ? (
          <Box fontSize="sm" color="fg.muted" textAlign="center">
            {footer}
          </Box>
        ) : null}
      </Stack>
    </Center>
  );
}
