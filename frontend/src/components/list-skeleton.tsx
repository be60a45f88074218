import { Skeleton, Stack } from '@chakra-ui/react';

/** Placeholder rows while a list or table loads. */
export function ListSkeleton({ rows = 5, height = '10', label = 'Loading' }: { rows?: number; height?: string; label?: string }) {
  return (
    <Stack gap="2" role="status" aria-label={label} aria-busy="true">
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} height={height} borderRadius="md" />
      ))}
    </Stack>
  );
}
