import { IconButton, Menu, Portal } from '@chakra-ui/react';
import { EllipsisVerticalIcon, HistoryIcon, PencilIcon } from 'lucide-react';
import { useState } from 'react';
import type { AccountView } from '@shared/schemas/project';
import { AccountEditDialog } from './account-edit-dialog';
import { AccountHistoryDrawer } from './account-history-drawer';

/**
 * An account row's menu (the project page's accounts, the Account Database's results): Edit (a
 * dialog) and History (a drawer). `onSendCredentials`: after an e-mail change on an account whose
 * credentials were sent, the edit dialog offers to send them to the new address through it.
 */
export function AccountRowActions({ account, onSendCredentials }: { account: AccountView; onSendCredentials?: (account: AccountView) => void }) {
  const [open, setOpen] = useState<'edit' | 'history'>();
  const name = `${account.firstName} ${account.lastName}`;
  return (
    <>
      <Menu.Root positioning={{ placement: 'bottom-end' }} onSelect={(details) => setOpen(details.value as 'edit' | 'history')}>
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
            </Menu.Content>
          </Menu.Positioner>
        </Portal>
      </Menu.Root>
      {open === 'edit' ? <AccountEditDialog account={account} onClose={() => setOpen(undefined)} {...(onSendCredentials ? { onSendCredentials } : {})} /> : null}
      {open === 'history' ? <AccountHistoryDrawer account={account} onClose={() => setOpen(undefined)} /> : null}
    </>
  );
}
