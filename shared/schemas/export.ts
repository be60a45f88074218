import * as z from 'zod';
import { exportFormats } from '../exports';

// The constants and shapes live in shared/exports.ts (no zod); importers of this file get them too.
export * from '../exports';

/** POST /api/exports. */
export const createExportSchema = z.object({
  // Missing, not a string, or blank: the same message (spec 8, 'Project required').
  projectId: z.string('Please select a project to export.').trim().min(1, 'Please select a project to export.'),
  format: z.enum(exportFormats, 'Choose csv, xlsx or json').default('csv'),
});
export type CreateExportRequest = z.input<typeof createExportSchema>;

