/**
 * A fresh Idempotency-Key, one per click: a request repeated with it is answered once by the
 * server. randomUUID needs a secure context; plain http on a LAN address has only getRandomValues.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
