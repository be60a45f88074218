/**
 * Delete a project (DELETE /api/projects/{id}), as a job on the account-jobs engine
 * (functions/projects/project-deletion*.ts; docs/lifecycle.md, Deleting a project). Each account
 * provisioned to a platform is removed there first when the user asks; then it is erased here.
 * An account the platform refused to remove stays, with the platform's words; the project goes
 * once no account is left. removed + kept + pending = total at every moment.
 */

export const projectDeletionStatuses = ['queued', 'waiting', 'running', 'resuming', 'paused', 'completed', 'failed'] as const;
export type ProjectDeletionStatus = (typeof projectDeletionStatuses)[number];

/** GET /api/project-deletions/{id} (and the 202 of DELETE /api/projects/{id}). */
export interface ProjectDeletion {
  id: string;
  projectId: string;
  projectName: string;
  status: ProjectDeletionStatus;
  /** The accounts the project had when the deletion was planned. */
  total: number;
  /** Erased here (and, of them, removed from the platform first). */
  removed: number;
  removedOnPlatform: number;
  /** Refused by the platform: they stay in the project, each with the platform's words. */
  kept: number;
  pending: number;
  /** Whether the user asked to remove the accounts from the platform they were provisioned to. */
  removeFromPlatform: boolean;
  integrationName?: string;
  /** Once it is over with no account left: the project is gone. */
  projectDeleted: boolean;
  /** Why it paused or failed, in words a user can act on. */
  reason?: string;
  /** Accounts kept, with the platform's words (at most DELETION_KEPT_SHOWN). */
  keptAccounts?: { username: string; email: string; reason: string }[];
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export const DELETION_KEPT_SHOWN = 50;

/** The words an account the platform refused to remove carries. */
export const notRemovedFrom = (platform: string, words: string): string => `Not removed from ${platform}: ${words}`.slice(0, 500);

/** 'completed with failures': completed, some accounts kept. */
export const deletionOutcome = (job: Pick<ProjectDeletion, 'status' | 'kept'>): string =>
  job.status === 'completed' ? (job.kept > 0 ? 'completed with failures' : 'completed') : job.status;

/** The 409 of any other job asked to start on a project being deleted. */
export const PROJECT_BEING_DELETED = 'This project is being deleted.';
