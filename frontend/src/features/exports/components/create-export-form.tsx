import { Button, Card, chakra, Flex, Link, NativeSelect, SimpleGrid, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { DownloadIcon } from 'lucide-react';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link as RouterLink } from 'react-router';
import type * as z from 'zod';
import { planLimits, proFeatures } from '@shared/plans';
import { createExportSchema, exportFormats, type CreateExportRequest, type ExportFormat } from '@shared/schemas/export';
import { FormField } from '../../../components/form-field';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { useProjectsQuery } from '../../../lib/projects-api';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { toaster } from '../../../lib/toaster';
import { useStartExport } from '../api/exports-api';
import { formatNames } from '../lib/format-names';
import { plural } from '@shared/text/plural';

type CreateExportValues = z.output<typeof createExportSchema>;

const accounts = (count: number) => plural(count, 'account');

/**
 * 'Create New Export' (spec 2): a project and a format. Formats outside the plan are listed, marked
 * '(Pro)' and dimmed; choosing one opens the upgrade prompt and keeps the format as it was
 * (spec 4). The server refuses them too (403), so this is a courtesy, not the gate. It reads the
 * subscription status, so an upgrade (or a lapsed payment) changes the list as soon as that is read again.
 */
export function CreateExportForm() {
  // The plan in force (a past-due Pro plan exports CSV only); every format until it has loaded.
  const plan = useEffectivePlan();
  const allowedFormats = plan ? planLimits[plan].exportFormats : exportFormats;
  const projects = useProjectsQuery();
  const startExport = useStartExport();
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const {
    register,
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<CreateExportRequest, unknown, CreateExportValues>({
    resolver: zodResolver(createExportSchema),
    defaultValues: { projectId: '', format: 'csv' },
  });

  const onSubmit = handleSubmit(
    (values) => startExport.mutate(values),
    (invalid) => {
      if (invalid.projectId) {
        toaster.create({ type: 'error', title: 'Project required', description: 'Please select a project to export.' });
      }
    },
  );

  const projectList = projects.data ?? [];
  const noProjects = projects.isSuccess && projectList.length === 0;
  const projectHelp = projects.isError ? (
    <>
      Projects could not be loaded.{' '}
      <Link as="button" variant="underline" onClick={() => void projects.refetch()}>
        Retry
      </Link>
    </>
  ) : noProjects ? (
    <>
      No projects yet.{' '}
      <Link asChild variant="underline">
        <RouterLink to="/bulk-creator">Create one in the Bulk Creator</RouterLink>
      </Link>
      .
    </>
  ) : undefined;

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Create New Export</Card.Title>
        <Card.Description>Export the accounts of a project, with their credentials, as a file.</Card.Description>
      </Card.Header>
      <Card.Body>
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="5">
            <SimpleGrid columns={{ base: 1, md: 2 }} gap="4">
              <FormField label="Project" error={errors.projectId?.message} helperText={projectHelp}>
                <NativeSelect.Root disabled={projects.isPending || noProjects}>
                  <NativeSelect.Field {...register('projectId')}>
                    <option value="">{projects.isPending ? 'Loading projects...' : 'Select a project'}</option>
                    {projectList.map((project) => (
                      <option key={project.id} value={project.id}>
                        {project.name} ({accounts(project.accountCount)})
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              </FormField>
              <FormField
                label="Format"
                error={errors.format?.message}
                helperText={allowedFormats.length < exportFormats.length ? 'Excel and JSON are part of the Pro plan.' : undefined}
              >
                <Controller
                  control={control}
                  name="format"
                  render={({ field }) => (
                    <NativeSelect.Root>
                      <NativeSelect.Field
                        name={field.name}
                        ref={field.ref}
                        value={field.value ?? 'csv'}
                        onBlur={field.onBlur}
                        onChange={(event) => {
                          const format = event.target.value as ExportFormat;
                          // Not on this plan: the select stays controlled at the format kept.
                          if (allowedFormats.includes(format)) field.onChange(format);
                          else setUpgradeOpen(true);
                        }}
                      >
                        {exportFormats.map((format) =>
                          allowedFormats.includes(format) ? (
                            <option key={format} value={format}>
                              {formatNames[format]}
                            </option>
                          ) : (
                            <chakra.option key={format} value={format} color="fg.subtle">
                              {formatNames[format]} (Pro)
                            </chakra.option>
                          ),
                        )}
                      </NativeSelect.Field>
                      <NativeSelect.Indicator />
                    </NativeSelect.Root>
                  )}
                />
              </FormField>
            </SimpleGrid>
            <Flex justify="flex-end">
              <Button
                type="submit"
                colorPalette="blue"
                w={{ base: 'full', sm: 'auto' }}
                loading={startExport.isPending}
                loadingText="Starting..."
              >
                <DownloadIcon aria-hidden="true" />
                Start Export
              </Button>
            </Flex>
          </Stack>
        </form>
      </Card.Body>
      <UpgradePromptDialog feature={proFeatures.exportFormats} open={upgradeOpen} onOpenChange={setUpgradeOpen} />
    </Card.Root>
  );
}
