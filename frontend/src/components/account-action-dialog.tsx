import { Alert, Stack, Text } from '@chakra-ui/react';
import { useEffect, useRef, useState } from 'react';
import { proFeatures } from '@shared/plans';
import { actionWords, type AccountAction } from '@shared/schemas/account-actions';
import type { AccountFilter } from '@shared/schemas/account-selection';
import { lifecycleSupport, type OperationSupport } from '@shared/schemas/lifecycle';
import { LINK_EXPIRY_DAYS_DEFAULT, type MailSend } from '@shared/schemas/mail-send';
import type { AccountView } from '@shared/schemas/project';
import type { PasswordResetJob } from '@shared/schemas/reset-passwords';
import type { AccountActionJob } from '@shared/schemas/account-actions';
import { plural } from '@shared/text/plural';
import { useAccountActionQuery, useStartAccountAction } from '../lib/account-actions-api';
import { useIntegrationsQuery } from '../lib/integrations-query';
import { useMailSendQuery, useSendCredentials, useTemplateChoicesQuery, type CredentialChoice } from '../lib/mail-sends-api';
import { useProjectsQuery } from '../lib/projects-api';
import { usePasswordResetQuery, useStartPasswordReset } from '../lib/reset-passwords-api';
import { useEffectivePlan } from '../lib/subscription-api';
import { CredentialDeliveryFields, defaultTemplateId, validLinkDays } from './credential-delivery-fields';
import { UpgradePromptDialog } from './upgrade-prompt-dialog';
import { BulkJobDialog, type JobProgress } from './bulk-job-dialog';

/**
 * What a job over accounts from the project page does: an account action, Reset password, or Send
 * credentials (each a kind of the one jobs engine, docs/jobs.md).
 */
export type BulkAction = AccountAction | 'reset' | 'send';

/** What the job touches: listed accounts (one, or those ticked), or a filter's accounts of the project ('all', 'failed', 'unsent') and their count now. */
export type ActionTarget = { accounts: AccountView[] } | { filter: AccountFilter; count: number };

const bulkWords: Record<BulkAction, { verb: string; done: string; doing: string; notDone: string; notDoneTitle: string }> = {
  ...(Object.fromEntries(Object.entries(actionWords).map(([action, w]) => [action, { ...w, notDone: 'not changed', notDoneTitle: 'Not changed (run it again to retry)' }])) as Record<AccountAction, { verb: string; done: string; doing: string; notDone: string; notDoneTitle: string }>),
  reset: { verb: 'Reset the passwords of', done: 'reset', doing: 'Resetting the passwords of', notDone: 'kept their password', notDoneTitle: 'Previous password kept (reset them again to retry)' },
  send: { verb: 'Send credentials to', done: 'e-mailed', doing: 'E-mailing', notDone: 'not e-mailed', notDoneTitle: 'Not e-mailed' },
};

/**
 * The project's platform, when some of the target accounts are on it (Synced): its name and
 * whether and how it does the action, in shared/schemas/lifecycle.ts's words.
 */
export function usePlatformOperation(projectId: string, action: BulkAction, target: ActionTarget): { name: string; support: OperationSupport } | undefined {
  const project = useProjectsQuery().data?.find((p) => p.id === projectId);
  // A reset says in its own words what it does on the platform; a send touches none.
  const onPlatform = action !== 'send' && action !== 'reset' && ('filter' in target ? target.filter !== 'failed' && (project?.syncedCount ?? 0) > 0 : target.accounts.some((a) => a.externalStatus === 'success'));
  const integrations = useIntegrationsQuery(onPlatform && !!project?.integrationId);
  const integration = integrations.data?.find((i) => i.id === project?.integrationId);
  if (!onPlatform || !integration) return undefined;
  const support = lifecycleSupport(integration);
  return { name: integration.name, support: action === 'delete' ? support.remove : action === 'update' ? support.update : action === 'groups' ? support.groups : support.setActive };
}

const nameOf = (account: AccountView) => `${account.firstName} ${account.lastName} (${account.username})`;

const ofAction = (job: AccountActionJob): JobProgress => ({ ...job, skipped: job.skipped ?? 0, failures: (job.failures ?? []).map((f) => ({ key: f.accountId, username: f.username, reason: f.reason })) });
const ofReset = (job: PasswordResetJob): JobProgress => ({ ...job, skipped: job.skipped ?? 0, onPlatform: job.updatedOnPlatform, failures: (job.failures ?? []).map((f) => ({ key: f.username, username: f.username, reason: f.reason })) });
const ofSend = (send: MailSend): JobProgress => ({
  status: send.status,
  total: send.total,
  done: send.sent,
  failed: send.failed + send.suppressed,
  skipped: send.skipped ?? 0,
  pending: send.pending + send.queued,
  onPlatform: 0,
  ...(send.reason ? { reason: send.reason } : {}),
  failures: [],
});

/** The filters' words: whose accounts they take. */
const filterWhat = (filter: AccountFilter, count: number) =>
  ({
    failed: `the ${plural(count, 'account')} whose platform sync failed`,
    synced: `the ${plural(count, 'account')} on the platform`,
    unsent: `the ${plural(count, 'account')} never e-mailed`,
    active: `all ${plural(count, 'active account')} of this project`,
    deactivated: `all ${plural(count, 'deactivated account')} of this project`,
    all: `all ${plural(count, 'account')} of this project`,
  })[filter];

/** Send credentials needs Pro (the gate, as the project's own Send credentials opens it); the rest is the dialog. */
export function AccountActionDialog(props: { projectId: string; action: BulkAction; target: ActionTarget; onClose: () => void; onStarted?: () => void; autoStart?: boolean }) {
  const plan = useEffectivePlan();
  if (props.action === 'send' && plan && plan !== 'pro') return <UpgradePromptDialog feature={proFeatures.credentialEmails} open onOpenChange={(open) => (open ? undefined : props.onClose())} />;
  return <ProjectJobDialog {...props} />;
}

/**
 * Deactivate / Reactivate / Delete / Update, Reset password and Send credentials of the project's
 * accounts (BulkJobDialog: asked first, then the job's progress and the accounts not done): the
 * confirmation names the account (or the count) and, for accounts on a platform, what the platform
 * does, or that it cannot, before anything is sent.
 */
function ProjectJobDialog({ projectId, action, target, onClose, onStarted, autoStart }: { projectId: string; action: BulkAction; target: ActionTarget; onClose: () => void; onStarted?: () => void; autoStart?: boolean }) {
  const startAction = useStartAccountAction();
  const startReset = useStartPasswordReset();
  const startSend = useSendCredentials();
  const templates = useTemplateChoicesQuery(action === 'send');
  const [choice, setChoice] = useState<CredentialChoice>({ delivery: 'password', linkExpiresInDays: LINK_EXPIRY_DAYS_DEFAULT });
  const [jobId, setJobId] = useState<string>();
  const actionJob = useAccountActionQuery(action !== 'reset' && action !== 'send' ? jobId : undefined, startAction.data);
  const resetJob = usePasswordResetQuery(action === 'reset' ? jobId : undefined, startReset.data);
  const sendJob = useMailSendQuery(action === 'send' ? jobId : undefined, startSend.data);
  const platform = usePlatformOperation(projectId, action, target);
  const words = bulkWords[action];
  const count = 'filter' in target ? target.count : target.accounts.length;
  const single = 'accounts' in target && target.accounts.length === 1 ? target.accounts[0] : undefined;
  const what = single ? nameOf(single) : 'filter' in target ? filterWhat(target.filter, count) : plural(count, 'account');
  const title =
    action === 'reset'
      ? `Reset the password${single ? ` of ${single.firstName} ${single.lastName}` : `s of ${plural(count, 'account')}`}?`
      : action === 'send'
        ? `Send credentials to ${single ? `${single.firstName} ${single.lastName}` : plural(count, 'account')}?`
        : single
          ? `${words.verb} ${single.firstName} ${single.lastName}?`
          : `${words.verb} ${plural(count, 'account')}?`;
  const cannot = platform && !platform.support.supported ? platform.support.reason : undefined;
  const pending = startAction.isPending || startReset.isPending || startSend.isPending;
  const view = action === 'reset' ? (resetJob.data ? ofReset(resetJob.data) : undefined) : action === 'send' ? (sendJob.data ? ofSend(sendJob.data) : undefined) : actionJob.data ? ofAction(actionJob.data) : undefined;
  const selection = 'filter' in target ? { filter: target.filter } : { accountIds: target.accounts.map((a) => a.id) };
  const started = (job: { id: string }) => {
    setJobId(job.id);
    onStarted?.();
  };

  const confirm = () => {
    if (action === 'reset') startReset.mutate({ projectId, ...selection }, { onSuccess: started });
    else if (action === 'send') {
      if (choice.delivery === 'link' && !validLinkDays(choice.linkExpiresInDays)) return;
      startSend.mutate(
        {
          projectId,
          scope: 'selection',
          ...selection,
          templateId: choice.templateId ?? defaultTemplateId(templates.data),
          delivery: choice.delivery,
          ...(choice.delivery === 'link' ? { linkExpiresInDays: choice.linkExpiresInDays } : {}),
        },
        { onSuccess: started },
      );
    } else startAction.mutate({ projectId, action, ...selection }, { onSuccess: started });
  };

  // Chosen already (the project's Edit, 'Apply to the N accounts already on <platform>'): started at once, its progress shown.
  const autoStarted = useRef(false);
  useEffect(() => {
    if (!autoStart || autoStarted.current) return;
    autoStarted.current = true;
    confirm();
  });

  const explanation =
    action === 'groups'
      ? `${what} will join the groups the project names now and leave the ones it no longer names.`
      : action === 'delete'
      ? `${what} will be deleted here, with ${count === 1 ? 'its username' : 'their usernames'} (free for reuse); ${count === 1 ? 'its' : 'their'} one-time credential links stop working. This cannot be undone.`
      : action === 'deactivate'
        ? `${what} will be deactivated: ${count === 1 ? 'its' : 'their'} one-time credential links stop working until reactivated.`
        : action === 'reactivate'
          ? `${what} will be active again.`
          : action === 'update'
            ? `${what} will get ${count === 1 ? 'its' : 'their'} names and e-mail on the platform as edited here.`
            : action === 'reset'
              ? `${what} will get a new generated password (on the platform too, where synced); the current one stops working. Send the credentials again so the account holders have it.`
              : `The account holders of ${what} will be e-mailed their credentials.`;

  return (
    <BulkJobDialog
      title={title}
      words={words}
      started={jobId !== undefined}
      progress={jobId !== undefined ? view : undefined}
      starting={pending}
      description={
        <Stack gap="3">
          <Text>{explanation}</Text>
          {platform ? (
            platform.support.supported ? (
              <Text>
                On {platform.name} first: {platform.support.how}
              </Text>
            ) : (
              <Alert.Root status="warning">
                <Alert.Indicator />
                <Alert.Description>
                  {platform.name} cannot do this: {cannot} The accounts on it will not be changed (shown as {words.notDone}).
                </Alert.Description>
              </Alert.Root>
            )
          ) : null}
        </Stack>
      }
      fields={action === 'send' ? <CredentialDeliveryFields value={choice} onChange={setChoice} templates={templates.data} loading={templates.isPending} idPrefix="bulk-send" /> : undefined}
      confirmLabel={action === 'send' ? `Send ${plural(count, 'e-mail')}` : action === 'reset' ? `Reset ${plural(count, 'password')}` : single ? words.verb : `${words.verb} ${plural(count, 'account')}`}
      danger={!(action === 'reactivate' || action === 'send' || action === 'update' || action === 'groups')}
      onConfirm={confirm}
      onClose={onClose}
    />
  );
}
