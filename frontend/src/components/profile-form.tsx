import { Button, Field, Input, SimpleGrid, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { updateProfileSchema, type User } from '@shared/schemas/user';
import { useUpdateProfile } from '../lib/user-api';

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
          <Field.Root invalid={!!errors.firstName}>
            <Field.Label>First name</Field.Label>
            <Input autoComplete="given-name" {...register('firstName')} />
            <Field.ErrorText>{errors.firstName?.message}</Field.ErrorText>
          </Field.Root>
          <Field.Root invalid={!!errors.lastName}>
            <Field.Label>Last name</Field.Label>
            <Input autoComplete="family-name" {...register('lastName')} />
            <Field.ErrorText>{errors.lastName?.message}</Field.ErrorText>
          </Field.Root>
        </SimpleGrid>
        <Field.Root readOnly>
          <Field.Label>Email</Field.Label>
          <Input value={user.email} readOnly bg="bg.muted" />
          <Field.HelperText>Email cannot be changed. Contact support if needed.</Field.HelperText>
        </Field.Root>
        <Field.Root invalid={!!errors.company}>
          <Field.Label>Company (optional)</Field.Label>
          <Input autoComplete="organization" {...register('company')} />
          <Field.ErrorText>{errors.company?.message}</Field.ErrorText>
        </Field.Root>
        <Button type="submit" colorPalette="blue" alignSelf="flex-start" loading={updateProfile.isPending} loadingText="Updating...">
          Save Changes
        </Button>
      </Stack>
    </form>
  );
}
