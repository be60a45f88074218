import type { ExportMessage } from './export-message';
import type { ExportStore } from './export-store';
import { EXPORT_FAILED } from './run-export';

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
  (deps: { exports: Pick<ExportStore, 'fail'>; now: () => Date }) =>
  async (message: ExportMessage): Promise<void> => {
    await deps.exports.fail(message.userId, message.exportId, EXPORT_STOPPED, deps.now(), { onlyUnfinished: true });
  };
