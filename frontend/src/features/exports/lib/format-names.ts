import type { ExportFileFormat } from '@shared/schemas/export';

/** How the form and the history name each format. */
export const formatNames: Record<ExportFileFormat, string> = { csv: 'CSV', xlsx: 'Excel (.xlsx)', json: 'JSON', zip: 'ZIP' };

/** The short form on the history's format badge. */
export const formatBadgeNames: Record<ExportFileFormat, string> = { csv: 'CSV', xlsx: 'XLSX', json: 'JSON', zip: 'ZIP' };
