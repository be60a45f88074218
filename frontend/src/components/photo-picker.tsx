import { Avatar, Button, HStack, Stack, Text } from '@chakra-ui/react';
import { CameraIcon } from 'lucide-react';
import { useRef } from 'react';
import { initialsOf } from '@shared/schemas/user';
import { photoFileProblem } from '../lib/photo';
import { toaster } from '../lib/toaster';

/**
 * A round photo with 'Choose photo' / 'Change photo' (images only, at most 5 MB: anything else is
 * refused with the spec's toast and never reaches `onChoose`) and, when there is one, 'Remove'.
 */
export function PhotoPicker({
  src,
  firstName,
  lastName,
  onChoose,
  onRemove,
  busy,
}: {
  src?: string;
  firstName?: string;
  lastName?: string;
  onChoose: (file: File) => void;
  onRemove?: () => void;
  busy?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <Stack align="center" gap="3">
      <Avatar.Root size="2xl" colorPalette="blue" w="24" h="24">
        <Avatar.Fallback fontSize="2xl">{initialsOf(firstName, lastName)}</Avatar.Fallback>
        {src ? <Avatar.Image src={src} alt="Your photo" /> : null}
      </Avatar.Root>
      <input
        ref={input}
        type="file"
        accept="image/*"
        hidden
        aria-label="Photo"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (!file) return;
          const problem = photoFileProblem(file);
          if (problem) {
            toaster.create({ type: 'error', ...problem });
            return;
          }
          onChoose(file);
        }}
      />
      <HStack gap="2" flexWrap="wrap" justify="center">
        <Button size="sm" variant="outline" loading={busy} loadingText="Uploading..." onClick={() => input.current?.click()}>
          <CameraIcon size={16} aria-hidden="true" />
          {src ? 'Change photo' : 'Choose photo'}
        </Button>
        {src && onRemove ? (
          <Button size="sm" variant="ghost" colorPalette="red" disabled={busy} onClick={onRemove}>
            Remove
          </Button>
        ) : null}
      </HStack>
      <Text fontSize="xs" color="fg.muted">
        Optional. An image of up to 5MB, cropped to a square.
      </Text>
    </Stack>
  );
}
