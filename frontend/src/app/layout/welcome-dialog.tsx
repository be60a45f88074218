import { Avatar, Button, Dialog, Portal, Stack, Text } from '@chakra-ui/react';
import { useEffect, useState } from 'react';
import { initialsOf, WELCOME_WINDOW_MS } from '@shared/schemas/user';
import { useDismissWelcome, useUser } from '../../lib/user-api';
import { ignoreFocusOutside } from '../../lib/modal-focus';

/**
 * Spec 1: while the account is under 5 minutes old and not dismissed, a greeting by name with the
 * photo (or a placeholder) and 'Let's Get Started!'. The dismissal is kept on the server; the
 * dialog also goes when the five minutes are up.
 */
export function WelcomeDialog() {
  const user = useUser();
  const dismiss = useDismissWelcome();
  const closesAt = Date.parse(user.createdAt) + WELCOME_WINDOW_MS;
  const [expired, setExpired] = useState(() => !(closesAt > Date.now()));
  useEffect(() => {
    const left = closesAt - Date.now();
    if (!(left > 0)) return;
    const timer = window.setTimeout(() => setExpired(true), left);
    return () => window.clearTimeout(timer);
  }, [closesAt]);

  const open = !user.welcomeDismissed && !expired;
  const name = user.firstName.trim() || 'there';
  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open={open} onOpenChange={(details) => (details.open ? undefined : dismiss.mutate())} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" maxW="sm">
            <Dialog.Body pt="8">
              <Stack align="center" gap="4" textAlign="center">
                <Avatar.Root size="2xl" colorPalette="blue" w="20" h="20">
                  <Avatar.Fallback fontSize="2xl">{initialsOf(user.firstName, user.lastName)}</Avatar.Fallback>
                  {user.profileImageUrl ? <Avatar.Image src={user.profileImageUrl} alt="" /> : null}
                </Avatar.Root>
                <Dialog.Title fontSize="2xl">Welcome, {name}!</Dialog.Title>
                <Dialog.Description asChild>
                  <Text color="fg.muted">
                    Your BulkOnboard account is ready. Create a project, import people from a CSV and we generate their usernames and passwords.
                  </Text>
                </Dialog.Description>
              </Stack>
            </Dialog.Body>
            <Dialog.Footer justifyContent="center" pb="8">
              <Button colorPalette="blue" size="lg" onClick={() => dismiss.mutate()}>
                Let's Get Started!
              </Button>
            </Dialog.Footer>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
