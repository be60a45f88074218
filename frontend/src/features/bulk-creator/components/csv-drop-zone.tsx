import { Box, Spinner, Stack, Text } from '@chakra-ui/react';
import { UploadIcon } from 'lucide-react';
import { useRef, useState, type KeyboardEvent } from 'react';
import { UPLOAD_CSV_MAX_BYTES } from '@shared/schemas/bulk-upload';

/** Drag a CSV here or click (Enter/Space) to choose one. Rejecting a bad file is the caller's job. */
export function CsvDropZone({
  onFile,
  busy = false,
  compact = false,
  label = 'Drag and drop your CSV file here, or click to browse',
}: {
  onFile: (file: File) => void;
  busy?: boolean;
  compact?: boolean;
  label?: string;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const choose = () => {
    if (!busy) inputRef.current?.click();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      choose();
    }
  };

  return (
    <>
      <Box
        role="button"
        tabIndex={0}
        // Named by what it shows (the call to action and the format hint), not a shorter label.
        aria-busy={busy}
        aria-disabled={busy}
        onClick={choose}
        onKeyDown={onKeyDown}
        onDragOver={(event) => {
          event.preventDefault();
          if (!dragging) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          const file = event.dataTransfer.files[0];
          if (file && !busy) onFile(file);
        }}
        borderWidth="2px"
        borderStyle="dashed"
        borderColor={dragging ? 'blue.solid' : 'border.emphasized'}
        bg={dragging ? 'blue.subtle' : 'bg.subtle'}
        borderRadius="lg"
        px="6"
        py={compact ? '5' : '12'}
        cursor={busy ? 'progress' : 'pointer'}
        transition="background 0.15s, border-color 0.15s"
        _hover={{ borderColor: 'blue.solid' }}
        focusVisibleRing="outside"
      >
        <Stack align="center" textAlign="center" gap={compact ? '1' : '3'}>
          {busy ? (
            <Spinner color="blue.solid" />
          ) : (
            <Box color="blue.fg" aria-hidden="true">
              <UploadIcon size={compact ? 22 : 36} />
            </Box>
          )}
          <Text fontWeight="medium" fontSize={compact ? 'sm' : 'md'}>
            {busy ? 'Reading file...' : label}
          </Text>
          <Text fontSize="xs" color="fg.muted">
            CSV with First Name, Last Name and Email columns, up to {UPLOAD_CSV_MAX_BYTES / (1024 * 1024)} MB
          </Text>
        </Stack>
      </Box>
      <input
        ref={inputRef}
        type="file"
        accept=".csv,text/csv"
        aria-label="Upload CSV"
        style={{ display: 'none' }}
        onChange={(event) => {
          const file = event.target.files?.[0];
          // Cleared so choosing the same file again (after fixing it) fires a change.
          event.target.value = '';
          if (file) onFile(file);
        }}
      />
    </>
  );
}
