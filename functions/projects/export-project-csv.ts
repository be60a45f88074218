import { accountPassword, attributesOf } from '../accounts/account-item';
import { projectAttributeKeys } from './project-item';
import { attributeLabel } from '../../shared/schemas/attributes';
import { ACCOUNT_CSV_HEADER, UTF8_BOM, csvLine } from '../../shared/csv/write-csv';
import { exportCenterMessage, SYNC_EXPORT_MAX_ACCOUNTS } from '../../shared/exports';
import type { Cipher } from '../core/encryption';
import { ConflictError } from '../core/errors';
import type { ProjectStore } from './project-store';

/**
 * GET /api/projects/{id}/export: the project's accounts as CSV (First Name, Last Name, Email,
 * Username, Password), UTF-8 with BOM so spreadsheets read accents right, cells that look like
 * formulas neutralised. Saved by the browser as {projectName}_accounts.csv.
 *
 * Only up to `maxAccounts` (SYNC_EXPORT_MAX_ACCOUNTS): a larger project would outrun the Lambda's
 * 10 s and 6 MB, so it is refused with 409 and a message sending the user to the Export Center,
 * whose worker streams any size to a file. Decided from the project's accountCount before any
 * account is read, and again while reading (a count not yet updated by a running job).
 */
export const exportProjectCsv =
  (deps: { projects: ProjectStore; cipher: () => Promise<Cipher>; maxAccounts?: number }) =>
  async (userId: string, projectId: string): Promise<{ filename: string; body: string; projectName: string; rows: number }> => {
    const maxAccounts = deps.maxAccounts ?? SYNC_EXPORT_MAX_ACCOUNTS;
    const project = await deps.projects.get(userId, projectId);
    const accountCount = Number(project.accountCount ?? 0);
    if (accountCount > maxAccounts) throw new ConflictError(exportCenterMessage(accountCount), { accountCount, maxAccounts });
    const cipher = await deps.cipher();
    // The extra columns (department, title...) after the standard ones, as the project lists them.
    const attributeKeys = projectAttributeKeys(project);
    const lines: string[] = [UTF8_BOM, csvLine([...ACCOUNT_CSV_HEADER, ...attributeKeys.map(attributeLabel)])];
    let rows = 0;
    let cursor: string | undefined;
    do {
      const page = await deps.projects.accountsPage(userId, projectId, 1000, cursor);
      rows += page.items.length;
      if (rows > maxAccounts) throw new ConflictError(exportCenterMessage(maxAccounts, true), { maxAccounts });
      for (const item of page.items) {
        lines.push(
          csvLine([
            String(item.firstName),
            String(item.lastName),
            String(item.email),
            String(item.username),
            accountPassword(cipher, item),
            ...attributeKeys.map((key) => attributesOf(item)?.[key] ?? ''),
          ]),
        );
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { filename: `${safeFilename(String(project.name))}_accounts.csv`, body: lines.join(''), projectName: String(project.name), rows };
  };

/** Keeps letters, digits, spaces, dots, dashes and underscores; nothing that breaks a header or a path. */
export const safeFilename = (name: string): string => name.replace(/[^\p{L}\p{N} ._-]/gu, '_').trim().slice(0, 100) || 'project';
