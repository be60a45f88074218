import { Badge, Box, Button, Card, HStack, Link, Progress, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { KeyRoundIcon, PlugIcon, ShieldCheckIcon, ShieldOffIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { platformLabels } from '@shared/schemas/integrations';
import type { SecurityOverview } from '@shared/schemas/security-overview';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDateTime } from '../../../lib/format-date';
import { useSecurityOverviewQuery } from '../api/security-api';
import { plural } from '@shared/text/plural';

/** Where the settings card sits on this page (the 'Turn it on' link scrolls to it). */
export const SECURITY_SETTINGS_ANCHOR = 'security-settings';

const days = (n: number) => plural(n, 'day');

function OverviewCard({ title, icon, palette, loading, children }: { title: string; icon: ReactNode; palette: string; loading: boolean; children: ReactNode }) {
  return (
    <Card.Root variant="outline" as="section" aria-label={title}>
      <Card.Body>
        <Stack gap="3">
          <HStack gap="3">
            <Box colorPalette={palette} bg="colorPalette.subtle" color="colorPalette.fg" borderRadius="md" p="2" aria-hidden="true">
              {icon}
            </Box>
            <Text as="h2" fontWeight="semibold" fontSize="lg">
              {title}
            </Text>
          </HStack>
          {loading ? <Skeleton height="16" borderRadius="md" /> : children}
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}

function AccountSecure({ overview }: { overview: SecurityOverview }) {
  return (
    <Stack gap="1">
      <Badge colorPalette={overview.twoFactorEnabled ? 'green' : 'orange'} variant="subtle" alignSelf="flex-start">
        {overview.twoFactorEnabled ? 'Two-factor on' : 'Two-factor off'}
      </Badge>
      {overview.twoFactorEnabled ? (
        <Text fontSize="sm" color="fg.muted">
          Signing in asks for a code from your authenticator app.
        </Text>
      ) : (
        <Text fontSize="sm" color="fg.muted">
          Anyone with your password can sign in.{' '}
          <Link href={`#${SECURITY_SETTINGS_ANCHOR}`} colorPalette="blue" fontWeight="medium">
            Turn on two-factor authentication
          </Link>
        </Text>
      )}
      {overview.lastSignInAt ? (
        <Text fontSize="sm" color="fg.muted">
          Last sign-in {formatDateTime(overview.lastSignInAt)}
        </Text>
      ) : null}
    </Stack>
  );
}

function PasswordStrength({ overview }: { overview: SecurityOverview }) {
  const { ageDays, expiryDays, daysLeft, expired } = overview.password;
  const palette = expired ? 'red' : daysLeft <= 14 ? 'orange' : 'green';
  return (
    <Stack gap="2">
      <Badge colorPalette={palette} variant="subtle" alignSelf="flex-start">
        {expired ? 'Password expired' : `Expires in ${days(daysLeft)}`}
      </Badge>
      <Progress.Root value={Math.min(100, Math.round((ageDays / expiryDays) * 100))} colorPalette={palette} size="sm" aria-label={`Password age: ${days(ageDays)} of ${days(expiryDays)}`}>
        <Progress.Track>
          <Progress.Range />
        </Progress.Track>
      </Progress.Root>
      <Text fontSize="sm" color="fg.muted">
        Changed {ageDays === 0 ? 'today' : `${days(ageDays)} ago`}; a new one is required every {days(expiryDays)}.
      </Text>
    </Stack>
  );
}

function ApiSecurity({ overview }: { overview: SecurityOverview }) {
  const shown = overview.integrations.slice(0, 3);
  const never = overview.integrations.filter((i) => !i.lastTestDate).length;
  return (
    <Stack gap="2">
      <Badge colorPalette={overview.integrations.length === 0 ? 'gray' : never > 0 ? 'orange' : 'blue'} variant="subtle" alignSelf="flex-start">
        {overview.integrations.length === 0
          ? 'No stored credentials'
          : `${plural(overview.integrations.length, 'integration')} with credentials`}
      </Badge>
      {shown.length > 0 ? (
        <Stack as="ul" gap="1" listStyleType="none" fontSize="sm">
          {shown.map((integration) => (
            <Text as="li" key={integration.id} color="fg.muted" wordBreak="break-word">
              <Text as="span" color="fg" fontWeight="medium">
                {integration.name}
              </Text>{' '}
              ({platformLabels[integration.platform]}):{' '}
              {integration.lastTestDate ? `tested ${formatDateTime(integration.lastTestDate)}${integration.lastTestStatus === 'failed' ? ', failed' : ''}` : 'never tested'}
            </Text>
          ))}
          {overview.integrations.length > shown.length ? (
            <Text as="li" color="fg.muted">
              and {overview.integrations.length - shown.length} more
            </Text>
          ) : null}
        </Stack>
      ) : (
        <Text fontSize="sm" color="fg.muted">
          No integration holds an API key, secret or password.
        </Text>
      )}
      <Button asChild size="sm" variant="outline" alignSelf="flex-start">
        <RouterLink to="/integrations">Review</RouterLink>
      </Button>
    </Stack>
  );
}

/** The overview (spec 2): Account Secure, Password Strength, API Security, from the real state. */
export function SecurityOverviewCards() {
  const overview = useSecurityOverviewQuery();
  if (overview.isError) {
    return <QueryErrorCard message="Failed to load the security overview." onRetry={() => void overview.refetch()} retrying={overview.isFetching} />;
  }
  const data = overview.data;
  const loading = !data;
  return (
    <SimpleGrid columns={{ base: 1, md: 3 }} gap={{ base: '3', md: '4' }}>
      <OverviewCard title="Account Secure" icon={data?.twoFactorEnabled === false ? <ShieldOffIcon size={20} /> : <ShieldCheckIcon size={20} />} palette={data?.twoFactorEnabled ? 'green' : 'orange'} loading={loading}>
        {data ? <AccountSecure overview={data} /> : null}
      </OverviewCard>
      <OverviewCard title="Password Strength" icon={<KeyRoundIcon size={20} />} palette={data?.password.expired ? 'red' : 'green'} loading={loading}>
        {data ? <PasswordStrength overview={data} /> : null}
      </OverviewCard>
      <OverviewCard title="API Security" icon={<PlugIcon size={20} />} palette="blue" loading={loading}>
        {data ? <ApiSecurity overview={data} /> : null}
      </OverviewCard>
    </SimpleGrid>
  );
}
