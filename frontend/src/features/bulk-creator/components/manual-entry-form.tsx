import { Alert, Box, Button, Card, Fieldset, Flex, IconButton, Input, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { DownloadIcon, PlusIcon, Trash2Icon } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import { manualEntrySchema, type PasswordSettings } from '@shared/schemas/bulk';
import { FormField } from '../../../components/form-field';
import { saveCsv } from '../../../lib/save-file';
import { toaster } from '../../../lib/toaster';
import { isJobStarted, useBulkCreateMutation, type BulkCreateResponse } from '../api/bulk-create-api';
import { accountsFileName, createdAccountsCsv } from '../lib/created-accounts-csv';
import { CreatedAccountsResult, failedRowProblems } from './bulk-complete-stage';
import { ExtraColumnInputs, ExtraColumnsBar } from './extra-column-fields';
import { manualEntryRows, type ExtraColumn } from '../lib/extra-columns';
import { plural } from '@shared/text/plural';

/** Spec 7: manual entry always uses these settings, and no account type (the server's default). */
const MANUAL_PASSWORD_SETTINGS: PasswordSettings = {
  minLength: 12,
  includeUppercase: true,
  includeLowercase: true,
  includeNumbers: true,
  includeSpecialChars: true,
  avoidAmbiguous: false,
};

const emptyRow = { firstName: '', lastName: '', email: '', attributes: {} };

export interface ManualResult {
  response: BulkCreateResponse;
  sent: number;
}

/** The form; the page shows the result (it stays even when this creation reached the plan limit). */
export function ManualEntryForm({ onCreated }: { onCreated: (result: ManualResult) => void }) {
  const create = useBulkCreateMutation();
  const {
    register,
    control,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm({
    resolver: zodResolver(manualEntrySchema),
    defaultValues: { projectName: '', accounts: [emptyRow] },
  });
  const { fields, append, remove } = useFieldArray({ control, name: 'accounts' });
  const [columns, setColumns] = useState<ExtraColumn[]>([]);

  const onSubmit = handleSubmit((values) => {
    create.mutate(
      { projectName: values.projectName, csvData: manualEntryRows(values.accounts, columns), passwordSettings: MANUAL_PASSWORD_SETTINGS },
      {
        onSuccess: (response) => {
          onCreated({ response, sent: values.accounts.length });
          reset({ projectName: '', accounts: [emptyRow] });
          setColumns([]);
          toaster.create({
            type: 'success',
            title: isJobStarted(response) ? 'Account creation started' : 'Accounts created successfully',
            description: isJobStarted(response)
              ? `${plural(response.job.total, 'account is', 'accounts are')} being created.`
              : `${plural(response.summary.successful, 'account has', 'accounts have')} been created.`,
          });
        },
      },
    );
  });

  const arrayError = errors.accounts?.root?.message ?? errors.accounts?.message;

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Manual Entry</Card.Title>
        <Card.Description>
          Type the people in. Passwords are 12 characters with upper- and lower-case letters, numbers and special
          characters.
        </Card.Description>
      </Card.Header>
      <Card.Body>
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="5">
            <FormField label="Project name" error={errors.projectName?.message}>
              <Input autoComplete="off" placeholder="New hires, March" {...register('projectName')} />
            </FormField>
            <Stack gap="3">
              {fields.map((field, index) => {
                const rowErrors = errors.accounts?.[index];
                return (
                  <Fieldset.Root key={field.id} borderWidth="1px" borderRadius="md" p="3">
                    <Flex justify="space-between" align="center" mb="2">
                      <Fieldset.Legend fontSize="sm" color="fg.muted">
                        Account {index + 1}
                      </Fieldset.Legend>
                      {fields.length > 1 ? (
                        <IconButton
                          aria-label={`Remove account ${index + 1}`}
                          variant="ghost"
                          size="xs"
                          colorPalette="red"
                          onClick={() => remove(index)}
                        >
                          <Trash2Icon />
                        </IconButton>
                      ) : null}
                    </Flex>
                    <SimpleGrid columns={{ base: 1, md: 3 }} gap="3">
                      <FormField label="First name" error={rowErrors?.firstName?.message}>
                        <Input autoComplete="off" {...register(`accounts.${index}.firstName`)} />
                      </FormField>
                      <FormField label="Last name" error={rowErrors?.lastName?.message}>
                        <Input autoComplete="off" {...register(`accounts.${index}.lastName`)} />
                      </FormField>
                      <FormField label="Email" error={rowErrors?.email?.message}>
                        <Input type="email" autoComplete="off" {...register(`accounts.${index}.email`)} />
                      </FormField>
                      <ExtraColumnInputs columns={columns} person={`account ${index + 1}`} labelled register={(key) => register(`accounts.${index}.attributes.${key}`)} />
                    </SimpleGrid>
                    {typeof rowErrors?.attributes?.message === 'string' ? (
                      <Text color="fg.error" fontSize="sm" mt="2" role="alert">
                        {rowErrors.attributes.message}
                      </Text>
                    ) : null}
                  </Fieldset.Root>
                );
              })}
            </Stack>
            {arrayError ? (
              <Text color="fg.error" fontSize="sm" role="alert">
                {arrayError}
              </Text>
            ) : null}
            <ExtraColumnsBar columns={columns} onChange={setColumns} disabled={create.isPending} />
            <Flex gap="3" justify="space-between" wrap="wrap">
              <Button type="button" variant="outline" onClick={() => append(emptyRow)}>
                <PlusIcon aria-hidden="true" />
                Add Row
              </Button>
              <Button type="submit" colorPalette="blue" loading={create.isPending} loadingText="Creating...">
                Create Accounts
              </Button>
            </Flex>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}

/**
 * What a manual entry created; passwords masked until shown. It is rendered under the form, so it
 * brings itself to the top of the screen when it appears (focus on its heading, for screen
 * readers too): 'View project' and 'Download CSV' are what the user needs next, and at the bottom
 * of the screen they sat under the success toast (bottom corner, lib/toaster).
 */
export function ManualEntryResult({ result }: { result: ManualResult }) {
  const [showPasswords, setShowPasswords] = useState(false);
  const { response } = result;
  const top = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    top.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  const projectLink = (
    <Button asChild variant="outline" size="sm">
      <RouterLink to={`/projects/${encodeURIComponent(response.project.id)}`}>View project</RouterLink>
    </Button>
  );
  if (isJobStarted(response)) {
    return (
      <Alert.Root ref={top} scrollMarginTop="20" status="info">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title ref={heading} tabIndex={-1} outline="none">
            Accounts are being created in the background
          </Alert.Title>
          <Alert.Description>Their credentials are in the project&apos;s export once the job has finished.</Alert.Description>
        </Alert.Content>
        {projectLink}
      </Alert.Root>
    );
  }
  const rows = response.accounts.map((account) => ({ ...account, password: account.plainPassword }));
  const sentRows = Array.from({ length: result.sent }, (_, index) => ({ row: index + 1 }));
  return (
    <Card.Root ref={top} scrollMarginTop="20" variant="outline">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <Box>
            <Card.Title as="h2" ref={heading} tabIndex={-1} outline="none">
              {response.project.name}
            </Card.Title>
            <Card.Description>The accounts just created.</Card.Description>
          </Box>
          <Flex gap="2">
            {projectLink}
            <Button
              size="sm"
              colorPalette="blue"
              onClick={() => saveCsv(createdAccountsCsv(rows), accountsFileName(response.project.name))}
            >
              <DownloadIcon aria-hidden="true" />
              Download CSV
            </Button>
          </Flex>
        </Flex>
      </Card.Header>
      <Card.Body>
        <CreatedAccountsResult
          rows={rows}
          created={response.summary.successful}
          problems={failedRowProblems(response.summary, sentRows, 'Account')}
          showPasswords={showPasswords}
          onTogglePasswords={() => setShowPasswords((shown) => !shown)}
        />
      </Card.Body>
    </Card.Root>
  );
}
