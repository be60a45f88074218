import { Button, Field, Stack, TagsInput, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useState } from 'react';
import { Controller, type Control, type FieldValues, type Path } from 'react-hook-form';
import { proFeatures } from '@shared/plans';
import { GROUP_NAME_MAX, PROJECT_GROUPS_MAX } from '@shared/schemas/project';
import { lifecycleSupport, type OperationSupport } from '@shared/schemas/lifecycle';
import type { ProvisioningTarget } from '@shared/schemas/provisioning';
import { SettingSwitch } from './setting-switch';
import { UpgradePromptDialog } from './upgrade-prompt-dialog';

/**
 * A project's platform groups (issue 28 item 5) in its Edit and in the bulk creator (when the
 * accounts are also created on a platform): a chips input of group names (Enter
 * or a comma adds one; each chip has its remove button) and 'Create groups that do not exist'.
 * Pro, as provisioning is: a free user sees what it does and the upgrade prompt instead of the
 * field (groups already named stay listed, and can be removed).
 */
export function ProjectGroupsFields({
  groups,
  createGroups,
  onGroupsChange,
  onCreateGroupsChange,
  error,
  pro,
  idPrefix,
  platform,
}: {
  groups: string[];
  createGroups: boolean;
  onGroupsChange: (groups: string[]) => void;
  onCreateGroupsChange: (create: boolean) => void;
  error?: string;
  /** Undefined while the plan loads. */
  pro: boolean | undefined;
  /** Keeps the ids unique on the page ('project-edit', 'bulk-create'). */
  idPrefix: string;
  /** What the project's platform does with groups, or why it cannot (lifecycleSupport(integration).groups), when it is known. */
  platform?: { name: string; support: OperationSupport };
}) {
  const [gate, setGate] = useState(false);
  const helperId = `${idPrefix}-groups-help`;
  if (pro === false && groups.length === 0) {
    return (
      <Stack gap="2" borderWidth="1px" borderRadius="md" p="3">
        <Text fontWeight="medium">Platform groups</Text>
        <Text fontSize="sm" color="fg.muted">
          When the accounts are provisioned, they can join groups on the platform (SCIM, Okta, Microsoft Entra ID, LDAP groups, Salesforce permission sets or public groups).
        </Text>
        <Button variant="outline" size="sm" alignSelf="flex-start" onClick={() => setGate(true)}>
          <CrownIcon aria-hidden="true" />
          Add groups
        </Button>
        <UpgradePromptDialog feature={proFeatures.apiIntegrations} open={gate} onOpenChange={setGate} />
      </Stack>
    );
  }
  return (
    <Stack gap="3" borderWidth="1px" borderRadius="md" p="3">
      <Field.Root invalid={!!error}>
        <TagsInput.Root
          value={groups}
          onValueChange={(details) => onGroupsChange(details.value)}
          max={PROJECT_GROUPS_MAX}
          maxLength={GROUP_NAME_MAX}
          delimiter=","
          addOnPaste
          blurBehavior="add"
          invalid={!!error}
          // A free user (a lapsed plan) may only remove what is there.
          readOnly={pro === false}
          size="sm"
        >
          <TagsInput.Label>Groups on the platform</TagsInput.Label>
          <TagsInput.Control>
            <TagsInput.Items />
            <TagsInput.Input placeholder={groups.length >= PROJECT_GROUPS_MAX ? '' : 'Add a group, then Enter'} aria-describedby={helperId} />
          </TagsInput.Control>
          <TagsInput.HiddenInput />
        </TagsInput.Root>
        {error ? (
          <Field.ErrorText>{error}</Field.ErrorText>
        ) : (
          <Text fontSize="sm" color="fg.muted" id={helperId}>
            Each account joins these groups when it is provisioned (at most {PROJECT_GROUPS_MAX}); Delete takes it out of them where the platform keeps them.
          </Text>
        )}
      </Field.Root>
      {platform ? (
        <Text fontSize="sm" color={platform.support.supported ? 'fg.muted' : 'fg.error'}>
          {platform.name}: {platform.support.supported ? platform.support.how : platform.support.reason}
        </Text>
      ) : null}
      {pro === false ? (
        <Button variant="outline" size="sm" alignSelf="flex-start" onClick={() => onGroupsChange([])}>
          Remove the groups
        </Button>
      ) : (
        <SettingSwitch
          idPrefix={idPrefix}
          name="createGroups"
          label="Create groups that do not exist"
          description="A group the platform does not have is created there. Off: the accounts fail to sync with the reason, and nothing is created."
          checked={createGroups}
          onChange={onCreateGroupsChange}
        />
      )}
    </Stack>
  );
}

/** The first words a form's `groups` error holds (the list's own, or one name's). */
const groupsError = (error: unknown): string | undefined => {
  const own = (error as { message?: string } | undefined)?.message;
  if (own) return own;
  return Array.isArray(error) ? (error as ({ message?: string } | undefined)[]).find((e) => e?.message)?.message : undefined;
};

/**
 * ProjectGroupsFields bound to a form's `groups` and `createGroups` (the bulk creator's and the
 * project Edit's), with what the integration's platform does with groups (its lifecycle support).
 */
export function ProjectGroupsFormFields<T extends FieldValues>({
  control,
  error,
  pro,
  idPrefix,
  integration,
}: {
  control: Control<T>;
  /** The form's error for `groups`. */
  error: unknown;
  pro: boolean | undefined;
  idPrefix: string;
  /** The platform the accounts are (or will be) on, when known. */
  integration?: ProvisioningTarget & { name: string };
}) {
  return (
    <Controller
      control={control}
      name={'groups' as Path<T>}
      render={({ field: groups }) => (
        <Controller
          control={control}
          name={'createGroups' as Path<T>}
          render={({ field: create }) => (
            <ProjectGroupsFields
              groups={(groups.value as string[] | undefined) ?? []}
              createGroups={(create.value as boolean | undefined) ?? false}
              onGroupsChange={groups.onChange}
              onCreateGroupsChange={create.onChange}
              {...(groupsError(error) ? { error: groupsError(error)! } : {})}
              pro={pro}
              idPrefix={idPrefix}
              {...(integration ? { platform: { name: integration.name, support: lifecycleSupport(integration).groups } } : {})}
            />
          )}
        />
      )}
    />
  );
}
