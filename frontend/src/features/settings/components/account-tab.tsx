import { Card } from '@chakra-ui/react';
import { ProfileForm } from '../../../components/profile-form';
import { useUser } from '../../../lib/user-api';

export function AccountTab() {
  const user = useUser();
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Account Information</Card.Title>
        <Card.Description>Your name and company as they appear in BulkOnboard.</Card.Description>
      </Card.Header>
      <Card.Body>
        <ProfileForm user={user} />
      </Card.Body>
    </Card.Root>
  );
}
