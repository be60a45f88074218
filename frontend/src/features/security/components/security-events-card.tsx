import { Button, Card, CloseButton, Dialog, EmptyState, Flex, Portal, Stack, Text, VStack } from '@chakra-ui/react';
import { ShieldCheckIcon } from 'lucide-react';
import { useState } from 'react';
import { ListSkeleton } from '../../../components/list-skeleton';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useAllSecurityEventsQuery, useRecentSecurityEventsQuery } from '../api/security-api';
import { SecurityEventList } from './security-event-list';
import { ignoreFocusOutside } from '../../../lib/modal-focus';

function NoEvents() {
  return (
    <EmptyState.Root size="sm">
      <EmptyState.Content>
        <EmptyState.Indicator>
          <ShieldCheckIcon />
        </EmptyState.Indicator>
        <VStack textAlign="center">
          <EmptyState.Title as="h3">No security events</EmptyState.Title>
          <EmptyState.Description>
            Sign-ins, security changes, revealed passwords and exports will be listed here.
          </EmptyState.Description>
        </VStack>
      </EmptyState.Content>
    </EmptyState.Root>
  );
}

/** 'View all': every event, newest first, 50 at a time. */
function AllEventsDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const all = useAllSecurityEventsQuery(open);
  const events = all.data?.pages.flatMap((page) => page.events) ?? [];
  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open={open} onOpenChange={(details) => onOpenChange(details.open)} size={{ base: 'full', md: 'lg' }} scrollBehavior="inside">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content>
            <Dialog.Header>
              <Dialog.Title>All security events</Dialog.Title>
            </Dialog.Header>
            {/* The list scrolls inside the dialog: focusable, so the keyboard can scroll it too. */}
            <Dialog.Body tabIndex={0} aria-label="All security events, newest first">
              {all.isPending ? (
                <ListSkeleton rows={6} height="14" label="Loading security events" />
              ) : all.isError && events.length === 0 ? (
                <QueryErrorCard message="Failed to load security events." onRetry={() => void all.refetch()} retrying={all.isFetching} />
              ) : events.length === 0 ? (
                <NoEvents />
              ) : (
                <Stack gap="3">
                  <SecurityEventList events={events} label="All security events" />
                  {all.isFetchNextPageError ? (
                    <QueryErrorCard message="Failed to load more events." onRetry={() => void all.fetchNextPage()} retrying={all.isFetchingNextPage} />
                  ) : null}
                  <Flex justify="space-between" align="center" gap="3" wrap="wrap">
                    <Text fontSize="sm" color="fg.muted">
                      {all.hasNextPage ? `Showing the newest ${events.length}` : `All ${events.length} events shown`}
                    </Text>
                    {all.hasNextPage ? (
                      <Button variant="outline" size="sm" onClick={() => void all.fetchNextPage()} loading={all.isFetchingNextPage} loadingText="Loading...">
                        Load more
                      </Button>
                    ) : null}
                  </Flex>
                </Stack>
              )}
            </Dialog.Body>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}

/** Recent Security Events (spec 2): the newest 10, and every event behind 'View all'. */
export function SecurityEventsCard() {
  const recent = useRecentSecurityEventsQuery();
  const [allOpen, setAllOpen] = useState(false);
  const events = recent.data?.events ?? [];
  return (
    <Card.Root variant="outline" as="section" aria-labelledby="security-events-title">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <Stack gap="1">
            <Card.Title as="h2" id="security-events-title">
              Recent Security Events
            </Card.Title>
            <Card.Description>Sign-ins, changes to your security and who saw or exported passwords.</Card.Description>
          </Stack>
          {events.length > 0 ? (
            <Button variant="outline" size="sm" onClick={() => setAllOpen(true)}>
              View all
            </Button>
          ) : null}
        </Flex>
      </Card.Header>
      <Card.Body>
        {recent.isPending ? (
          <ListSkeleton rows={4} height="14" label="Loading security events" />
        ) : recent.isError ? (
          <QueryErrorCard message="Failed to load security events." onRetry={() => void recent.refetch()} retrying={recent.isFetching} />
        ) : events.length === 0 ? (
          <NoEvents />
        ) : (
          <SecurityEventList events={events} label="Recent security events" />
        )}
      </Card.Body>
      <AllEventsDialog open={allOpen} onOpenChange={setAllOpen} />
    </Card.Root>
  );
}
