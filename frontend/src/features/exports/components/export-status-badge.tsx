import { Badge } from '@chakra-ui/react';
import type { ExportView } from '@shared/schemas/export';

const statuses: Record<ExportView['status'], { label: string; colorPalette: string }> = {
  completed: { label: 'Completed', colorPalette: 'green' },
  failed: { label: 'Failed', colorPalette: 'red' },
  processing: { label: 'Processing', colorPalette: 'blue' },
  pending: { label: 'Pending', colorPalette: 'gray' },
};

/** Spec 4: completed green, failed red, processing blue, anything else pending (gray). */
export function ExportStatusBadge({ status }: { status: ExportView['status'] }) {
  const { label, colorPalette } = statuses[status] ?? statuses.pending;
  return (
    <Badge colorPalette={colorPalette} variant="subtle">
      {label}
    </Badge>
  );
}
