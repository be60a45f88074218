import { Button, Card, CloseButton, Dialog, HStack, Portal, Text } from '@chakra-ui/react';
import { CopyIcon, CrownIcon, EyeIcon } from 'lucide-react';
import { useState } from 'react';
import { builtInTemplate } from '@shared/email/default-template';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { useCreateEmailTemplate } from '../api/email-templates-api';
import { TemplatePreview } from './template-preview';
import { ignoreFocusOutside } from '../../../lib/modal-focus';

/**
 * The built-in credential e-mail: used when the user has no default template (or chooses it when
 * sending). Preview it, or 'Copy and edit' to make it an editable template of one's own (the
 * password version, or the one-time link version). Without Pro, copying opens the gate.
 */
export function BuiltInTemplateCard({ gated, hasDefault, onUpgrade, onCopied }: { gated: boolean; hasDefault: boolean; onUpgrade: () => void; onCopied: (template: EmailTemplate) => void }) {
  const create = useCreateEmailTemplate();
  const [previewing, setPreviewing] = useState<'password' | 'link'>();
  const copy = (delivery: 'password' | 'link') => {
    if (gated) return onUpgrade();
    const source = builtInTemplate(delivery);
    create.mutate(
      {
        name: delivery === 'link' ? 'Credentials (one-time link)' : 'Credentials',
        subject: source.subject,
        htmlContent: source.htmlContent,
        textContent: '',
        brandLogoUrl: '',
        // The first template of a user becomes their default, as the built-in one was.
        isDefault: !hasDefault,
        isActive: true,
      },
      { onSuccess: onCopied },
    );
  };
  return (
    <Card.Root variant="outline" size="sm" as="section" aria-labelledby="built-in-template-title">
      <Card.Header>
        <Card.Title as="h2" fontSize="md" id="built-in-template-title">
          Built-in default
        </Card.Title>
        <Card.Description>
          {hasDefault ? 'Choose it when sending, or copy it to start a template of your own.' : 'Sent while you have no default template of your own.'}
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <HStack gap="2" wrap="wrap">
          <Button size="xs" variant="outline" onClick={() => setPreviewing('password')}>
            <EyeIcon aria-hidden="true" />
            Preview
          </Button>
          <Button size="xs" colorPalette="blue" variant="subtle" onClick={() => copy('password')} loading={create.isPending && create.variables?.name === 'Credentials'}>
            {gated ? <CrownIcon aria-hidden="true" /> : <CopyIcon aria-hidden="true" />}
            Copy and edit
          </Button>
          <Button size="xs" variant="ghost" onClick={() => copy('link')} loading={create.isPending && create.variables?.name !== 'Credentials'}>
            Copy the one-time link version
          </Button>
        </HStack>
      </Card.Body>
      {previewing ? (
        <Dialog.Root onFocusOutside={ignoreFocusOutside} open onOpenChange={(details) => (details.open ? undefined : setPreviewing(undefined))} size="lg" placement="center" scrollBehavior="inside">
          <Portal>
            <Dialog.Backdrop />
            <Dialog.Positioner>
              <Dialog.Content mx="4">
                <Dialog.Header flexDirection="column" alignItems="flex-start" gap="2">
                  <Dialog.Title>Built-in default</Dialog.Title>
                  <HStack gap="2">
                    <Button size="xs" variant={previewing === 'password' ? 'solid' : 'outline'} onClick={() => setPreviewing('password')}>
                      With the password
                    </Button>
                    <Button size="xs" variant={previewing === 'link' ? 'solid' : 'outline'} onClick={() => setPreviewing('link')}>
                      With a one-time link
                    </Button>
                  </HStack>
                </Dialog.Header>
                <Dialog.Body>
                  <TemplatePreview {...builtInTemplate(previewing)} />
                  <Text fontSize="xs" color="fg.muted" mt="2">
                    Set a Brand Logo URL on your copy to show your logo at the top.
                  </Text>
                </Dialog.Body>
                <Dialog.CloseTrigger asChild>
                  <CloseButton size="sm" />
                </Dialog.CloseTrigger>
              </Dialog.Content>
            </Dialog.Positioner>
          </Portal>
        </Dialog.Root>
      ) : null}
    </Card.Root>
  );
}
