import { Button, Input, Link, Stack } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate } from 'react-router';
import * as z from 'zod';
import { confirmSignUpSchema, signInSchema, signUpSchema, PASSWORD_POLICY_HINT } from '@shared/schemas/user';
import { loadAuth } from '../../../lib/auth';
import { authErrorMessage } from '../api/auth-errors';
import { AuthLayout } from './auth-layout';
import { FormAlert } from './form-alert';
import { LocalCodeHint } from './local-code-hint';
import { FormField } from '../../../components/form-field';

const requestSchema = z.object({ email: signInSchema.shape.email });
const resetSchema = z.object({ code: confirmSignUpSchema.shape.code, newPassword: signUpSchema.shape.password });

/** Two steps: request a code for an e-mail, then the code and a new password. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState<string>();
  return (
    <AuthLayout
      title="Reset your password"
      subtitle={
        email ? `Enter the code we sent to ${email} and choose a new password.` : 'We will send you a code to reset it.'
      }
      footer={
        <Link asChild colorPalette="blue" color="colorPalette.fg" fontWeight="medium">
          <RouterLink to="/sign-in">Back to sign in</RouterLink>
        </Link>
      }
    >
      {email ? <ResetForm email={email} /> : <RequestForm onSent={setEmail} />}
    </AuthLayout>
  );
}

function RequestForm({ onSent }: { onSent: (email: string) => void }) {
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(requestSchema), defaultValues: { email: '' } });

  const onSubmit = handleSubmit(async ({ email }) => {
    setFormError(undefined);
    try {
      const auth = await loadAuth();
      await auth.requestPasswordReset(email);
      onSent(email);
    } catch (error) {
      setFormError(authErrorMessage(error, 'resetRequest'));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="4">
        {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
        <FormField label="Email" error={errors.email?.message}>
          <Input type="email" autoComplete="email" {...register('email')} />
        </FormField>
        <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Sending...">
          Send code
        </Button>
      </Stack>
    </form>
  );
}

function ResetForm({ email }: { email: string }) {
  const navigate = useNavigate();
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(resetSchema), defaultValues: { code: '', newPassword: '' } });

  const onSubmit = handleSubmit(async ({ code, newPassword }) => {
    setFormError(undefined);
    try {
      const auth = await loadAuth();
      await auth.confirmPasswordReset(email, code, newPassword);
      void navigate(`/sign-in?notice=reset&email=${encodeURIComponent(email)}`);
    } catch (error) {
      setFormError(authErrorMessage(error, 'resetConfirm'));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="4">
        <LocalCodeHint code="reset code" />
        {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
        <FormField label="Reset code" error={errors.code?.message}>
          <Input inputMode="numeric" autoComplete="one-time-code" maxLength={6} {...register('code')} />
        </FormField>
        <FormField label="New password" error={errors.newPassword?.message} helperText={PASSWORD_POLICY_HINT}>
          <Input type="password" autoComplete="new-password" {...register('newPassword')} />
        </FormField>
        <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Resetting...">
          Reset password
        </Button>
      </Stack>
    </form>
  );
}
