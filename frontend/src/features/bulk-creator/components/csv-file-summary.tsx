import { Alert, Badge, Box, Button, Code, HStack, Stack, Table, Text } from '@chakra-ui/react';
import { DownloadIcon, FileTextIcon } from 'lucide-react';
import { rejectedRowsCsv } from '@shared/csv/read-people';
import { ScrollTable } from '../../../components/scroll-table';
import { saveCsv } from '../../../lib/save-file';
import { PREVIEW_ROWS, type CsvFile } from '../lib/read-csv-file';
import { RowProblemsList } from './row-problems-list';
import { plural } from '@shared/text/plural';

const count = (value: number) => value.toLocaleString();

/** The rows that will be skipped: the dialog's footer links here (bulk-create-dialog). */
export const SKIPPED_ROWS_ID = 'bulk-skipped-rows';
const baseName = (fileName: string) => fileName.replace(/\.csv$/i, '');

/** What the chosen file holds: valid and invalid counts, a preview, the problems, the rejected rows. */
export function CsvFileSummary({ file }: { file: CsvFile }) {
  const { valid } = file.result;
  // Of a file read only in part, the problems of its opening lines are the server's to report (all of them).
  const invalid = file.partial ? [] : file.result.invalid;
  return (
    <Stack gap="4">
      <HStack gap="2" wrap="wrap">
        <FileTextIcon size={16} aria-hidden="true" />
        <Text fontWeight="medium" wordBreak="break-all">
          {file.name}
        </Text>
        {file.partial ? (
          <Badge colorPalette="blue" variant="subtle">
            {(file.size / (1024 * 1024)).toFixed(1)} MB: rows counted on the server
          </Badge>
        ) : (
          <Badge colorPalette="green" variant="subtle">
            {count(valid.length)} valid
          </Badge>
        )}
        {invalid.length ? (
          <Badge colorPalette="red" variant="subtle">
            {count(invalid.length)} invalid
          </Badge>
        ) : null}
      </HStack>

      {valid.length ? (
        <Box>
          <Text fontSize="sm" fontWeight="semibold" mb="2">
            {file.partial ? `Preview (the file's first ${Math.min(PREVIEW_ROWS, valid.length)} valid rows)` : `Preview (first ${Math.min(PREVIEW_ROWS, valid.length)} of ${count(valid.length)})`}
          </Text>
          {/* On a phone the preview scrolls sideways: ScrollTable makes it reachable by keyboard. */}
          <ScrollTable label="Preview of the accounts to create" borderWidth="1px" borderRadius="md">
            <Table.Root size="sm">
              <Table.Caption srOnly>Preview of the accounts to create</Table.Caption>
              <Table.Header>
                <Table.Row bg="bg.muted">
                  <Table.ColumnHeader>Name</Table.ColumnHeader>
                  <Table.ColumnHeader>Email</Table.ColumnHeader>
                  <Table.ColumnHeader>Username</Table.ColumnHeader>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {valid.slice(0, PREVIEW_ROWS).map((row, index) => (
                  <Table.Row key={row.row}>
                    <Table.Cell whiteSpace="nowrap">
                      {row.firstName} {row.lastName}
                    </Table.Cell>
                    <Table.Cell wordBreak="break-all" minW="36">
                      {row.email}
                    </Table.Cell>
                    <Table.Cell>
                      <Code variant="surface">{file.previewUsernames[index]}</Code>
                    </Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </ScrollTable>
          <Text fontSize="xs" color="fg.muted" mt="1">
            A username already used in one of your projects gets a number added (johnsmith2026-2).
          </Text>
        </Box>
      ) : null}

      {invalid.length ? (
        <Alert.Root id={SKIPPED_ROWS_ID} tabIndex={-1} scrollMarginTop="4" status={valid.length ? 'warning' : 'error'} alignItems="flex-start">
          <Alert.Indicator />
          <Alert.Content gap="3" minW="0">
            <Alert.Title>
              {plural(invalid.length, 'row has', 'rows have')} problems
              {valid.length ? ' and will be skipped' : ''}
            </Alert.Title>
            <Alert.Description>
              <Stack gap="3">
                <RowProblemsList
                  label="Rows with problems"
                  problems={invalid.flatMap((row) =>
                    row.issues.map((issue) => ({ label: `Row ${row.row}`, field: issue.field, message: issue.message })),
                  )}
                />
                <Box>
                  <Button
                    size="xs"
                    variant="outline"
                    onClick={() => saveCsv(rejectedRowsCsv(invalid), `${baseName(file.name)}_rejected_rows.csv`)}
                  >
                    <DownloadIcon aria-hidden="true" />
                    Download rejected rows
                  </Button>
                </Box>
              </Stack>
            </Alert.Description>
          </Alert.Content>
        </Alert.Root>
      ) : null}
    </Stack>
  );
}
