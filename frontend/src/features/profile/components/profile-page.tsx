import { Badge, Card, Grid, HStack, Stack, Text } from '@chakra-ui/react';
import { BadgeCheckIcon, CalendarIcon, KeyRoundIcon, LogInIcon, MailIcon, MonitorIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { PageHeader } from '../../../components/page-header';
import { ProfileForm } from '../../../components/profile-form';
import { PhotoPicker } from '../../../components/photo-picker';
import { formatDate, formatDateTime } from '../../../lib/format-date';
import { fullNameOf, usePhoto, useUser } from '../../../lib/user-api';


export function ProfilePage() {
  const user = useUser();
  const photo = usePhoto();

  return (
    <>
      <PageHeader title="Profile" subtitle="Your personal information and account security." />
      <Grid templateColumns={{ base: '1fr', lg: '1fr 2fr' }} gap="6" alignItems="start">
        <Card.Root variant="outline">
          <Card.Body>
            <Stack align="center" textAlign="center" gap="3">
              <PhotoPicker
                src={user.profileImageUrl}
                firstName={user.firstName}
                lastName={user.lastName}
                onChoose={(file) => photo.set.mutate(file)}
                onRemove={() => photo.remove.mutate()}
                busy={photo.set.isPending || photo.remove.isPending}
              />
              <Text fontSize="lg" fontWeight="semibold" wordBreak="break-word">
                {fullNameOf(user) || user.email}
              </Text>
              <Badge colorPalette="green" variant="subtle">
                active
              </Badge>
              <Stack gap="2" w="full" pt="2" fontSize="sm" color="fg.muted">
                <HStack gap="2" justify="center" minW="0">
                  <MailIcon size={14} aria-hidden="true" style={{ flexShrink: 0 }} />
                  <Text truncate title={user.email}>
                    {user.email}
                  </Text>
                </HStack>
                <HStack gap="2" justify="center">
                  <CalendarIcon size={14} aria-hidden="true" />
                  <Text>Joined {formatDate(user.createdAt)}</Text>
                </HStack>
                <HStack gap="2" justify="center">
                  <LogInIcon size={14} aria-hidden="true" />
                  <Text>{user.lastSignInAt ? `Last sign-in ${formatDateTime(user.lastSignInAt)}` : 'Last sign-in not recorded yet'}</Text>
                </HStack>
              </Stack>
            </Stack>
          </Card.Body>
        </Card.Root>

        <Stack gap="6">
          <Card.Root variant="outline">
            <Card.Header>
              <Card.Title as="h2">Personal Information</Card.Title>
              <Card.Description>Update your name and company.</Card.Description>
            </Card.Header>
            <Card.Body>
              <ProfileForm user={user} />
            </Card.Body>
          </Card.Root>

          <Card.Root variant="outline">
            <Card.Header>
              <Card.Title as="h2">Account Security</Card.Title>
            </Card.Header>
            <Card.Body>
              <Stack gap="4">
                <SecurityRow icon={<BadgeCheckIcon size={18} />} title="Account Verified">
                  Your e-mail address was confirmed when you signed up.
                </SecurityRow>
                <SecurityRow icon={<KeyRoundIcon size={18} />} title="Secure Authentication">
                  You sign in through Amazon Cognito with OAuth2 tokens.
                </SecurityRow>
                <SecurityRow icon={<MonitorIcon size={18} />} title="Session Active">
                  You are signed in on this device.
                </SecurityRow>
              </Stack>
            </Card.Body>
          </Card.Root>
        </Stack>
      </Grid>
    </>
  );
}

function SecurityRow({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <HStack gap="3" align="flex-start">
      <Stack color="green.fg" pt="0.5" aria-hidden="true">
        {icon}
      </Stack>
      <Stack gap="0.5">
        <Text fontWeight="medium">{title}</Text>
        <Text fontSize="sm" color="fg.muted">
          {children}
        </Text>
      </Stack>
    </HStack>
  );
}
