import { Button, Input, SimpleGrid, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { updateProfileSchema, type User } from '@shared/schemas/user';
import { useUpdateProfile } from '../lib/user-api';
import { FormField } from './form-field';

/** First name, last name, read-only e-mail, optional company: Profile page and Settings > Account. */
export function ProfileForm({ user }: { user: User }) {
  const updateProfile = useUpdateProfile();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm({
    resolver: zodResolver(updateProfileSchema),
    defaultValues: { firstName: user.firstName, lastName: user.lastName, company: user.company ?? '' },
  });

  const onSubmit = handleSubmit((values) => {
    const company = values.company?.trim();
    updateProfile.mutate({ firstName: values.firstName, lastName: values.lastName, ...(company ? { company } : {}) });
  });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="4">
        <SimpleGrid columns={{ base: 1, md: 2 }} gap="4">
          <FormField label="First name" error={errors.firstName?.message}>
            <Input autoComplete="given-name" {...register('firstName')} />
          </FormField>
          <FormField label="Last name" error={errors.lastName?.message}>
            <Input autoComplete="family-name" {...register('lastName')} />
          </FormField>
        </SimpleGrid>
        <FormField label="Email" readOnly helperText="Email cannot be changed. Contact support if needed.">
          <Input value={user.email} readOnly bg="bg.muted" />
        </FormField>
        <FormField label="Company (optional)" error={errors.company?.message}>
          <Input autoComplete="organization" {...register('company')} />
        </FormField>
        <Button type="submit" colorPalette="blue" alignSelf="flex-start" loading={updateProfile.isPending} loadingText="Updating...">
          Save Changes
        </Button>
      </Stack>
    </form>
  );
}
