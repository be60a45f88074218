import { Button, Input, Link, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { confirmSignUpSchema } from '@shared/schemas/user';
import { loadAuth } from '../../../lib/auth';
import { toaster } from '../../../lib/toaster';
import { authErrorMessage } from '../api/auth-errors';
import { AuthLayout } from './auth-layout';
import { FormAlert } from './form-alert';
import { LocalCodeHint } from './local-code-hint';
import { FormField } from '../../../components/form-field';

export function ConfirmPage() {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const [formError, setFormError] = useState<string>();
  const [resending, setResending] = useState(false);
  const {
    register,
    handleSubmit,
    trigger,
    getValues,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(confirmSignUpSchema),
    defaultValues: { email: searchParams.get('email') ?? '', code: '' },
  });

  const onSubmit = handleSubmit(async ({ email, code }) => {
    setFormError(undefined);
    try {
      const auth = await loadAuth();
      await auth.confirmEmail(email, code);
      void navigate(`/sign-in?notice=confirmed&email=${encodeURIComponent(email)}`);
    } catch (error) {
      setFormError(authErrorMessage(error, 'confirm'));
    }
  });

  // The button stays disabled until Cognito has answered, so a double click sends one new code
  // (each one replaces the last), not two.
  const resend = async () => {
    if (resending || !(await trigger('email'))) return;
    const email = getValues('email').trim();
    setResending(true);
    try {
      const auth = await loadAuth();
      await auth.resendConfirmationCode(email);
      toaster.create({ type: 'success', title: 'Code sent', description: `A new code is on its way to ${email}.` });
    } catch (error) {
      toaster.create({ type: 'error', title: 'Could not send a new code', description: authErrorMessage(error, 'resend') });
    } finally {
      setResending(false);
    }
  };

  return (
    <AuthLayout
      title="Confirm your e-mail"
      subtitle="Enter the 6-digit code we sent to your e-mail address."
      footer={
        <Link asChild colorPalette="blue" color="colorPalette.fg" fontWeight="medium">
          <RouterLink to="/sign-in">Back to sign in</RouterLink>
        </Link>
      }
    >
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="4">
          <LocalCodeHint />
          {searchParams.get('notice') === 'unconfirmed' && !formError ? (
            <FormAlert status="info">Your account is not confirmed yet. Enter the code from your sign-up.</FormAlert>
          ) : null}
          {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
          <FormField label="Email" error={errors.email?.message}>
            <Input type="email" autoComplete="email" {...register('email')} />
          </FormField>
          <FormField label="Confirmation code" error={errors.code?.message}>
            <Input
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              letterSpacing="widest"
              {...register('code')}
            />
          </FormField>
          <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Confirming...">
            Confirm
          </Button>
          <Button type="button" variant="ghost" size="sm" onClick={() => void resend()} loading={resending} loadingText="Sending...">
            Resend code
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}
