import { Alert, Button, Card, CloseButton, DataList, Dialog, Flex, Link, NativeSelect, Portal, Stack, Text } from '@chakra-ui/react';
import { CloudUploadIcon, CrownIcon, RotateCcwIcon, Undo2Icon } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { proFeatures } from '@shared/plans';
import type { Project } from '@shared/schemas/project';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { FormField } from '../../../components/form-field';
import { ProvisioningProgress } from '../../../components/provisioning-progress';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { useIntegrationsQuery } from '../../../lib/integrations-query';
import { useProvisioningJobQuery, useStartProvisioning } from '../../../lib/provisioning-api';
import { defaultTarget, projectSyncCounts, provisioningActive, provisioningTargets } from '../../../lib/provisioning-progress';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { plural } from '@shared/text/plural';
import { ignoreFocusOutside } from '../../../lib/modal-focus';
import { RefusedTargets } from '../../../components/refused-targets';
import { DialogActions } from '../../../components/dialog-actions';

const count = new Intl.NumberFormat();
const DIALOG_FORM_ID = 'provision-project-form';

/**
 * A project on the platform of an integration: its accounts Synced / Sync Failed / Removed /
 * Pending (they add up to its accounts), its latest run followed while it runs, 'Provision to...',
 * 'Retry failed' (only with failed accounts) and 'Undo on platform' (only with synced accounts,
 * after asking), both to the project's integration. Without Pro they open the gate.
 */
export function ProjectProvisioning({ project }: { project: Project }) {
  const plan = useEffectivePlan();
  const counts = projectSyncCounts(project);
  const run = useProvisioningJobQuery(project.provisioningJobId);
  const start = useStartProvisioning();
  const [choosing, setChoosing] = useState(false);
  const [gateOpen, setGateOpen] = useState(false);
  const [confirmingUndo, setConfirmingUndo] = useState(false);
  const integrations = useIntegrationsQuery(plan === 'pro' && counts.synced > 0);
  const target = integrations.data?.find((integration) => integration.id === project.integrationId);
  const job = run.data;
  const active = provisioningActive(job?.status);
  const gated = plan !== 'pro';

  const retry = () => {
    if (gated) setGateOpen(true);
    else if (project.integrationId) start.mutate({ projectId: project.id, integrationId: project.integrationId, mode: 'retry' });
  };

  const undo = () => {
    if (!project.integrationId) return;
    start.mutate(
      { projectId: project.id, integrationId: project.integrationId, mode: 'undo' },
      { onSettled: () => setConfirmingUndo(false) },
    );
  };

  return (
    <Card.Root variant="outline" as="section" aria-labelledby="project-platform-title">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <Card.Title as="h2" id="project-platform-title">
            On the platform
          </Card.Title>
          <Flex gap="2" wrap="wrap">
            {counts.failed > 0 && project.integrationId ? (
              <Button size="sm" variant="outline" colorPalette="red" onClick={retry} disabled={!plan || active} loading={start.isPending && start.variables?.mode === 'retry'}>
                {gated ? <CrownIcon aria-hidden="true" /> : <RotateCcwIcon aria-hidden="true" />}
                Retry failed
              </Button>
            ) : null}
            {counts.synced > 0 && project.integrationId ? (
              <Button size="sm" variant="outline" onClick={() => (gated ? setGateOpen(true) : setConfirmingUndo(true))} disabled={!plan || active}>
                {gated ? <CrownIcon aria-hidden="true" /> : <Undo2Icon aria-hidden="true" />}
                Undo on platform
              </Button>
            ) : null}
            <Button size="sm" variant="outline" disabled={!plan || active} onClick={() => (gated ? setGateOpen(true) : setChoosing(true))}>
              {gated ? <CrownIcon aria-hidden="true" /> : <CloudUploadIcon aria-hidden="true" />}
              Provision to...
            </Button>
          </Flex>
        </Flex>
      </Card.Header>
      <Card.Body gap="4">
        <DataList.Root orientation="horizontal" size="sm" flexDirection="row" flexWrap="wrap" columnGap="8" rowGap="2" aria-label="Accounts on the platform">
          <SyncCount label="Synced" value={counts.synced} color="fg.success" />
          <SyncCount label="Sync Failed" value={counts.failed} color={counts.failed ? 'fg.error' : undefined} />
          {counts.removed ? <SyncCount label="Removed" value={counts.removed} /> : null}
          <SyncCount label="Pending" value={counts.pending} />
        </DataList.Root>
        {job ? <ProvisioningProgress job={job} lost={run.isError} /> : null}
        {!job && !project.provisioningJobId ? (
          <Text fontSize="sm" color="fg.muted">
            These accounts have not been created on a platform. Provision to... creates them on one of your integrations.
          </Text>
        ) : null}
      </Card.Body>
      {choosing ? <ProvisionDialog project={project} pending={counts.pending} onClose={() => setChoosing(false)} /> : null}
      <UpgradePromptDialog feature={proFeatures.apiIntegrations} open={gateOpen} onOpenChange={setGateOpen} />
      <ConfirmDialog
        open={confirmingUndo}
        onOpenChange={setConfirmingUndo}
        title="Undo on platform?"
        description={
          <>
            The {plural(counts.synced, 'synced account')} of {project.name} will be{' '}
            {undoWords(target?.apiConfig.provisioning?.undo)} on {target?.name ?? 'the platform'}. They stay here, marked Removed from
            platform, with their credentials.
          </>
        }
        confirmLabel="Undo on platform"
        busy={start.isPending}
        busyLabel="Starting..."
        onConfirm={undo}
      />
    </Card.Root>
  );
}

/** What undo does on the platform: the integration's setting, or its platform's own default. */
const undoWords = (setting: 'deactivate' | 'delete' | undefined) =>
  setting === 'delete' ? 'deleted' : setting === 'deactivate' ? 'deactivated' : 'deactivated or deleted (as the platform does by default)';

function SyncCount({ label, value, color }: { label: string; value: number; color?: string }) {
  return (
    <DataList.Item>
      <DataList.ItemLabel minW="auto">{label}</DataList.ItemLabel>
      <DataList.ItemValue fontWeight="semibold" color={color}>
        {count.format(value)}
      </DataList.ItemValue>
    </DataList.Item>
  );
}

/**
 * 'Provision to...': the integration to create the project's pending accounts on (the project's
 * own first); integrations that cannot be a target are listed disabled with the reason.
 */
function ProvisionDialog({ project, pending, onClose }: { project: Project; pending: number; onClose: () => void }) {
  const integrations = useIntegrationsQuery();
  const start = useStartProvisioning();
  const choices = provisioningTargets(integrations.data ?? []);
  const [chosen, setChosen] = useState<string>();
  const target = chosen ?? defaultTarget(choices, project.integrationId);
  const busy = start.isPending;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!target) return;
    start.mutate({ projectId: project.id, integrationId: target, mode: 'provision' }, { onSuccess: onClose });
  };

  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside}
      open
      onOpenChange={(details) => {
        if (!details.open && !busy) onClose();
      }}
      closeOnInteractOutside={!busy}
      placement="center"
    >
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4" aria-busy={busy}>
            <Dialog.Header flexDirection="column" alignItems="flex-start" gap="1">
              <Dialog.Title>Provision to...</Dialog.Title>
              <Dialog.Description>
                Create the {plural(pending, 'pending account')} of {project.name} on a platform.
              </Dialog.Description>
            </Dialog.Header>
            <Dialog.Body>
              <form id={DIALOG_FORM_ID} onSubmit={submit} noValidate>
                <Stack gap="4">
                  {pending === 0 ? (
                    <Alert.Root status="info" size="sm">
                      <Alert.Indicator />
                      <Alert.Description>
                        Every account of this project has an outcome already. Retry failed takes the failed ones again.
                      </Alert.Description>
                    </Alert.Root>
                  ) : null}
                  {integrations.isPending ? (
                    <Text fontSize="sm" color="fg.muted">
                      Loading your integrations...
                    </Text>
                  ) : choices.length === 0 ? (
                    <Text fontSize="sm">
                      You have no integration yet.{' '}
                      <Link asChild color="blue.fg" fontWeight="medium">
                        <RouterLink to="/integrations">Add one in API Integrations</RouterLink>
                      </Link>
                      .
                    </Text>
                  ) : (
                    <FormField
                      label="Integration"
                      helperText={
                        project.integrationId
                          ? "This project's accounts are provisioned to its integration; another one is refused once any account is synced."
                          : undefined
                      }
                    >
                      <NativeSelect.Root>
                        <NativeSelect.Field value={target} onChange={(event) => setChosen(event.target.value)}>
                          {choices.map(({ integration, reason }) => (
                            <option key={integration.id} value={integration.id} disabled={!!reason}>
                              {integration.name}
                              {reason ? ' (not available)' : ''}
                            </option>
                          ))}
                        </NativeSelect.Field>
                        <NativeSelect.Indicator />
                      </NativeSelect.Root>
                    </FormField>
                  )}
                  <RefusedTargets choices={choices} />
                </Stack>
              </form>
            </Dialog.Body>
            <DialogActions form={DIALOG_FORM_ID} busy={busy} disabled={!target || pending === 0} submitLabel="Start provisioning" />
            {busy ? null : (
              <Dialog.CloseTrigger asChild>
                <CloseButton size="sm" />
              </Dialog.CloseTrigger>
            )}
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
