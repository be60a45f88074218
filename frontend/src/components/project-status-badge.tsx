import { Badge } from '@chakra-ui/react';
import type { Project } from '@shared/schemas/project';

/** Spec 4: 'completed' shows Completed, anything else Active; a project whose expiration date arrived (expiredAt) shows Expired. */
export function ProjectStatusBadge({ status, expiredAt }: { status: Project['status']; expiredAt?: string }) {
  if (expiredAt)
    return (
      <Badge colorPalette="orange" variant="subtle">
        Expired
      </Badge>
    );
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
