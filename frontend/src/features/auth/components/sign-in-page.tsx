import { Button, Input, Link, Stack, Text } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import * as z from 'zod';
import { PASSWORD_EXPIRED_MESSAGE } from '@shared/schemas/security';
import { signInErrorCodes, TOTP_CODE_MESSAGE, totpCodeSchema, type SignInAnswer, type SignInTokens } from '@shared/schemas/sign-in';
import { PASSWORD_POLICY_HINT, signInSchema, signUpSchema } from '@shared/schemas/user';
import { loadAuth } from '../../../lib/auth';
import { markSignedIn } from '../../../lib/session';
import { changePasswordWith, SignInError, signInWithPassword, signInWithTotp } from '../../../lib/sign-in-api';
import { AuthLayout } from './auth-layout';
import { FormAlert } from './form-alert';
import { FormField } from '../../../components/form-field';

const notices: Record<string, string> = {
  confirmed: 'Your e-mail address is confirmed. Sign in to continue.',
  reset: 'Your password has been reset. Sign in with your new password.',
};

const totpSchema = z.object({ code: totpCodeSchema });
export const newPasswordSchema = z
  .object({ newPassword: signUpSchema.shape.password, confirmPassword: z.string() })
  .refine((input) => input.newPassword === input.confirmPassword, { message: 'The passwords do not match', path: ['confirmPassword'] });

/** Where the sign-in is: the password, the authenticator code, or a new password for an expired one. */
type Step =
  | { name: 'password' }
  | { name: 'totp'; email: string; password: string; session: string }
  | { name: 'expired'; email: string; password: string; tokens: SignInTokens };

const messageOf = (error: unknown) => (error instanceof SignInError ? error.message : 'Something went wrong. Please try again.');

/**
 * Sign-in through the API (docs/security.md): the e-mail and password, then the code from the
 * authenticator app when two-factor authentication is on, then a new password when the old one
 * has expired. The tokens are kept (where Amplify keeps them) only once nothing is left to do.
 */
export function SignInPage() {
  const navigate = useNavigate();
  const [step, setStep] = useState<Step>({ name: 'password' });
  const [stepError, setStepError] = useState<string>();

  const enter = async (tokens: SignInTokens, email: string) => {
    const auth = await loadAuth();
    await auth.storeSignInTokens(tokens, email);
    markSignedIn();
    void navigate('/', { replace: true });
  };

  /** The answer of the password or code step: signed in, or the next step. */
  const proceed = async (answer: SignInAnswer, email: string, password: string) => {
    setStepError(undefined);
    if (answer.status === 'totp') return setStep({ name: 'totp', email, password, session: answer.session });
    if (answer.passwordExpired) return setStep({ name: 'expired', email, password, tokens: answer.tokens });
    await enter(answer.tokens, email);
  };

  const restart = (message?: string) => {
    setStepError(message);
    setStep({ name: 'password' });
  };

  if (step.name === 'totp') {
    return (
      <AuthLayout title="Two-factor authentication" subtitle={`${TOTP_CODE_MESSAGE}.`} footer={<BackToPassword onBack={() => restart()} />}>
        <TotpForm
          onSubmit={async (code) => proceed(await signInWithTotp(step.email, step.session, code), step.email, step.password)}
          onSessionExpired={(message) => restart(message)}
        />
      </AuthLayout>
    );
  }
  if (step.name === 'expired') {
    return (
      <AuthLayout title="Choose a new password" subtitle={PASSWORD_EXPIRED_MESSAGE} footer={<BackToPassword onBack={() => restart()} />}>
        <ExpiredPasswordForm
          onSubmit={async (newPassword) => {
            await changePasswordWith(step.tokens.accessToken, { currentPassword: step.password, newPassword });
            await enter(step.tokens, step.email);
          }}
        />
      </AuthLayout>
    );
  }
  return <PasswordStep error={stepError} onAnswer={proceed} />;
}

function BackToPassword({ onBack }: { onBack: () => void }) {
  return (
    <Link asChild colorPalette="blue" color="colorPalette.fg" fontWeight="medium">
      <button type="button" onClick={onBack}>
        Back to sign in
      </button>
    </Link>
  );
}

function PasswordStep({ error, onAnswer }: { error?: string; onAnswer: (answer: SignInAnswer, email: string, password: string) => Promise<void> }) {
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  const [formError, setFormError] = useState<string | undefined>(error);
  const notice = notices[searchParams.get('notice') ?? ''];
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({
    resolver: zodResolver(signInSchema),
    defaultValues: { email: searchParams.get('email') ?? '', password: '' },
  });

  const onSubmit = handleSubmit(async ({ email, password }) => {
    setFormError(undefined);
    try {
      await onAnswer(await signInWithPassword(email, password), email, password);
    } catch (failure) {
      if (failure instanceof SignInError && failure.code === signInErrorCodes.userNotConfirmed) {
        return void navigate(`/confirm?email=${encodeURIComponent(email)}&notice=unconfirmed`);
      }
      setFormError(messageOf(failure));
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

function TotpForm({ onSubmit, onSessionExpired }: { onSubmit: (code: string) => Promise<void>; onSessionExpired: (message: string) => void }) {
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(totpSchema), defaultValues: { code: '' } });

  const submit = handleSubmit(async ({ code }) => {
    setFormError(undefined);
    try {
      await onSubmit(code);
    } catch (failure) {
      if (failure instanceof SignInError && failure.code === signInErrorCodes.signInSessionExpired) return onSessionExpired(failure.message);
      setFormError(messageOf(failure));
      setValue('code', '');
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="4">
        {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
        <FormField label="Authentication code" error={errors.code?.message}>
          <Input inputMode="numeric" autoComplete="one-time-code" maxLength={6} autoFocus {...register('code')} />
        </FormField>
        <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Verifying...">
          Verify
        </Button>
      </Stack>
    </form>
  );
}

function ExpiredPasswordForm({ onSubmit }: { onSubmit: (newPassword: string) => Promise<void> }) {
  const [formError, setFormError] = useState<string>();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm({ resolver: zodResolver(newPasswordSchema), defaultValues: { newPassword: '', confirmPassword: '' } });

  const submit = handleSubmit(async ({ newPassword }) => {
    setFormError(undefined);
    try {
      await onSubmit(newPassword);
    } catch (failure) {
      setFormError(messageOf(failure));
    }
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="4">
        <Text fontSize="sm" color="fg.muted">
          Your password is older than your security settings allow.
        </Text>
        {formError ? <FormAlert status="error">{formError}</FormAlert> : null}
        <FormField label="New password" error={errors.newPassword?.message} helperText={PASSWORD_POLICY_HINT}>
          <Input type="password" autoComplete="new-password" autoFocus {...register('newPassword')} />
        </FormField>
        <FormField label="Confirm new password" error={errors.confirmPassword?.message}>
          <Input type="password" autoComplete="new-password" {...register('confirmPassword')} />
        </FormField>
        <Button type="submit" colorPalette="blue" loading={isSubmitting} loadingText="Saving...">
          Set new password
        </Button>
      </Stack>
    </form>
  );
}
