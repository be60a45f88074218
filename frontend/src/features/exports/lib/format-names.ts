import type { ExportFormat } from '@shared/schemas/export';

/** How the form and the history name each format. */
export const formatNames: Record<ExportFormat, string> = { csv: 'CSV', xlsx: 'Excel (.xlsx)', json: 'JSON' };

/** The short form on the history's format badge. */
export const formatBadgeNames: Record<ExportFormat, string> = { csv: 'CSV', xlsx: 'XLSX', json: 'JSON' };
