import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PHOTO_CONTENT_TYPE, userSchema, type UpdateProfileInput, type User } from '@shared/schemas/user';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { squarePhoto } from './photo';
import { toaster } from './toaster';

/**
 * The current user: shared by the app shell, Profile and Settings (features may not import each
 * other, so it lives here). Its presence is what "authenticated" means.
 */
export const currentUserQueryKey = ['/api/auth/user'] as const;

export const getCurrentUser = () => apiRequest('/api/auth/user', { schema: userSchema });

export function useCurrentUserQuery(enabled: boolean) {
  return useQuery({ queryKey: currentUserQueryKey, queryFn: getCurrentUser, enabled });
}

/** The signed-in user; only for screens rendered after the user has loaded. */
export function useUser(): User {
  const { data } = useQuery({ queryKey: currentUserQueryKey, queryFn: getCurrentUser });
  if (!data) throw new Error('useUser() used outside the signed-in app');
  return data;
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateProfileInput) =>
      apiRequest('/api/user/profile', { method: 'PUT', body: input, schema: userSchema }),
    onSuccess: (user) => {
      queryClient.setQueryData(currentUserQueryKey, user);
      toaster.create({ type: 'success', title: 'Profile updated', description: 'Your profile has been updated successfully.' });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Update failed', description: 'Failed to update profile. Please try again.' });
    },
  });
}

/** "First Last", or '' when the user has no names yet. */
export const fullNameOf = (user: Pick<User, 'firstName' | 'lastName'>): string =>
  `${user.firstName} ${user.lastName}`.trim();

/** 'Tell us about yourself': the name (then the app). */
export function useCompleteOnboarding() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest('/api/user/onboarding', { method: 'POST', body: { name }, schema: userSchema }),
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
  });
}

/** The welcome dialog's 'Let's Get Started!': closes at once, kept on the server for every device. */
export function useDismissWelcome() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest('/api/user/welcome-dismissal', { method: 'POST', schema: userSchema }),
    onMutate: () => {
      const user = queryClient.getQueryData<User>(currentUserQueryKey);
      if (user) queryClient.setQueryData(currentUserQueryKey, { ...user, welcomeDismissed: true });
    },
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
  });
}

/**
 * A photo (already cropped and scaled by squarePhoto), uploaded straight to the bucket through the form the server
 * signs (a POST whose policy admits one JPEG of at most 5 MB at one key), then checked and set by
 * the server. The POST is sent 'no-cors' (the bucket has no CORS rule: the server's check, not
 * the upload's answer, says whether it arrived).
 */
export async function uploadPhoto(photo: Blob): Promise<User> {
  const form = await apiRequest<{ key: string; url: string; fields: Record<string, string> }>('/api/user/photo-upload', { method: 'POST' });
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  data.append('file', new File([photo], 'photo.jpg', { type: PHOTO_CONTENT_TYPE }));
  await fetch(form.url, { method: 'POST', body: data, mode: 'no-cors' });
  return apiRequest('/api/user/photo', { method: 'PUT', body: { key: form.key }, schema: userSchema });
}

export function usePhoto() {
  const queryClient = useQueryClient();
  const onError = (title: string) => (error: Error) => {
    if (error instanceof ApiError && error.status === 401) return;
    // Not an answer of the server: squarePhoto could not read the file as an image (nothing was sent).
    if (!(error instanceof ApiError)) return void toaster.create({ type: 'error', title: 'Invalid file type', description: 'Please select an image file.' });
    toaster.create({ type: 'error', title, description: serverMessageOf(error) ?? 'Please try again.' });
  };
  const set = useMutation({
    mutationFn: async (file: File) => uploadPhoto(await squarePhoto(file)),
    onSuccess: (user) => {
      queryClient.setQueryData(currentUserQueryKey, user);
      toaster.create({ type: 'success', title: 'Photo updated', description: 'Your new photo is on your profile.' });
    },
    onError: onError('Photo not saved'),
  });
  const remove = useMutation({
    mutationFn: () => apiRequest('/api/user/photo', { method: 'DELETE', schema: userSchema }),
    onSuccess: (user) => {
      queryClient.setQueryData(currentUserQueryKey, user);
      toaster.create({ type: 'success', title: 'Photo removed', description: 'Your initials show instead.' });
    },
    onError: onError('Photo not removed'),
  });
  return { set, remove };
}
