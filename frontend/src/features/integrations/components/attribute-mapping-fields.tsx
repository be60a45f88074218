import { Box, Button, Code, Fieldset, HStack, IconButton, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { PlusIcon, RotateCcwIcon, XIcon } from 'lucide-react';
import { useId } from 'react';
import { attributeKey, attributeLabel, knownAttributeKeys } from '@shared/schemas/attributes';
import { defaultAttributeMapping, isPlatformAttribute, mappingProblems, platformAttributes, type AttributePreview, type MappingTarget } from '@shared/schemas/attribute-mapping';
import { serverMessageOf } from '../../../lib/api-client';
import { useAttributePreview } from '../api/integrations-api';

/** One row of the mapping: a column (its key, or a name typed) and the platform attribute it goes to. */
export interface MappingRow {
  id: number;
  column: string;
  attribute: string;
}

let nextRowId = 1;
export const mappingRows = (mapping: Readonly<Record<string, string>>): MappingRow[] => Object.entries(mapping).map(([column, attribute]) => ({ id: nextRowId++, column, attribute }));

/** The rows as the API takes them: column names normalised, rows without both halves left out. */
export function mappingOfRows(rows: readonly MappingRow[]): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const row of rows) {
    const key = attributeKey(row.column.trim()) ?? row.column.trim();
    if (key && row.attribute.trim() && !(key in mapping)) mapping[key] = row.attribute.trim();
  }
  return mapping;
}

const sameMapping = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
};

/** What the form sends: nothing while the rows are the platform's default (it stays the default), else the rows. */
export const mappingToSave = (target: MappingTarget, rows: readonly MappingRow[]): Record<string, string> | undefined => {
  const mapping = mappingOfRows(rows);
  return sameMapping(mapping, defaultAttributeMapping[target]) ? undefined : mapping;
};

/**
 * 'Columns on the platform' (Pro, as provisioning): which extra columns of a CSV (department,
 * title...) go to which of the platform's attributes, the platform's default to start from, and a
 * preview of one person's request as the adapter would send it (saved integrations: the preview
 * asks the server, which builds it with the very adapter).
 */
export function AttributeMappingFields({ target, rows, onChange, integrationId }: { target: MappingTarget; rows: MappingRow[]; onChange: (rows: MappingRow[]) => void; integrationId?: string }) {
  const preview = useAttributePreview();
  const listId = useId();
  const columnsId = useId();
  const options = platformAttributes[target];
  const closed = target === 'scim' || target === 'graph';
  const problems = mappingProblems(target, mappingOfRows(rows));
  const set = (id: number, change: Partial<MappingRow>) => onChange(rows.map((row) => (row.id === id ? { ...row, ...change } : row)));
  return (
    <Fieldset.Root>
      <Stack gap="1">
        <Fieldset.Legend fontWeight="semibold">Columns on the platform</Fieldset.Legend>
        <Fieldset.HelperText>
          Which extra columns of your files (department, title, phone...) each person gets on the platform. Columns not listed stay here only.
        </Fieldset.HelperText>
      </Stack>
      <Fieldset.Content>
        <datalist id={columnsId}>
          {knownAttributeKeys.map((key) => (
            <option key={key} value={key}>
              {attributeLabel(key)}
            </option>
          ))}
        </datalist>
        {closed ? null : (
          <datalist id={listId}>
            {options.map((option) => (
              <option key={option.name} value={option.name} />
            ))}
          </datalist>
        )}
        <Stack gap="2" data-testid="attribute-mapping">
          {rows.length === 0 ? (
            <Text fontSize="sm" color="fg.muted">
              No column goes to the platform.
            </Text>
          ) : null}
          {rows.map((row) => (
            <HStack key={row.id} gap="2" align="center" flexWrap={{ base: 'wrap', sm: 'nowrap' }}>
              <Input size="sm" flex="1" minW="32" aria-label="Column" list={columnsId} placeholder="Column, e.g. department" value={row.column} onChange={(event) => set(row.id, { column: event.target.value })} />
              <Text aria-hidden="true" color="fg.muted">
                →
              </Text>
              {closed ? (
                <NativeSelect.Root size="sm" flex="1" minW="32">
                  <NativeSelect.Field aria-label={`Platform attribute for ${row.column || 'this column'}`} value={row.attribute} onChange={(event) => set(row.id, { attribute: event.target.value })}>
                    <option value="">Choose an attribute</option>
                    {options.map((option) => (
                      <option key={option.name} value={option.name}>
                        {option.label}
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              ) : (
                <Input
                  size="sm"
                  flex="1"
                  minW="32"
                  list={listId}
                  aria-label={`Platform attribute for ${row.column || 'this column'}`}
                  aria-invalid={row.attribute !== '' && !isPlatformAttribute(target, row.attribute) ? true : undefined}
                  placeholder="Attribute"
                  value={row.attribute}
                  onChange={(event) => set(row.id, { attribute: event.target.value })}
                />
              )}
              <IconButton size="sm" variant="ghost" aria-label={`Remove ${row.column || 'this row'}`} onClick={() => onChange(rows.filter((r) => r.id !== row.id))}>
                <XIcon />
              </IconButton>
            </HStack>
          ))}
          {problems.map((problem) => (
            <Text key={problem} fontSize="sm" color="fg.error" role="alert">
              {problem}
            </Text>
          ))}
          <HStack gap="2" flexWrap="wrap">
            <Button size="sm" variant="outline" onClick={() => onChange([...rows, { id: nextRowId++, column: '', attribute: '' }])}>
              <PlusIcon /> Add a column
            </Button>
            <Button size="sm" variant="ghost" onClick={() => onChange(mappingRows(defaultAttributeMapping[target]))}>
              <RotateCcwIcon /> Platform default
            </Button>
            <Button
              size="sm"
              variant="outline"
              colorPalette="blue"
              disabled={!integrationId || problems.length > 0}
              loading={preview.isPending}
              loadingText="Preparing..."
              onClick={() => integrationId && preview.mutate({ id: integrationId, attributeMapping: mappingOfRows(rows) })}
            >
              Preview a person
            </Button>
          </HStack>
          {integrationId ? null : (
            <Text fontSize="xs" color="fg.muted">
              Save the integration to preview a person.
            </Text>
          )}
          {preview.isError ? (
            <Text fontSize="sm" color="fg.error" role="alert">
              {serverMessageOf(preview.error, [400, 403, 404]) ?? 'The preview could not be made. Please try again.'}
            </Text>
          ) : null}
          {preview.data ? <PreviewOf preview={preview.data} /> : null}
        </Stack>
      </Fieldset.Content>
    </Fieldset.Root>
  );
}

/** The request the adapter would send for the sample person (the password never shown). */
function PreviewOf({ preview }: { preview: AttributePreview }) {
  const { request } = preview;
  const heading = 'operation' in request ? `LDAP add ${request.dn}` : `${request.method} ${request.path}`;
  const body = 'operation' in request ? request.attributes : request.body;
  return (
    <Box data-testid="attribute-preview" borderWidth="1px" borderRadius="md" p="3" bg="bg.subtle">
      <Text fontSize="sm" fontWeight="medium">
        What Ada Lovelace would look like on the platform
      </Text>
      <Text fontSize="xs" color="fg.muted" mb="2">
        {heading}
      </Text>
      <Code as="pre" display="block" whiteSpace="pre-wrap" overflowWrap="anywhere" fontSize="xs" p="2" maxH="64" overflowY="auto" tabIndex={0} aria-label="Request body">
        {JSON.stringify(body, null, 2)}
      </Code>
    </Box>
  );
}
