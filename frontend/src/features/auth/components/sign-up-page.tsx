import { Button, Input, Link, SimpleGrid, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate } from 'react-router';
import { signUpSchema, PASSWORD_POLICY_HINT } from '@shared/schemas/user';
import { loadAuth } from '../../../lib/auth';
import { authErrorMessage } from '../api/auth-errors';
import { AuthLayout } from './auth-layout';
import { FormAlert } from './form-alert';
import { FormField } from '../../../components/form-field';

export function SignUpPage() {
  const navigate = useNavigate();
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(signUpSchema),
    defaultValues: { firstName: '', lastName: '', email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFormError(undefined);
    try {
      const auth = await loadAuth();
      await auth.signUpWithEmail(values);
      void navigate(`/confirm?email=${encodeURIComponent(values.email)}`);
    } catch (error) {
      setFormError(authErrorMessage(error, 'signUp'));
    }
  });

  return (
    <AuthLayout
      title="Create your account"
      subtitle="Start creating accounts in bulk. Free plan, no card needed."
      footer={
        <>
          Already have an account?{' '}
          <Link asChild colorPalette="blue" color="colorPalette.fg" fontWeight="medium">
            <RouterLink to="/sign-in">Sign in</RouterLink>
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="4">
          {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
          <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
            <FormField label="First name" error={errors.firstName?.message}>
              <Input autoComplete="given-name" {...register('firstName')} />
            </FormField>
            <FormField label="Last name" error={errors.lastName?.message}>
              <Input autoComplete="family-name" {...register('lastName')} />
            </FormField>
          </SimpleGrid>
          <FormField label="Email" error={errors.email?.message}>
            <Input type="email" autoComplete="email" {...register('email')} />
          </FormField>
          <FormField label="Password" error={errors.password?.message} helperText={PASSWORD_POLICY_HINT}>
            <Input type="password" autoComplete="new-password" {...register('password')} />
          </FormField>
          <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Creating account...">
            Create account
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
