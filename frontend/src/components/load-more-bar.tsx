import { Button, Flex, Text } from '@chakra-ui/react';

const count = new Intl.NumberFormat('en-US');

interface LoadMoreBarProps {
  shown: number;
  total: number;
  hasMore: boolean;
  loading: boolean;
  onLoadMore: () => void;
}

/** 'Showing N of M' under a paged list, with 'Load more' while pages remain. */
export function LoadMoreBar({ shown, total, hasMore, loading, onLoadMore }: LoadMoreBarProps) {
  return (
    <Flex justify="space-between" align="center" gap="3" wrap="wrap">
      <Text fontSize="sm" color="fg.muted">
        Showing {count.format(shown)} of {count.format(Math.max(total, shown))}
      </Text>
      {hasMore ? (
        <Button variant="outline" size="sm" onClick={onLoadMore} loading={loading} loadingText="Loading...">
          Load more
        </Button>
      ) : null}
    </Flex>
  );
}
