import { Box, HStack, Stack, Text } from '@chakra-ui/react';
import { ActivityIcon } from 'lucide-react';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { formatDateTime } from '../../../lib/format-date';
import { useRecentActivityQuery } from '../api/dashboard-api';
import { ListCard, ListEmpty } from './list-card';

export function RecentActivityCard() {
  const activity = useRecentActivityQuery();
  return (
    <ListCard title="Recent Activity">
      {activity.isPending ? (
        <ListSkeleton rows={3} height="12" label="Loading recent activity" />
      ) : activity.isError ? (
        <QueryErrorCard
          message="Failed to load recent activity."
          onRetry={() => void activity.refetch()}
          retrying={activity.isFetching}
        />
      ) : activity.data.length === 0 ? (
        <ListEmpty
          icon={<ActivityIcon size={20} aria-hidden="true" />}
          text="No recent activity. Start creating projects to see activity here."
        />
      ) : (
        <Stack as="ul" gap="3" listStyleType="none">
          {activity.data.map((item, index) => (
            <HStack as="li" key={`${item.timestamp}-${index}`} align="flex-start" gap="3">
              <Box mt="1.5" w="2" h="2" borderRadius="full" bg="blue.solid" flexShrink="0" aria-hidden="true" />
              <Stack gap="0" minW="0">
                <Text fontSize="sm" wordBreak="break-word">
                  {item.title}
                </Text>
                <Text fontSize="xs" color="fg.muted">
                  <time dateTime={item.timestamp}>{formatDateTime(item.timestamp)}</time>
                </Text>
              </Stack>
            </HStack>
          ))}
        </Stack>
      )}
    </ListCard>
  );
}
