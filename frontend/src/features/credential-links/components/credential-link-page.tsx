import { Alert, Box, Button, Card, Center, Clipboard, Code, HStack, Heading, IconButton, Link, Spinner, Stack, Text } from '@chakra-ui/react';
import { CheckIcon, CopyIcon, ExternalLinkIcon, KeyRoundIcon } from 'lucide-react';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useLocation, useParams } from 'react-router';
import { BrandLogo } from '../../../components/brand-logo';
import { formatDate } from '../../../lib/format-date';
import { fetchLinkState, revealCredentials, type LinkOutcome } from '../api/credential-links-api';

type PageState = { kind: 'loading' } | { kind: 'error'; retry: () => void } | LinkOutcome;

/**
 * /credentials#<token>, the page a one-time credential link opens (public: no sign-in, outside
 * the app's shell). The token is the URL's fragment, which the browser never sends to a server;
 * links mailed before that change (/credentials/<token>) still open. Loading it only reads the link's state (mail scanners open links too); the
 * holder presses 'Show my credentials' to reveal them, once.
 */
export function CredentialLinkPage() {
  const { hash } = useLocation();
  const { token: legacyToken = '' } = useParams();
  const token = hash.replace(/^#/, '') || legacyToken;
  const [state, setState] = useState<PageState>({ kind: 'loading' });
  const [revealing, setRevealing] = useState(false);

  const load = useCallback(() => {
    setState({ kind: 'loading' });
    fetchLinkState(token).then(setState, () => setState({ kind: 'error', retry: load }));
  }, [token]);
  useEffect(load, [load]);

  const reveal = () => {
    setRevealing(true);
    revealCredentials(token)
      .then(setState, () => setState({ kind: 'error', retry: load }))
      .finally(() => setRevealing(false));
  };

  return (
    <Center as="main" minH="100dvh" bg="bg.subtle" px="4" py="10">
      {/* React puts these in <head>: the page is nobody's search result, and its URL (the token) is never sent on as a referrer. */}
      <title>Your account credentials · BulkOnboard</title>
      <meta name="robots" content="noindex, nofollow" />
      <meta name="referrer" content="no-referrer" />
      <Stack gap="6" w="full" maxW="lg" align="center">
        <BrandLogo size="lg" />
        <Card.Root w="full" variant="elevated">
          <Card.Body gap="5" p={{ base: '5', md: '8' }}>
            <PageBody state={state} revealing={revealing} onReveal={reveal} />
          </Card.Body>
        </Card.Root>
        <Text fontSize="sm" color="fg.muted" textAlign="center">
          Sent with BulkOnboard. Never share these credentials with anyone.
        </Text>
      </Stack>
    </Center>
  );
}

function PageBody({ state, revealing, onReveal }: { state: PageState; revealing: boolean; onReveal: () => void }) {
  switch (state.kind) {
    case 'loading':
      return (
        <Center py="8">
          <Spinner size="lg" color="blue.solid" aria-label="Checking your link" />
        </Center>
      );
    case 'error':
      return (
        <Message title="Something went wrong" role="alert">
          <Text color="fg.muted">The link could not be checked just now. Your credentials are safe: nothing was shown. Please try again.</Text>
          <Button alignSelf="start" onClick={state.retry}>
            Try again
          </Button>
        </Message>
      );
    case 'invalid':
      return (
        <Message title="This link is not valid">
          <Text color="fg.muted">Check that you opened the whole link from your e-mail. If it still does not work, ask the person who sent it to you for a new one.</Text>
        </Message>
      );
    case 'closed':
      return <ClosedLink status={state.status} projectName={state.projectName} companyName={state.companyName} />;
    case 'state':
      return (
        <Stack gap="5">
          <HStack gap="3">
            <Box color="blue.fg" aria-hidden="true">
              <KeyRoundIcon size={28} />
            </Box>
            <Heading as="h1" size="xl">
              Your account credentials
            </Heading>
          </HStack>
          <Text>
            {/* The sender as the e-mail names it (the company); the project says what the account is for. */}
            {state.state.companyName ? (
              <>
                <Text as="strong">{state.state.companyName}</Text> sent you
              </>
            ) : (
              'You were sent'
            )}{' '}
            the username and password of your new account
            {state.state.projectName ? (
              <>
                {' '}
                in <Text as="strong">{state.state.projectName}</Text>
              </>
            ) : null}
            .
          </Text>
          <Text color="fg.muted">
            For your security they can be shown only once. Have a safe place ready to keep them before you continue.
            {state.state.expiresAt ? ` This link works until ${formatDate(state.state.expiresAt)}.` : ''}
          </Text>
          <Button colorPalette="blue" size="lg" onClick={onReveal} loading={revealing} loadingText="Showing…">
            Show my credentials
          </Button>
        </Stack>
      );
    case 'revealed':
      return (
        <Stack gap="5">
          <Heading as="h1" size="xl">
            Your account credentials
          </Heading>
          {state.credentials.companyName ? (
            <Text color="fg.muted">
              From {state.credentials.companyName}
              {state.credentials.projectName ? `, for ${state.credentials.projectName}` : ''}
            </Text>
          ) : state.credentials.projectName ? (
            <Text color="fg.muted">For {state.credentials.projectName}</Text>
          ) : null}
          <Credential label="Username" value={state.credentials.username} />
          <Credential label="Password" value={state.credentials.password} />
          <Alert.Root status="warning">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>They will not be shown again</Alert.Title>
              <Alert.Description>Copy them or write them down now. This link has been used and will not show them a second time.</Alert.Description>
            </Alert.Content>
          </Alert.Root>
          {state.credentials.platformUrl ? (
            <Button asChild variant="outline" alignSelf="start">
              <Link href={state.credentials.platformUrl} target="_blank" rel="noopener noreferrer">
                Go to sign-in <ExternalLinkIcon aria-hidden="true" />
              </Link>
            </Button>
          ) : null}
        </Stack>
      );
  }
}

const closedWording = {
  used: { title: 'These credentials were already shown', body: 'This link works only once, and it has been used. If that was not you, tell the sender straight away.' },
  expired: { title: 'This link has expired', body: 'It was valid for a limited time only, and that time is over.' },
  removed: { title: 'This account no longer exists', body: 'The account this link was for has been removed.' },
  deactivated: { title: 'This account has been deactivated', body: 'The account this link was for has been deactivated, so its credentials are not shown.' },
} as const;

function ClosedLink({ status, projectName, companyName }: { status: keyof typeof closedWording; projectName?: string; companyName?: string }) {
  const wording = closedWording[status];
  const sender = [companyName, projectName].filter(Boolean).join(', ');
  return (
    <Message title={wording.title}>
      <Text color="fg.muted">{wording.body}</Text>
      <Text>
        Ask the person who sent you the link{sender ? <> ({sender})</> : null} for {status === 'removed' || status === 'deactivated' ? 'help' : 'a new one'}.
      </Text>
    </Message>
  );
}

function Message({ title, children, role }: { title: string; children: ReactNode; role?: 'alert' }) {
  return (
    <Stack gap="4" role={role}>
      <Heading as="h1" size="xl">
        {title}
      </Heading>
      {children}
    </Stack>
  );
}

/** A credential in full, selectable, with a copy button. */
function Credential({ label, value }: { label: string; value: string }) {
  return (
    <Clipboard.Root value={value}>
      <Stack gap="1.5">
        <Clipboard.Label fontSize="sm" fontWeight="medium" color="fg.muted">
          {label}
        </Clipboard.Label>
        <HStack gap="2" borderWidth="1px" borderRadius="md" bg="bg.muted" px="3" py="2">
          <Code flex="1" variant="plain" fontSize="md" wordBreak="break-all" bg="transparent" data-testid={`credential-${label.toLowerCase()}`}>
            {value}
          </Code>
          <Clipboard.Trigger asChild>
            <IconButton variant="ghost" size="sm" aria-label={`Copy ${label.toLowerCase()}`}>
              <Clipboard.Indicator copied={<CheckIcon />}>
                <CopyIcon />
              </Clipboard.Indicator>
            </IconButton>
          </Clipboard.Trigger>
        </HStack>
      </Stack>
    </Clipboard.Root>
  );
}
