import { planSend } from './credential-sends';
import type { CredentialsMessage } from './mail-message';
import { isChunkMessage, sendChunk, type SendChunkDeps } from './send-credentials';

/** The mail worker's 'credentials' messages: a send's plan, or one of its chunks. */
export function credentialsWorker(deps: SendChunkDeps) {
  const plan = planSend(deps);
  const chunk = sendChunk(deps);
  return (message: CredentialsMessage): Promise<void> => (isChunkMessage(message) ? chunk(message) : plan(message.userId, message.sendId));
}
