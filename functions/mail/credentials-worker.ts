import { planSend } from './credential-sends';
import type { CredentialsMessage } from './mail-message';
import { isChunkMessage, mailChunkAccounts, sendChunk, type SendChunkDeps } from './send-credentials';

/** The mail worker's 'credentials' messages: a send's plan, or one of its chunks. */
export function credentialsWorker(deps: SendChunkDeps) {
  // Chunks as large as the worker's budget at the paced rate allows (fewer fixed round trips and tails).
  const plan = planSend({ ...deps, chunkAccounts: (total) => mailChunkAccounts(total, deps.rate(), deps.workers) });
  const chunk = sendChunk(deps);
  return (message: CredentialsMessage): Promise<void> => (isChunkMessage(message) ? chunk(message) : plan(message.userId, message.sendId));
}
