import { Button, CloseButton, Dialog, Field, NativeSelect, Portal, Stack, Text } from '@chakra-ui/react';
import { DownloadIcon } from 'lucide-react';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { planLimits } from '@shared/plans';
import type { DirectoryFilters, DirectorySort } from '@shared/schemas/account-directory';
import { exportFormats, type ExportFormat } from '@shared/exports';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { formatNames } from '../../exports/lib/format-names';
import { useStartDirectoryExport } from '../api/account-directory-api';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { DialogActions } from '../../../components/dialog-actions';

/**
 * 'Export All' (spec 2, Account Database): the accounts the filters and the term select, as a file
 * made by the Export Center (CSV for everyone; Excel and JSON for Pro, as there). The server
 * decides the plan again (403).
 */
export function ExportAllDialog({ term, sort, filters, countText }: { term: string; sort: DirectorySort; filters: DirectoryFilters; countText: string }) {
  const [open, setOpen] = useState(false);
  const [format, setFormat] = useState<ExportFormat>('csv');
  const plan = useEffectivePlan();
  const allowed = plan ? planLimits[plan].exportFormats : exportFormats;
  const start = useStartDirectoryExport();
  const narrowed = term.length > 0 || Object.values(filters).some(Boolean);
  const submit = () =>
    start.mutate(
      { format, sort, ...(term ? { q: term } : {}), ...Object.fromEntries(Object.entries(filters).filter(([, value]) => typeof value === 'string' && value)) },
      { onSuccess: () => setOpen(false) },
    );

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open={open} onOpenChange={(details) => setOpen(details.open)} placement="center">
      <Dialog.Trigger asChild>
        <Button variant="outline" size="sm">
          <DownloadIcon aria-hidden="true" /> Export All
        </Button>
      </Dialog.Trigger>
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4">
            <Dialog.Header>
              <Dialog.Title>Export accounts</Dialog.Title>
            </Dialog.Header>
            <Dialog.Body>
              <Stack gap="4">
                <Dialog.Description>
                  {narrowed ? `Exports the accounts your search and filters select (${countText}), with their passwords.` : `Exports all your accounts (${countText}), with their passwords.`} The file is
                  made in the <RouterLink to="/exports">Export Center</RouterLink>, where it can be downloaded for 7 days.
                </Dialog.Description>
                <Field.Root>
                  <Field.Label>Format</Field.Label>
                  <NativeSelect.Root size="sm">
                    <NativeSelect.Field value={format} onChange={(event) => setFormat(event.target.value as ExportFormat)}>
                      {exportFormats.map((value) => (
                        <option key={value} value={value} disabled={!allowed.includes(value)}>
                          {formatNames[value]}
                          {allowed.includes(value) ? '' : ' (Pro)'}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                  {allowed.length < exportFormats.length ? <Field.HelperText>Excel and JSON are part of the Pro plan.</Field.HelperText> : null}
                </Field.Root>
                <Text fontSize="sm" color="fg.muted">
                  Cells that start like a formula are written as text, as in every export.
                </Text>
              </Stack>
            </Dialog.Body>
            <DialogActions busy={start.isPending} loadingText="Starting..." onSubmit={submit} submitLabel="Start export" />
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
