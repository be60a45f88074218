import { Badge, Box, Button, Card, Container, Flex, Heading, HStack, List, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { CheckIcon, FileSpreadsheetIcon, FileDownIcon, KeyRoundIcon, PlugIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { planLimits, PRO_PRICE_MONTHLY_USD } from '@shared/plans';
import { BrandLogo } from '../../../components/brand-logo';

const features: { icon: ReactNode; title: string; text: string }[] = [
  {
    icon: <FileSpreadsheetIcon />,
    title: 'Import from CSV',
    text: 'Upload a CSV of first names, last names and e-mail addresses, or type people in by hand.',
  },
  {
    icon: <KeyRoundIcon />,
    title: 'Generated credentials',
    text: 'Every person gets a username and a strong password, generated to the rules you choose.',
  },
  {
    icon: <FileDownIcon />,
    title: 'Exports',
    text: 'Download the created accounts as CSV, Excel or JSON and hand them out the way you like.',
  },
  {
    icon: <PlugIcon />,
    title: 'Integrations',
    text: 'Create the accounts directly on Salesforce, Active Directory, Okta, Workday or your own API.',
  },
];

/** The signed-out home page: the product's promise and the way in. */
export function LandingPage() {
  return (
    <Box minH="100dvh" bg="bg">
      <Box as="header" borderBottomWidth="1px" borderColor="border">
        <Container maxW="6xl">
          <Flex h="16" align="center" justify="space-between" gap="3">
            <BrandLogo compact />
            <HStack gap="2">
              <Button asChild variant="ghost" size="sm">
                <RouterLink to="/sign-in">Sign in</RouterLink>
              </Button>
              <Button asChild colorPalette="blue" size="sm">
                <RouterLink to="/sign-up">Create account</RouterLink>
              </Button>
            </HStack>
          </Flex>
        </Container>
      </Box>

      <Box as="main">
        <Container maxW="6xl" py={{ base: '12', md: '20' }}>
          <Stack gap="6" maxW="3xl" mx="auto" textAlign="center" align="center">
            <Badge colorPalette="blue" variant="subtle" size="lg">
              Bulk account onboarding
            </Badge>
            <Heading as="h1" size={{ base: '3xl', md: '5xl' }} lineHeight="1.1" letterSpacing="tight">
              Create hundreds of user accounts from one CSV file
            </Heading>
            <Text fontSize={{ base: 'md', md: 'lg' }} color="fg.muted">
              BulkOnboard turns a list of people into ready-to-use accounts: usernames and passwords are generated
              for you, the results are yours to export, and integrations create the accounts where they are needed.
            </Text>
            <HStack gap="3" wrap="wrap" justify="center">
              <Button asChild colorPalette="blue" size="lg">
                <RouterLink to="/sign-up">Get started free</RouterLink>
              </Button>
            </HStack>
          </Stack>

          <SimpleGrid columns={{ base: 1, sm: 2, lg: 4 }} gap="5" mt={{ base: '12', md: '20' }}>
            {features.map((feature) => (
              <Card.Root key={feature.title} variant="outline">
                <Card.Body gap="3">
                  <Box color="blue.fg" aria-hidden="true">
                    {feature.icon}
                  </Box>
                  <Heading as="h2" size="md">
                    {feature.title}
                  </Heading>
                  <Text fontSize="sm" color="fg.muted">
                    {feature.text}
                  </Text>
                </Card.Body>
              </Card.Root>
            ))}
          </SimpleGrid>

          <SimpleGrid columns={{ base: 1, md: 2 }} gap="5" mt={{ base: '12', md: '16' }} maxW="4xl" mx="auto">
            <PlanCard
              name="Free"
              price="$0"
              points={[
                `${planLimits.free.projects} projects`,
                `${planLimits.free.accountsPerProject} accounts per project, ${planLimits.free.accountsTotal} in total`,
                'CSV exports',
              ]}
            />
            <PlanCard
              name="Pro"
              price={`$${PRO_PRICE_MONTHLY_USD}`}
              highlighted
              points={[
                'Unlimited projects and accounts',
                'API integrations',
                'E-mail notifications and templates',
                'CSV, Excel and JSON exports',
                'Priority support',
              ]}
            />
          </SimpleGrid>
        </Container>
      </Box>

      <Box as="footer" borderTopWidth="1px" borderColor="border" py="6">
        <Container maxW="6xl">
          <Text fontSize="sm" color="fg.muted" textAlign="center">
            BulkOnboard: bulk account creation for teams, schools and events.
          </Text>
        </Container>
      </Box>
    </Box>
  );
}

function PlanCard({
  name,
  price,
  points,
  highlighted = false,
}: {
  name: string;
  price: string;
  points: string[];
  highlighted?: boolean;
}) {
  return (
    <Card.Root variant="outline" borderColor={highlighted ? 'blue.solid' : 'border'} borderWidth={highlighted ? '2px' : '1px'}>
      <Card.Body gap="4">
        <Stack gap="1">
          <Heading as="h2" size="lg">
            {name}
          </Heading>
          <Text>
            <Text as="span" fontSize="3xl" fontWeight="bold">
              {price}
            </Text>
            <Text as="span" color="fg.muted">
              {' '}
              / month
            </Text>
          </Text>
        </Stack>
        <List.Root variant="plain" gap="2">
          {points.map((point) => (
            <List.Item key={point} fontSize="sm" alignItems="center">
              <List.Indicator asChild color="green.fg">
                <CheckIcon size={16} aria-hidden="true" />
              </List.Indicator>
              {point}
            </List.Item>
          ))}
        </List.Root>
      </Card.Body>
    </Card.Root>
  );
}
