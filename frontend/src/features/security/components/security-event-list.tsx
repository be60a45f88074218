import { Badge, Box, Flex, HStack, Stack, Text } from '@chakra-ui/react';
import { KeyRoundIcon, LogInIcon, ShieldAlertIcon, ShieldIcon } from 'lucide-react';
import type { SecurityEvent, SecuritySeverity } from '@shared/schemas/security';
import { formatDateTime } from '../../../lib/format-date';

/** Spec 2's icons: login, password change, failed login, and one for every other type. */
function EventIcon({ type }: { type: SecurityEvent['type'] }) {
  const [icon, palette] =
    type === 'login'
      ? [<LogInIcon key="i" size={18} />, 'blue']
      : type === 'password_change'
        ? [<KeyRoundIcon key="i" size={18} />, 'green']
        : type === 'failed_login'
          ? [<ShieldAlertIcon key="i" size={18} />, 'red']
          : [<ShieldIcon key="i" size={18} />, 'gray'];
  return (
    <Flex
      aria-hidden="true"
      flexShrink="0"
      boxSize="9"
      align="center"
      justify="center"
      borderRadius="full"
      colorPalette={palette}
      bg="colorPalette.subtle"
      color="colorPalette.fg"
      data-event-icon={type === 'login' || type === 'password_change' || type === 'failed_login' ? type : 'other'}
    >
      {icon}
    </Flex>
  );
}

/** Spec 2's badges: high, medium, and one for every other severity. */
export function SeverityBadge({ severity }: { severity: SecuritySeverity }) {
  const [palette, label] = severity === 'high' ? ['red', 'High'] : severity === 'medium' ? ['orange', 'Medium'] : ['gray', 'Low'];
  return (
    <Badge colorPalette={palette} variant="subtle" flexShrink="0">
      {label}
    </Badge>
  );
}

/** One event: icon, description, severity, the address it came from and when (the user's timezone). */
function SecurityEventItem({ event }: { event: SecurityEvent }) {
  return (
    <HStack as="li" align="flex-start" gap="3" py="3" borderBottomWidth="1px" _last={{ borderBottomWidth: 0 }}>
      <EventIcon type={event.type} />
      <Stack gap="1" minW="0" flex="1">
        <Flex justify="space-between" align="flex-start" gap="2">
          <Text fontWeight="medium" wordBreak="break-word">
            {event.description}
          </Text>
          <SeverityBadge severity={event.severity} />
        </Flex>
        <Text fontSize="sm" color="fg.muted" wordBreak="break-word">
          {event.ipAddress ? `IP ${event.ipAddress}` : 'IP unknown'} · <time dateTime={event.createdAt}>{formatDateTime(event.createdAt)}</time>
        </Text>
        {event.userAgent ? (
          <Text fontSize="xs" color="fg.muted" lineClamp={1} title={event.userAgent}>
            {event.userAgent}
          </Text>
        ) : null}
      </Stack>
    </HStack>
  );
}

export function SecurityEventList({ events, label }: { events: SecurityEvent[]; label: string }) {
  return (
    <Box as="ul" aria-label={label} listStyleType="none" m="0" p="0">
      {events.map((event) => (
        <SecurityEventItem key={event.id} event={event} />
      ))}
    </Box>
  );
}
