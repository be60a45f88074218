import * as z from 'zod/mini';
import './zod-messages';
import { exportFormats } from '../exports';
import { idField } from './id-field';

// The constants and shapes live in shared/exports.ts (no zod); importers of this file get them too.
export * from '../exports';

/** POST /api/exports. */
export const createExportSchema = z.object({
  // Missing, not a string, or blank: the same message (spec 8, 'Project required'). An id that
  // cannot exist (a 5,000-character one) is not found, like another user's project.
  projectId: idField({ required: 'Please select a project to export.', notFound: 'Project not found' }),
  format: z._default(z.enum(exportFormats, 'Choose csv, xlsx or json'), 'csv'),
});
export type CreateExportRequest = z.input<typeof createExportSchema>;

