import { Button, Card, Flex, Skeleton, Stack, Tabs, Text } from '@chakra-ui/react';
import { FileSpreadsheetIcon, KeyboardIcon } from 'lucide-react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ACCOUNT_CSV_HEADER, toCsv, UTF8_BOM } from '@shared/csv/write-csv';
import { UPLOAD_MAX_ROWS } from '@shared/schemas/bulk-upload';
import { PageHeader } from '../../../components/page-header';
import { QueryErrorCard } from '../../../components/query-error-card';
import { effectivePlanOf, isPaymentFailed } from '../../../lib/plan-status';
import { saveCsv } from '../../../lib/save-file';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import { readCsvFile, type CsvFile } from '../lib/read-csv-file';
import { BulkCreateDialog } from './bulk-create-dialog';
import { CsvDropZone } from './csv-drop-zone';
import { ManualEntryForm, ManualEntryResult, type ManualResult } from './manual-entry-form';
import { PlanUsageBanner } from './plan-usage-banner';
import { UpgradeRequiredCard } from './upgrade-required-card';

/** ?dialog=csv opens the bulk dialog (the Dashboard's Quick Action links here). */
const DIALOG_PARAM = 'dialog';

export function BulkCreatorPage() {
  const subscription = useSubscriptionStatus();
  const [searchParams, setSearchParams] = useSearchParams();
  // The dialog and the last manual result outlive the limit check: a creation that reaches the
  // limit must still show its credentials, so they sit beside (not inside) the Upgrade card.
  const [dialog, setDialog] = useState<{ session: string; file?: CsvFile }>();
  const [manualResult, setManualResult] = useState<ManualResult>();
  const [reading, setReading] = useState(false);

  const usage = subscription.data?.usage;
  const limitReached = !!usage && (!usage.canCreateProject || !usage.canCreateAccount);
  const requested = searchParams.get(DIALOG_PARAM) === 'csv';
  const open = dialog !== undefined || (requested && !!subscription.data && !limitReached);

  const openWithFile = async (chosen: File) => {
    setReading(true);
    const file = await readCsvFile(chosen);
    setReading(false);
    if (file) setDialog({ session: String(Date.now()), file });
  };

  const closeDialog = () => {
    setDialog(undefined);
    if (requested) {
      setSearchParams(
        (params) => {
          params.delete(DIALOG_PARAM);
          return params;
        },
        { replace: true },
      );
    }
  };

  return (
    <>
      <PageHeader
        title="Bulk Account Creator"
        subtitle="Create many user accounts at once from a CSV file or by manual entry."
      />
      {subscription.isPending ? (
        <Stack gap="4" role="status" aria-label="Loading your plan">
          <Skeleton height="16" borderRadius="md" />
          <Skeleton height="72" borderRadius="lg" />
        </Stack>
      ) : subscription.isError ? (
        <QueryErrorCard
          message="Failed to load subscription information."
          onRetry={() => void subscription.refetch()}
          retrying={subscription.isFetching}
        />
      ) : (
        <Stack gap="6">
          {effectivePlanOf(subscription.data) === 'free' ? (
            <PlanUsageBanner usage={subscription.data.usage} paymentFailed={isPaymentFailed(subscription.data)} />
          ) : null}
          {limitReached ? (
            <UpgradeRequiredCard usage={subscription.data.usage} paymentFailed={isPaymentFailed(subscription.data)} />
          ) : (
            <CreatorTabs onFile={(file) => void openWithFile(file)} reading={reading} onManualCreated={setManualResult} />
          )}
          {manualResult ? <ManualEntryResult key={manualResult.response.project.id} result={manualResult} /> : null}
        </Stack>
      )}
      {open ? (
        <BulkCreateDialog
          key={dialog?.session ?? 'requested'}
          initialFile={dialog?.file}
          subscription={subscription.data}
          // Keeps a dialog opened through ?dialog=csv open once it has created (the limit may now be reached).
          onCreated={() => setDialog((current) => current ?? { session: 'requested' })}
          onClose={closeDialog}
        />
      ) : null}
    </>
  );
}

function CreatorTabs({
  onFile,
  reading,
  onManualCreated,
}: {
  onFile: (file: File) => void;
  reading: boolean;
  onManualCreated: (result: ManualResult) => void;
}) {
  return (
    <Tabs.Root defaultValue="csv" variant="line">
      <Tabs.List mb="2">
        <Tabs.Trigger value="csv">
          <FileSpreadsheetIcon size={16} aria-hidden="true" />
          CSV Upload
        </Tabs.Trigger>
        <Tabs.Trigger value="manual">
          <KeyboardIcon size={16} aria-hidden="true" />
          Manual Entry
        </Tabs.Trigger>
      </Tabs.List>
      <Tabs.Content value="csv">
        <Card.Root variant="outline">
          <Card.Header>
            <Card.Title as="h2">Upload CSV File</Card.Title>
            <Card.Description>
              One person a line with first name, last name and e-mail. A header line is optional; its columns may be
              in any order.
            </Card.Description>
          </Card.Header>
          <Card.Body gap="4">
            <CsvDropZone onFile={onFile} busy={reading} />
            <Flex justify="space-between" align="center" gap="3" wrap="wrap">
              <Text fontSize="sm" color="fg.muted">
                Up to {UPLOAD_MAX_ROWS.toLocaleString('en-US')} rows per file. Invalid rows are listed before anything is created.
              </Text>
              <Button variant="ghost" size="sm" onClick={downloadTemplate}>
                Download template
              </Button>
            </Flex>
          </Card.Body>
        </Card.Root>
      </Tabs.Content>
      <Tabs.Content value="manual">
        <ManualEntryForm onCreated={onManualCreated} />
      </Tabs.Content>
    </Tabs.Root>
  );
}

function downloadTemplate() {
  saveCsv(
    UTF8_BOM +
      toCsv(ACCOUNT_CSV_HEADER.slice(0, 3), [
        ['Jane', 'Doe', 'jane.doe@example.com'],
        ['John', 'Smith', 'john.smith@example.com'],
      ]),
    'accounts_template.csv',
  );
}
