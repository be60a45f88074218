import { Stack, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { proFeatures } from '@shared/plans';
import type { DirectorySelection } from '@shared/schemas/account-directory';
import type { DirectoryAction } from '@shared/schemas/directory-actions';
import { LINK_EXPIRY_DAYS_DEFAULT } from '@shared/schemas/mail-send';
import type { AccountView } from '@shared/schemas/project';
import { plural } from '@shared/text/plural';
import { CredentialDeliveryFields, defaultTemplateId, validLinkDays } from '../../../components/credential-delivery-fields';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { BulkJobDialog } from '../../../components/bulk-job-dialog';
import { useTemplateChoicesQuery, type CredentialChoice } from '../../../lib/mail-sends-api';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { useDirectoryActionQuery, useStartDirectoryAction } from '../api/directory-actions-api';

/** What an action over the Account Database takes: the rows ticked, or every account matching the filters and term (the badge's count). */
export type DirectoryTarget = { accounts: AccountView[] } | { matching: DirectorySelection; count: number; countIs: 'exact' | 'at-most' | 'at-least' };

export const directoryActionWords: Record<DirectoryAction, { label: string; verb: string; done: string; doing: string; notDone: string; explain: string }> = {
  deactivate: { label: 'Deactivate', verb: 'Deactivate', done: 'deactivated', doing: 'Deactivating', notDone: 'not changed', explain: 'will be deactivated, on their platform too where synced; their one-time credential links stop working until reactivated.' },
  reactivate: { label: 'Reactivate', verb: 'Reactivate', done: 'reactivated', doing: 'Reactivating', notDone: 'not changed', explain: 'will be active again, on their platform too where synced.' },
  delete: { label: 'Delete', verb: 'Delete', done: 'deleted', doing: 'Deleting', notDone: 'not changed', explain: 'will be deleted here (and on their platform where synced), with their usernames; their one-time credential links stop working. This cannot be undone.' },
  update: { label: 'Update on platform', verb: 'Update', done: 'updated', doing: 'Updating', notDone: 'not changed', explain: 'will get their names and e-mail on their platform as edited here.' },
  reset: { label: 'Reset password', verb: 'Reset the passwords of', done: 'reset', doing: 'Resetting the passwords of', notDone: 'kept their password', explain: 'will get a new generated password (on their platform too, where synced); the current one stops working.' },
  send: { label: 'Send credentials', verb: 'Send credentials to', done: 'e-mailed', doing: 'E-mailing', notDone: 'not e-mailed', explain: 'will be e-mailed their credentials.' },
  retry: { label: 'Retry sync', verb: 'Retry the sync of', done: 'synced', doing: 'Retrying the sync of', notDone: 'failed again', explain: 'will be created on their platform again; those no longer failed when reached are skipped.' },
};

/** Platform operations and e-mails are Pro: a free user sees the upgrade prompt instead (the server refuses too). */
export function DirectoryActionDialog(props: { action: DirectoryAction; target: DirectoryTarget; onClose: () => void; onStarted?: () => void }) {
  const plan = useEffectivePlan();
  if (plan && plan !== 'pro' && (props.action === 'send' || props.action === 'retry')) {
    return <UpgradePromptDialog feature={props.action === 'send' ? proFeatures.credentialEmails : proFeatures.apiIntegrations} open onOpenChange={(open) => (open ? undefined : props.onClose())} />;
  }
  return <ActionDialog {...props} />;
}

/**
 * The action over the Account Database (BulkJobDialog: asked first, then the progress over every
 * project and the accounts not done). The count asked about is the ticked rows, or the accounts
 * matching now ('up to' where the badge is an upper bound); the set is fixed when it starts, so
 * the progress names the exact number.
 */
function ActionDialog({ action, target, onClose, onStarted }: { action: DirectoryAction; target: DirectoryTarget; onClose: () => void; onStarted?: () => void }) {
  const start = useStartDirectoryAction();
  const templates = useTemplateChoicesQuery(action === 'send');
  const [choice, setChoice] = useState<CredentialChoice>({ delivery: 'password', linkExpiresInDays: LINK_EXPIRY_DAYS_DEFAULT });
  const [id, setId] = useState<string>();
  const job = useDirectoryActionQuery(id, start.data);
  const view = id ? job.data : undefined;
  const words = directoryActionWords[action];
  const count = 'accounts' in target ? target.accounts.length : target.count;
  const many = 'accounts' in target ? plural(count, 'account') : target.countIs === 'at-most' ? `up to ${plural(count, 'account')}` : target.countIs === 'at-least' ? `${count.toLocaleString('en-US')}+ accounts` : plural(count, 'account');
  const what = 'accounts' in target ? plural(count, 'selected account') : `${target.countIs === 'exact' ? 'all ' : ''}${many} matching the filters`;

  const confirm = () => {
    if (action === 'send' && choice.delivery === 'link' && !validLinkDays(choice.linkExpiresInDays)) return;
    const selection = 'accounts' in target ? { accountIds: target.accounts.map((a) => a.id) } : { matching: target.matching };
    const send = action === 'send' ? { templateId: choice.templateId ?? defaultTemplateId(templates.data), delivery: choice.delivery, ...(choice.delivery === 'link' ? { linkExpiresInDays: choice.linkExpiresInDays } : {}) } : {};
    start.mutate(
      { action, ...selection, ...send },
      {
        onSuccess: (started) => {
          setId(started.id);
          onStarted?.();
        },
      },
    );
  };
  const notStarted = view?.parts.filter((part) => part.status === 'not_started') ?? [];

  return (
    <BulkJobDialog
      title={`${words.verb} ${what}?`}
      words={{ ...words, notDoneTitle: 'Not done' }}
      started={id !== undefined}
      progress={view && { status: view.status, total: view.total, done: view.done, failed: view.failed, skipped: view.skipped, pending: view.pending, failures: (view.failures ?? []).map((f) => ({ key: f.accountId, username: f.username, reason: f.reason })) }}
      starting={start.isPending}
      description={
        <Stack gap="2">
          <Text>
            {/* 'All 120 accounts matching the filters will be...', 'Up to 80 ...', 'The 3 selected accounts will be...' */}
            {'accounts' in target || target.countIs === 'at-least' ? `The ${what}` : `${what.charAt(0).toUpperCase()}${what.slice(1)}`} {words.explain}
          </Text>
          {'matching' in target ? <Text color="fg.muted">The accounts are taken as they match when you confirm: accounts added afterwards are not included.</Text> : null}
        </Stack>
      }
      fields={action === 'send' ? <CredentialDeliveryFields value={choice} onChange={setChoice} templates={templates.data} loading={templates.isPending} idPrefix="directory-send" /> : undefined}
      progressNote={view && view.parts.length > 1 ? ` (${plural(view.parts.length, 'project')})` : undefined}
      warning={notStarted.length ? notStarted.map((part) => `${part.projectName}: ${part.reason ?? 'not started'}`).join(' ') : undefined}
      confirmLabel={`${words.label} ${many}`}
      danger={action === 'delete' || action === 'deactivate' || action === 'reset'}
      onConfirm={confirm}
      onClose={onClose}
    />
  );
}
