import { Button, Card, Stack, Text } from '@chakra-ui/react';
import { Trash2Icon } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDeleteAccount } from '../api/account-data-api';
import { ExportAllDataCard } from './export-all-data-card';

export const DELETE_ACCOUNT_CONFIRMATION = 'Are you sure you want to delete your account? This action cannot be undone.';

/** Settings > Data (spec 2): Export All Data, and the Danger Zone with Delete Account. */
export function DataTab() {
  return (
    <Stack gap="6">
      <ExportAllDataCard />
      <DangerZoneCard />
    </Stack>
  );
}

function DangerZoneCard() {
  const [open, setOpen] = useState(false);
  const deletion = useDeleteAccount();
  return (
    <Card.Root variant="outline" borderColor="border.error">
      <Card.Header>
        <Card.Title as="h2" color="fg.error">
          Danger Zone
        </Card.Title>
        <Card.Description>
          Deleting your account removes your profile, projects, accounts, integrations, templates, exports and your
          subscription for good.
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <Text fontSize="sm" color="fg.muted" mb="4">
          Export your data first if you want to keep a copy.
        </Text>
        {/* Not the dialog's own trigger: an open trigger turns translucent (Chakra's _expanded), below contrast. */}
        <Button colorPalette="red" variant="solid" alignSelf="flex-start" aria-haspopup="dialog" onClick={() => setOpen(true)}>
          <Trash2Icon aria-hidden="true" />
          Delete Account
        </Button>
        <ConfirmDialog
          open={open}
          onOpenChange={setOpen}
          title="Delete Account"
          description={DELETE_ACCOUNT_CONFIRMATION}
          confirmLabel="Delete Account"
          busy={deletion.isPending || deletion.isSuccess}
          onConfirm={() => deletion.mutate()}
        />
      </Card.Body>
    </Card.Root>
  );
}
