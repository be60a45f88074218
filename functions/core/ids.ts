import { createHash, randomBytes } from 'node:crypto';

/**
 * Time-ordered ids (UUID version 7): sortable by creation, so a Query on `PROJECT#<id>` lists
 * newest first without another index. 48-bit milliseconds, then 74 random bits.
 */
export function timeOrderedId(now: Date = new Date()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(now.getTime());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const isId = (value: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

/**
 * A time-ordered id whose random part comes from a seed: the same event (a job's end, seen again
 * by a redelivery) gets the same id, so writing it twice writes it once.
 */
export function timeOrderedIdFrom(now: Date, seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  const ms = BigInt(now.getTime());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest time-ordered id of a moment: `SK >= NOTIFICATION#<this>` reads what came since. */
export function timeOrderedIdFloor(now: Date): string {
  const hex = now.getTime().toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
