import { Button, Card, Input, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import * as z from 'zod';
import { changePasswordSchema } from '@shared/schemas/sign-in';
import { PASSWORD_POLICY_HINT } from '@shared/schemas/user';
import { FormField } from '../../../components/form-field';
import { FormAlert } from '../../auth/components/form-alert';
import { apiRequest, serverMessageOf } from '../../../lib/api-client';
import { toaster } from '../../../lib/toaster';

const formSchema = z
  .object({ currentPassword: z.string().min(1, 'Current password is required'), newPassword: changePasswordSchema.shape.newPassword, confirmPassword: z.string() })
  .refine((input) => input.newPassword === input.confirmPassword, { message: 'The passwords do not match', path: ['confirmPassword'] })
  .refine((input) => input.newPassword !== input.currentPassword, { message: 'Choose a new password that differs from the current one.', path: ['newPassword'] });

/**
 * Security Center: change the password (POST /api/auth/change-password). Cognito checks the
 * current one; the change is recorded as a security event and starts the password's age again.
 */
export function ChangePasswordCard() {
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(formSchema), defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' } });

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    setFormError(undefined);
    try {
      await apiRequest('/api/auth/change-password', { method: 'POST', body: { currentPassword, newPassword } });
      reset();
      toaster.create({ type: 'success', title: 'Password changed', description: 'Use your new password the next time you sign in.' });
      // The overview's password age and the events list show the change.
      void queryClient.invalidateQueries({ predicate: (query) => String(query.queryKey[0]).includes('security') });
    } catch (error) {
      setFormError(serverMessageOf(error, [400, 429]) ?? 'Your password could not be changed. Please try again.');
    }
  });

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Change password</Card.Title>
        <Card.Description>Choose a new password for signing in to BulkOnboard.</Card.Description>
      </Card.Header>
      <Card.Body>
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="4" maxW="md">
            {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
            <FormField label="Current password" error={errors.currentPassword?.message}>
              <Input type="password" autoComplete="current-password" {...register('currentPassword')} />
            </FormField>
            <FormField label="New password" error={errors.newPassword?.message} helperText={PASSWORD_POLICY_HINT}>
              <Input type="password" autoComplete="new-password" {...register('newPassword')} />
            </FormField>
            <FormField label="Confirm new password" error={errors.confirmPassword?.message}>
              <Input type="password" autoComplete="new-password" {...register('confirmPassword')} />
            </FormField>
            <Button type="submit" colorPalette="blue" alignSelf="flex-start" loading={isSubmitting} loadingText="Changing...">
              Change Password
            </Button>
          </Stack>
        </form>
      </Card.Body>
    </Card.Root>
  );
}
