import { Box, Button, Card, Heading, Input, Stack, Text } from '@chakra-ui/react';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { User } from '@shared/schemas/user';
import { BrandLogo } from '../../../components/brand-logo';
import { FormField } from '../../../components/form-field';
import { PhotoPicker } from '../../../components/photo-picker';
import { serverMessageOf } from '../../../lib/api-client';
import { squarePhoto } from '../../../lib/photo';
import { toaster } from '../../../lib/toaster';
import { fullNameOf, uploadPhoto, useCompleteOnboarding } from '../../../lib/user-api';

/**
 * 'Tell us about yourself' (spec 2, 5): shown once after the first sign-in, before the dashboard.
 * The name from sign-up is prefilled and required after trimming; the photo is optional. 'Let's
 * Go!' uploads the photo (if one was chosen), saves the name, then goes to '/'.
 */
export function OnboardingPage({ user, onDone }: { user: User; onDone: () => void }) {
  const [name, setName] = useState(fullNameOf(user));
  /** The chosen photo, already cropped and scaled (so the preview is what will be saved). */
  const [photo, setPhoto] = useState<Blob>();
  const [uploading, setUploading] = useState(false);
  const complete = useCompleteOnboarding();

  const preview = useMemo(() => (photo ? URL.createObjectURL(photo) : undefined), [photo]);
  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview]);

  const choose = async (file: File) => {
    try {
      setPhoto(await squarePhoto(file));
    } catch {
      toaster.create({ type: 'error', title: 'Invalid file type', description: 'Please select an image file.' });
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      toaster.create({ type: 'error', title: 'Name required', description: 'Please enter your name to continue.' });
      return;
    }
    try {
      if (photo) {
        setUploading(true);
        await uploadPhoto(photo);
      }
      await complete.mutateAsync(name.trim());
      onDone();
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('401')) return;
      toaster.create({ type: 'error', title: 'Not saved', description: serverMessageOf(error) ?? 'Your details could not be saved. Please try again.' });
    } finally {
      setUploading(false);
    }
  };
  const busy = uploading || complete.isPending;
  const [firstName, ...rest] = name.trim().split(/\s+/);

  return (
    // The screen's one landmark: without it axe found its content outside any (7 'region' nodes).
    <Box as="main" minH="100dvh" bg="bg.subtle" display="flex" alignItems="center" justifyContent="center" px="4" py="10">
      <Card.Root variant="outline" w="full" maxW="md" bg="bg.panel">
        <Card.Body>
          <form onSubmit={(event) => void submit(event)} noValidate>
            <Stack gap="6">
              <Stack align="center" gap="3" textAlign="center">
                <BrandLogo size="lg" />
                <Heading as="h1" size="2xl">
                  Tell us about yourself
                </Heading>
                <Text color="fg.muted">Create and manage thousands of accounts effortlessly.</Text>
              </Stack>
              <PhotoPicker src={preview} firstName={firstName} lastName={rest.join(' ')} onChoose={(file) => void choose(file)} onRemove={() => setPhoto(undefined)} busy={uploading} />
              <FormField label="What's your name?">
                <Input placeholder="Enter your name" autoComplete="name" value={name} onChange={(event) => setName(event.target.value)} />
              </FormField>
              <Button type="submit" colorPalette="blue" size="lg" loading={busy} loadingText="Saving...">
                Let's Go!
              </Button>
              <Text fontSize="sm" color="fg.muted" textAlign="center">
                Welcome! Let's start your account management journey.
              </Text>
            </Stack>
          </form>
        </Card.Body>
      </Card.Root>
    </Box>
  );
}
