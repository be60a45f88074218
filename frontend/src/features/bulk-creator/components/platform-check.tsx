import { Alert, Badge, Button, HStack, List, Stack, Text } from '@chakra-ui/react';
import { SearchCheckIcon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { CHECK_PEOPLE_MAX, checkOutcomes, type CheckAnswer, type CheckOutcome, type CheckResult } from '@shared/schemas/provisioning';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';

/** What each outcome means for the person, as the list says it. */
export const checkOutcomeLabels: Record<CheckOutcome, { label: string; palette: string; meaning: string }> = {
  new: { label: 'New', palette: 'green', meaning: 'will be created' },
  linked: { label: 'Exists: will be linked', palette: 'blue', meaning: 'already there with this e-mail: becomes this account' },
  conflict: { label: 'Name taken: will fail', palette: 'red', meaning: 'the user name belongs to someone else there' },
  duplicate: { label: 'Same e-mail, other name', palette: 'orange', meaning: 'a second account would be made for this person' },
  error: { label: 'Lookup failed', palette: 'gray', meaning: 'the platform did not answer the lookup' },
};

/** The people listed at most (the summary counts them all). */
const LISTED_MAX = 50;

/**
 * 'Check against platform' (a dry run): every valid row looked up on the chosen integration's
 * platform, CHECK_PEOPLE_MAX a request, in file order. Writes nothing anywhere.
 */
export function PlatformCheck({ integrationId, people }: { integrationId: string; people: readonly { row: number; firstName: string; lastName: string; email: string }[] }) {
  const [state, setState] = useState<{ checked: number; answer?: CheckAnswer; error?: string; running: boolean; key?: string }>({ checked: 0, running: false });
  const key = `${integrationId}:${people.length}:${people[0]?.email ?? ''}`;
  // A result belongs to the integration and file it was made for.
  const current = state.key === key ? state : { checked: 0, running: false };

  const run = async () => {
    setState({ checked: 0, running: true, key });
    const results: CheckResult[] = [];
    try {
      for (let start = 0; start < people.length; start += CHECK_PEOPLE_MAX) {
        const part = people.slice(start, start + CHECK_PEOPLE_MAX).map(({ firstName, lastName, email }) => ({ firstName, lastName, email }));
        const answer = await apiRequest<CheckAnswer>(`/api/integrations/${encodeURIComponent(integrationId)}/check`, { method: 'POST', body: { people: part, firstRow: start + 1 } });
        // The file's own line numbers, not the position in the list of valid rows.
        results.push(...answer.results.map((result, i) => ({ ...result, row: people[start + i]?.row ?? result.row })));
        setState({ checked: results.length, running: true, key });
      }
      const summary = Object.fromEntries(checkOutcomes.map((o) => [o, results.filter((r) => r.outcome === o).length])) as CheckAnswer['summary'];
      setState({ checked: results.length, running: false, answer: { results, summary }, key });
    } catch (error) {
      setState({ checked: results.length, running: false, key, error: serverMessageOf(error, [400, 403, 404]) ?? 'The check could not be completed. Please try again.' });
    }
  };

  const notable = current.answer?.results.filter((r) => r.outcome !== 'new') ?? [];
  // The dialog's body scrolls: bring the result (or the error) into view when it arrives.
  const resultRef = useRef<HTMLDivElement>(null);
  const shown = current.answer ?? current.error;
  useEffect(() => {
    if (shown) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [shown]);
  return (
    <Stack gap="2" aria-live="polite">
      <HStack gap="3" wrap="wrap">
        <Button size="sm" variant="outline" onClick={() => void run()} loading={current.running} loadingText={`Checked ${current.checked.toLocaleString()} of ${people.length.toLocaleString()}`} disabled={!people.length}>
          <SearchCheckIcon aria-hidden="true" />
          Check against platform
        </Button>
        <Text fontSize="xs" color="fg.muted" flex="1" minW="48">
          Looks each person up on the platform by the user name they would get and by e-mail. Nothing is written.
        </Text>
      </HStack>
      {current.error ? (
        <Alert.Root ref={resultRef} status="error" size="sm">
          <Alert.Indicator />
          <Alert.Description>{current.error}</Alert.Description>
        </Alert.Root>
      ) : null}
      {current.answer ? (
        <Stack ref={resultRef} gap="2" borderWidth="1px" borderRadius="md" p="3" aria-label="Check against platform: result">
          <HStack gap="2" wrap="wrap">
            {checkOutcomes.map((outcome) => (
              <Badge key={outcome} colorPalette={checkOutcomeLabels[outcome].palette} variant="subtle">
                {checkOutcomeLabels[outcome].label}: {current.answer!.summary[outcome].toLocaleString()}
              </Badge>
            ))}
          </HStack>
          {notable.length ? (
            <List.Root gap="1" fontSize="sm" ps="4">
              {notable.slice(0, LISTED_MAX).map((result) => (
                <List.Item key={`${result.row}-${result.email}`} wordBreak="break-word">
                  <Text as="span" fontWeight="medium">
                    Row {result.row}, {result.email}
                  </Text>{' '}
                  ({result.username}): {checkOutcomeLabels[result.outcome].meaning}
                  {result.detail ? `; on the platform: ${result.detail}` : ''}.
                </List.Item>
              ))}
              {notable.length > LISTED_MAX ? <List.Item>… and {(notable.length - LISTED_MAX).toLocaleString()} more.</List.Item> : null}
            </List.Root>
          ) : (
            <Text fontSize="sm">Nobody in this file is on the platform yet: every account will be created.</Text>
          )}
        </Stack>
      ) : null}
    </Stack>
  );
}
