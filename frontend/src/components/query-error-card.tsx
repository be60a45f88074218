import { Alert, Button } from '@chakra-ui/react';
import { RotateCwIcon } from 'lucide-react';

/** A load that failed: what failed, and a retry. */
export function QueryErrorCard({ message, onRetry, retrying }: { message: string; onRetry: () => void; retrying?: boolean }) {
  return (
    <Alert.Root status="error" alignItems="center" flexWrap="wrap">
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Description>{message}</Alert.Description>
      </Alert.Content>
      <Button size="sm" variant="outline" onClick={onRetry} loading={retrying}>
        <RotateCwIcon aria-hidden="true" />
        Retry
      </Button>
    </Alert.Root>
  );
}
