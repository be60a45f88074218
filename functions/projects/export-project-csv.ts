import { accountPassword } from '../accounts/account-item';
import { ACCOUNT_CSV_HEADER, UTF8_BOM, csvLine } from '../../shared/csv/write-csv';
import type { Cipher } from '../core/encryption';
import type { ProjectStore } from './project-store';

/**
 * GET /api/projects/{id}/export: the project's accounts as CSV (First Name, Last Name, Email,
 * Username, Password), UTF-8 with BOM so spreadsheets read accents right, cells that look like
 * formulas neutralised. Saved by the browser as {projectName}_accounts.csv.
 */
export const exportProjectCsv =
  (deps: { projects: ProjectStore; cipher: () => Promise<Cipher> }) =>
  async (userId: string, projectId: string): Promise<{ filename: string; body: string }> => {
    const project = await deps.projects.get(userId, projectId);
    const cipher = await deps.cipher();
    const lines: string[] = [UTF8_BOM, csvLine(ACCOUNT_CSV_HEADER)];
    let cursor: string | undefined;
    do {
      const page = await deps.projects.accountsPage(userId, projectId, 1000, cursor);
      for (const item of page.items) {
        lines.push(
          csvLine([
            String(item.firstName),
            String(item.lastName),
            String(item.email),
            String(item.username),
            accountPassword(cipher, item),
          ]),
        );
      }
      cursor = page.nextCursor;
    } while (cursor);
    return { filename: `${safeFilename(String(project.name))}_accounts.csv`, body: lines.join('') };
  };

/** Keeps letters, digits, spaces, dots, dashes and underscores; nothing that breaks a header or a path. */
export const safeFilename = (name: string): string => name.replace(/[^\p{L}\p{N} ._-]/gu, '_').trim().slice(0, 100) || 'project';
