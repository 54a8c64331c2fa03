import { TikError } from '../errors.js';

/**
 * One element of a reconciled set: an event's claimed time in epoch milliseconds (clamped to
 * [0, 2^53)) and its 32-byte id (the SHA-256 of its bytes). Items sort by time, then id bytes.
 */
export interface SyncItem {
  readonly ts: number;
  readonly id: Uint8Array;
}

export const ID_BYTES = 32;

/** `sha256-<hex>` → 32 bytes. */
export function idBytes(id: string): Uint8Array {
  if (!/^sha256-[0-9a-f]{64}$/.test(id)) {
    throw new TikError('sync/bad-id', `not an event id: ${JSON.stringify(id)}`, { where: id, hint: 'ids are sha256-<64 hex>' });
  }
  return Uint8Array.from(Buffer.from(id.slice(7), 'hex'));
}

/** 32 bytes → `sha256-<hex>`. */
export function idText(id: Uint8Array): string {
  return `sha256-${Buffer.from(id).toString('hex')}`;
}

/** Clamp an instant to the item time range (events before 1970 sort as 0). */
export function itemTime(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) return 0;
  return Math.min(Math.floor(ms), Number.MAX_SAFE_INTEGER - 1);
}

export function compareIds(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < ID_BYTES; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

export function compareItems(a: SyncItem, b: SyncItem): number {
  return a.ts !== b.ts ? (a.ts < b.ts ? -1 : 1) : compareIds(a.id, b.id);
}
