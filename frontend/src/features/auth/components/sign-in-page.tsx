import { Button, Input, Link, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { signInSchema } from '@shared/schemas/user';
import { loadAuth } from '../../../lib/auth';
import { markSignedIn } from '../../../lib/session';
import { authErrorMessage, authErrorName } from '../api/auth-errors';
import { AuthLayout } from './auth-layout';
import { FormAlert } from './form-alert';
import { FormField } from '../../../components/form-field';

const notices: Record<string, string> = {
  confirmed: 'Your e-mail address is confirmed. Sign in to continue.',
  reset: 'Your password has been reset. Sign in with your new password.',
};

export function SignInPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const [formError, setFormError] = useState<string>();
  const notice = notices[searchParams.get('notice') ?? ''];
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(signInSchema),
    defaultValues: { email: searchParams.get('email') ?? '', password: '' },
  });

  const toConfirm = (email: string) => navigate(`/confirm?email=${encodeURIComponent(email)}&notice=unconfirmed`);

  const onSubmit = handleSubmit(async ({ email, password }) => {
    setFormError(undefined);
    try {
      const auth = await loadAuth();
      const result = await auth.signInWithEmail(email, password);
      if (result === 'confirmSignUp') return void toConfirm(email);
      markSignedIn();
      void navigate('/', { replace: true });
    } catch (error) {
      const name = authErrorName(error);
      if (name === 'UserNotConfirmedException') return void toConfirm(email);
      if (name === 'UserAlreadyAuthenticatedException') {
        markSignedIn();
        return void navigate('/', { replace: true });
      }
      setFormError(authErrorMessage(error, 'signIn'));
    }
  });

  return (
    <AuthLayout
      title="Sign in"
      subtitle="Welcome back to BulkOnboard."
      footer={
        <>
          Don&apos;t have an account?{' '}
          <Link asChild colorPalette="blue" color="colorPalette.fg" fontWeight="medium">
            <RouterLink to="/sign-up">Create account</RouterLink>
          </Link>
        </>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="4">
          {notice && !formError ? <FormAlert status="success">{notice}</FormAlert> : null}
          {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
          <FormField label="Email" error={errors.email?.message}>
            <Input type="email" autoComplete="email" {...register('email')} />
          </FormField>
          <FormField label="Password" error={errors.password?.message}>
            <Input type="password" autoComplete="current-password" {...register('password')} />
          </FormField>
          <Link asChild fontSize="sm" colorPalette="blue" color="colorPalette.fg" alignSelf="flex-end">
            <RouterLink to="/forgot-password">Forgot password?</RouterLink>
          </Link>
          <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Signing in...">
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
