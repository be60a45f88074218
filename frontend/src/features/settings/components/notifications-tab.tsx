import { Alert, Button, Card, HStack, Separator, Stack } from '@chakra-ui/react';
import { Fragment, useState } from 'react';
import type { NotificationSettings } from '@shared/schemas/user-settings';
import { ListSkeleton } from '../../../components/list-skeleton';
import { SettingSwitch } from '../../../components/setting-switch';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useEffectivePlan } from '../../../lib/subscription-api';
import { useUpdateUserSettings, useUserSettings } from '../../../lib/user-settings-api';

const switches: { key: keyof NotificationSettings; label: string; description: string }[] = [
  { key: 'emailNotifications', label: 'Email Notifications', description: 'Receive e-mail notifications about your account activity.' },
  { key: 'projectCompletionEmail', label: 'Project Completion', description: 'Get an e-mail when a large project has finished creating its accounts.' },
  { key: 'securityAlerts', label: 'Security Alerts', description: 'Get an e-mail about security events of your account.' },
  { key: 'weeklyDigest', label: 'Weekly Digest', description: 'A Monday summary of the past week: new projects, accounts and notifications.' },
];

/** Settings > Notifications: four switches saved together with 'Save Preferences'. */
export function NotificationsTab() {
  const settings = useUserSettings();
  if (settings.isPending) return <ListSkeleton rows={4} height="12" label="Loading notification settings" />;
  if (settings.isError) return <QueryErrorCard message="Failed to load your settings." onRetry={() => void settings.refetch()} retrying={settings.isFetching} />;
  // Keyed by the stored values: a save (or another tab's change) starts the form from them again.
  return <NotificationsForm key={JSON.stringify(settings.data.notifications)} saved={settings.data.notifications} />;
}

function NotificationsForm({ saved }: { saved: NotificationSettings }) {
  const [values, setValues] = useState<NotificationSettings>(saved);
  const update = useUpdateUserSettings();
  const plan = useEffectivePlan();
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Notification Preferences</Card.Title>
        <Card.Description>Choose which e-mails BulkOnboard sends you. The bell in the top bar shows every notification either way.</Card.Description>
      </Card.Header>
      <Card.Body>
        <Stack gap="4">
          {plan === 'free' ? (
            <Alert.Root status="info">
              <Alert.Indicator />
              <Alert.Description>E-mail notifications are part of Pro: your choices are kept, and e-mails start once you upgrade.</Alert.Description>
            </Alert.Root>
          ) : null}
          {switches.map(({ key, label, description }, index) => (
            <Fragment key={key}>
              {index > 0 ? <Separator /> : null}
              <SettingSwitch
                idPrefix="notification"
                name={key}
                label={label}
                description={description}
                checked={values[key]}
                onChange={(checked) => setValues((current) => ({ ...current, [key]: checked }))}
              />
            </Fragment>
          ))}
          <HStack justify="flex-end">
            <Button colorPalette="blue" onClick={() => update.mutate({ notifications: values })} loading={update.isPending} loadingText="Saving...">
              Save Preferences
            </Button>
          </HStack>
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
