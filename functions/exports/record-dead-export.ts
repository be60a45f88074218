import type { ExportMessage } from './export-message';
import type { ExportStore } from './export-store';
import { EXPORT_FAILED, type RunExportDeps } from './run-export';
import { kindOf } from './export-item';
import type { ExportSubject } from '../notifications/events';

/** What a user reads when every delivery of an export ended without an answer from the worker. */
export const EXPORT_STOPPED = `${EXPORT_FAILED} It stopped before finishing on every attempt (it ran out of time or memory).`;

/**
 * Dead-letter worker of the exports queue. The export worker records its own failures, but one
 * that timed out or crashed on its last delivery cannot: the message lands here, and the export
 * would stay 'processing' until its history item expires. It becomes failed with a reason; an
 * export that completed meanwhile (a late attempt) or failed with its own reason stays so, and a
 * redelivery changes nothing.
 */
export const recordDeadExport =
  (deps: { exports: Pick<ExportStore, 'fail' | 'get'>; now: () => Date; notifyFailed?: RunExportDeps['notifyFailed'] }) =>
  async (message: ExportMessage): Promise<void> => {
    const at = deps.now();
    if (!(await deps.exports.fail(message.userId, message.exportId, EXPORT_STOPPED, at, { onlyUnfinished: true }))) return;
    // Told in the bell like a failure the worker recorded itself (a project's export, Export All Data, the security events).
    const item = await deps.exports.get(message.userId, message.exportId);
    if (!item || !deps.notifyFailed) return;
    const kind = kindOf(item);
    const subject: ExportSubject = kind === 'account-data' || kind === 'security-events' ? { kind } : { kind: 'project', projectName: String(item.projectName) };
    await deps.notifyFailed({ userId: message.userId, exportId: message.exportId, subject, reason: EXPORT_STOPPED, at });
  };
