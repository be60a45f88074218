import { Stack } from '@chakra-ui/react';
import { PageHeader } from '../../../components/page-header';
import { CreateExportForm } from './create-export-form';
import { ExportHistory } from './export-history';

/** Export Center (spec 2): start an export of a project, follow it, download the file. */
export function ExportsPage() {
  return (
    <>
      <PageHeader title="Export Center" subtitle="Export the accounts of your projects as CSV, Excel or JSON." />
      <Stack gap="8">
        <CreateExportForm />
        <ExportHistory />
      </Stack>
    </>
  );
}
