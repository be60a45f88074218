import { Alert, Button, Card, Checkbox, CloseButton, DataList, Dialog, Flex, Menu, Portal, Stack, Text } from '@chakra-ui/react';
import { ChevronDownIcon, CrownIcon, MailIcon } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { proFeatures } from '@shared/plans';
import { LINK_EXPIRY_DAYS_DEFAULT, sendScopeLabels, type SendScope } from '@shared/schemas/mail-send';
import type { AccountView, Project } from '@shared/schemas/project';
import { CredentialDeliveryFields, defaultTemplateId, validLinkDays } from '../../../components/credential-delivery-fields';
import { MailSendProgress } from '../../../components/mail-send-progress';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { mailSendFinished, useMailSendQuery, useSendCredentials, useTemplateChoicesQuery, type CredentialChoice } from '../../../lib/mail-sends-api';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { plural } from '@shared/text/plural';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { DialogActions } from '../../../components/dialog-actions';

const count = new Intl.NumberFormat();
const FORM_ID = 'send-credentials-form';

/** What a send is aimed at: a scope of the project, or one account. */
export type SendTarget = { scope: Exclude<SendScope, 'account'> } | { scope: 'account'; account: AccountView };

/** How many accounts a scope takes now, from the project's counts. */
const scopeSize = (project: Project, scope: Exclude<SendScope, 'account'>) =>
  scope === 'all' ? project.accountCount : scope === 'unsent' ? project.emailCounts.notSent : project.emailCounts.failed;

/**
 * The project's credential e-mails: each account's e-mail status counted (they add up to the
 * accounts), the latest send followed while it runs, and 'Send credentials' to all, to those not
 * sent yet, or 'Resend failed'. Without Pro the menu opens the gate.
 */
export function ProjectEmails({ project, onSend }: { project: Project; onSend: (target: SendTarget) => void }) {
  const plan = useEffectivePlan();
  const send = useMailSendQuery(project.mailSendId);
  const busy = project.mailSendActive === true && !mailSendFinished(send.data?.status);
  const c = project.emailCounts;
  return (
    <Card.Root variant="outline" as="section" aria-labelledby="project-emails-title">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <Card.Title as="h2" id="project-emails-title">
            Credential e-mails
          </Card.Title>
          <Menu.Root positioning={{ placement: 'bottom-end' }} onSelect={(details) => onSend({ scope: details.value as Exclude<SendScope, 'account'> })}>
            <Menu.Trigger asChild>
              <Button size="sm" variant="outline" disabled={!plan || busy}>
                {plan && plan !== 'pro' ? <CrownIcon aria-hidden="true" /> : <MailIcon aria-hidden="true" />}
                Send credentials
                <ChevronDownIcon aria-hidden="true" />
              </Button>
            </Menu.Trigger>
            <Portal>
              <Menu.Positioner>
                <Menu.Content minW="56">
                  {(['all', 'unsent', 'failed'] as const).map((scope) => (
                    <Menu.Item key={scope} value={scope} disabled={scopeSize(project, scope) === 0}>
                      <Flex justify="space-between" w="full" gap="4">
                        <span>{sendScopeLabels[scope]}</span>
                        <Text as="span" color="fg.muted">
                          {count.format(scopeSize(project, scope))}
                        </Text>
                      </Flex>
                    </Menu.Item>
                  ))}
                </Menu.Content>
              </Menu.Positioner>
            </Portal>
          </Menu.Root>
        </Flex>
      </Card.Header>
      <Card.Body gap="4">
        <DataList.Root orientation="horizontal" size="sm" flexDirection="row" flexWrap="wrap" columnGap="8" rowGap="2" aria-label="Credential e-mails by status" data-testid="email-counts">
          <EmailCount label="Not sent" value={c.notSent} />
          {c.queued ? <EmailCount label="Queued" value={c.queued} /> : null}
          <EmailCount label="Sent" value={c.sent} />
          <EmailCount label="Delivered" value={c.delivered} color={c.delivered ? 'fg.success' : undefined} />
          {c.bounced ? <EmailCount label="Bounced" value={c.bounced} color="fg.error" /> : null}
          {c.complained ? <EmailCount label="Complained" value={c.complained} color="fg.warning" /> : null}
          <EmailCount label="Failed" value={c.failed} color={c.failed ? 'fg.error' : undefined} />
          {c.suppressed ? <EmailCount label="Skipped: suppressed" value={c.suppressed} /> : null}
        </DataList.Root>
        {send.data ? <MailSendProgress send={send.data} lost={send.isError} /> : null}
        {!project.mailSendId ? (
          <Text fontSize="sm" color="fg.muted">
            The account holders have not been e-mailed yet. Send credentials e-mails each of them their username and password, or a one-time link to them.
          </Text>
        ) : null}
      </Card.Body>
    </Card.Root>
  );
}

function EmailCount({ label, value, color }: { label: string; value: number; color?: string }) {
  return (
    <DataList.Item>
      <DataList.ItemLabel minW="auto">{label}</DataList.ItemLabel>
      <DataList.ItemValue fontWeight="semibold" color={color}>
        {count.format(value)}
      </DataList.ItemValue>
    </DataList.Item>
  );
}

/** The upgrade prompt of a free or lapsed plan, or the send dialog. */
export function SendCredentialsFlow({ project, target, onClose }: { project: Project; target: SendTarget | undefined; onClose: () => void }) {
  const plan = useEffectivePlan();
  if (!target) return null;
  if (plan !== 'pro') return <UpgradePromptDialog feature={proFeatures.credentialEmails} open onOpenChange={(open) => (open ? undefined : onClose())} />;
  return <SendCredentialsDialog project={project} target={target} onClose={onClose} />;
}

function SendCredentialsDialog({ project, target, onClose }: { project: Project; target: SendTarget; onClose: () => void }) {
  const templates = useTemplateChoicesQuery();
  const start = useSendCredentials();
  const [choice, setChoice] = useState<CredentialChoice>({ delivery: 'password', linkExpiresInDays: LINK_EXPIRY_DAYS_DEFAULT });
  const suppressed = target.scope === 'account' && target.account.emailStatus === 'suppressed';
  const [override, setOverride] = useState(false);
  const busy = start.isPending;
  const size = target.scope === 'account' ? 1 : scopeSize(project, target.scope);
  const who =
    target.scope === 'account'
      ? `${target.account.firstName} ${target.account.lastName} (${target.account.email})`
      : `${plural(size, 'account holder')} of ${project.name} (${sendScopeLabels[target.scope].toLowerCase()})`;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (choice.delivery === 'link' && !validLinkDays(choice.linkExpiresInDays)) return;
    start.mutate(
      {
        projectId: project.id,
        scope: target.scope,
        ...(target.scope === 'account' ? { accountId: target.account.id, overrideSuppression: suppressed && override } : {}),
        templateId: choice.templateId ?? defaultTemplateId(templates.data),
        delivery: choice.delivery,
        ...(choice.delivery === 'link' ? { linkExpiresInDays: choice.linkExpiresInDays } : {}),
      },
      { onSuccess: onClose },
    );
  };

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open onOpenChange={(details) => (!details.open && !busy ? onClose() : undefined)} closeOnInteractOutside={!busy} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>{target.scope === 'account' ? (target.account.emailStatus ? 'Resend credentials' : 'Send credentials') : target.scope === 'failed' ? 'Resend failed' : 'Send credentials'}</Dialog.Title>
              <Dialog.Description wordBreak="break-word">E-mail {who} their credentials.</Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              <form id={FORM_ID} onSubmit={submit} noValidate>
                <Stack gap="4">
                  <CredentialDeliveryFields value={choice} onChange={setChoice} templates={templates.data} loading={templates.isPending} idPrefix="send" />
                  {suppressed ? (
                    <Alert.Root status="warning" size="sm">
                      <Alert.Indicator />
                      <Alert.Content gap="2">
                        <Alert.Description>{target.account.emailError ?? 'This address is on your suppression list.'}</Alert.Description>
                        <Checkbox.Root checked={override} onCheckedChange={(details) => setOverride(details.checked === true)} size="sm">
                          <Checkbox.HiddenInput />
                          <Checkbox.Control />
                          <Checkbox.Label>Send to this address anyway</Checkbox.Label>
                        </Checkbox.Root>
                      </Alert.Content>
                    </Alert.Root>
                  ) : null}
                </Stack>
              </form>
            </Dialog.Body>
            <DialogActions
              form={FORM_ID}
              busy={busy}
              loadingText="Starting..."
              disabled={size === 0}
              submitLabel={
                <>
                  <MailIcon aria-hidden="true" />
                  Send {plural(size, 'e-mail')}
                </>
              }
            />
            {busy ? null : (
              <Dialog.CloseTrigger asChild>
                <CloseButton size="sm" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
