import { Badge } from '@chakra-ui/react';
import type { Project } from '@shared/schemas/project';

/** Spec 4: 'completed' shows Completed, anything else Active. */
export function ProjectStatusBadge({ status }: { status: Project['status'] }) {
  return status === 'completed' ? (
    <Badge colorPalette="gray" variant="subtle">
      Completed
    </Badge>
  ) : (
    <Badge colorPalette="green" variant="subtle">
      Active
    </Badge>
  );
}
