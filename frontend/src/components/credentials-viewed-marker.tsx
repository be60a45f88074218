import { HStack, Text } from '@chakra-ui/react';
import { EyeIcon } from 'lucide-react';
import { formatDate, formatDateTime } from '../lib/format-date';

/** 'Credentials viewed' and when: the holder revealed them through their one-time link. */
export function CredentialsViewedMarker({ at }: { at: string }) {
  return (
    <HStack gap="1" mt="1" fontSize="xs" color="fg.success" title={`Credentials viewed ${formatDateTime(at)}`}>
      <EyeIcon size={12} aria-hidden="true" />
      <Text>Credentials viewed {formatDate(at)}</Text>
    </HStack>
  );
}
