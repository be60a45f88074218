import { IconButton, Menu, Portal } from '@chakra-ui/react';
import { CloudUploadIcon, EllipsisVerticalIcon, HistoryIcon, PencilIcon, PowerIcon, PowerOffIcon, Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import type { AccountView } from '@shared/schemas/project';
import { AccountActionDialog } from './account-action-dialog';
import { AccountEditDialog } from './account-edit-dialog';
import { AccountHistoryDrawer } from './account-history-drawer';

type Opened = 'edit' | 'history' | 'deactivate' | 'reactivate' | 'delete' | 'update';

/**
 * An account row's menu (the project page's accounts, the Account Database's results): Edit (a
 * dialog), History (a drawer), Deactivate or Reactivate, and Delete (each asked first, naming the
 * account and what its platform does: account-action-dialog.tsx). `onSendCredentials`: after an
 * e-mail change on an account whose credentials were sent, the edit dialog offers to send them to
 * the new address through it; after an edit of an account on a platform, it offers 'Update on
 * <platform>' (the update action for this account).
 */
export function AccountRowActions({ account, onSendCredentials }: { account: AccountView; onSendCredentials?: (account: AccountView) => void }) {
  const [open, setOpen] = useState<Opened>();
  // The account as an edit saved it, when the edit dialog's 'Update on <platform>' opens the update.
  const [edited, setEdited] = useState<AccountView>();
  const close = () => {
    setOpen(undefined);
    setEdited(undefined);
  };
  const name = `${account.firstName} ${account.lastName}`;
  return (
    <>
      <Menu.Root positioning={{ placement: 'bottom-end' }} onSelect={(details) => setOpen(details.value as Opened)}>
        <Menu.Trigger asChild>
          <IconButton size="xs" variant="ghost" aria-label={`Actions for ${name}`}>
            <EllipsisVerticalIcon />
          </IconButton>
        </Menu.Trigger>
        <Portal>
          <Menu.Positioner>
            <Menu.Content minW="40">
              <Menu.Item value="edit">
                <PencilIcon size={16} aria-hidden="true" />
                Edit
              </Menu.Item>
              <Menu.Item value="history">
                <HistoryIcon size={16} aria-hidden="true" />
                History
              </Menu.Item>
              {account.platformChange ? (
                // Edited here since its platform last had it: send the names and e-mail there.
                <Menu.Item value="update">
                  <CloudUploadIcon size={16} aria-hidden="true" />
                  Update on {account.platformChange.platform}
                </Menu.Item>
              ) : null}
              {account.isActive ? (
                <Menu.Item value="deactivate">
                  <PowerOffIcon size={16} aria-hidden="true" />
                  Deactivate
                </Menu.Item>
              ) : (
                <Menu.Item value="reactivate">
                  <PowerIcon size={16} aria-hidden="true" />
                  Reactivate
                </Menu.Item>
              )}
              <Menu.Item value="delete" color="fg.error" _hover={{ bg: 'bg.error', color: 'fg.error' }}>
                <Trash2Icon size={16} aria-hidden="true" />
                Delete
              </Menu.Item>
            </Menu.Content>
          </Menu.Positioner>
        </Portal>
      </Menu.Root>
      {open === 'edit' ? (
        <AccountEditDialog
          account={account}
          onClose={() => setOpen((now) => (now === 'edit' ? undefined : now))}
          onUpdateOnPlatform={(saved) => {
            setEdited(saved);
            setOpen('update');
          }}
          {...(onSendCredentials ? { onSendCredentials } : {})}
        />
      ) : null}
      {open === 'history' ? <AccountHistoryDrawer account={account} onClose={() => setOpen(undefined)} /> : null}
      {open === 'deactivate' || open === 'reactivate' || open === 'delete' || open === 'update' ? (
        <AccountActionDialog projectId={account.projectId} action={open} target={{ accounts: [edited ?? account] }} onClose={close} />
      ) : null}
    </>
  );
}
