import { createHash } from 'node:crypto';
import { compareItemToBound, type Bound } from './bound.js';
import { encodeVarint } from './byte-io.js';
import { compareItems, ID_BYTES, type SyncItem } from './sync-item.js';

export const FINGERPRINT_BYTES = 16;

/**
 * A sorted, immutable set of items with prefix sums of their ids, so that the fingerprint of any
 * index range costs O(1) additions plus one SHA-256:
 * fingerprint = SHA-256( (Σ ids as 256-bit little-endian) mod 2^256 ‖ varint(count) )[0..16).
 */
export class ItemSet {
  readonly items: readonly SyncItem[];
  /** (n+1) × 8 little-endian u32 limbs: sums[i] = Σ ids of items[0..i). */
  private readonly sums: Uint32Array;

  private constructor(items: readonly SyncItem[]) {
    this.items = items;
    const sums = new Uint32Array((items.length + 1) * 8);
    for (let i = 0; i < items.length; i++) {
      const id = items[i]!.id;
      const view = new DataView(id.buffer, id.byteOffset, ID_BYTES);
      let carry = 0;
      for (let k = 0; k < 8; k++) {
        const s = sums[i * 8 + k]! + view.getUint32(k * 4, true) + carry;
        sums[(i + 1) * 8 + k] = s >>> 0;
        carry = s > 0xffffffff ? 1 : 0;
      }
    }
    this.sums = sums;
  }

  /** Sorts and de-duplicates (by id) the given items. */
  static of(items: Iterable<SyncItem>): ItemSet {
    const sorted = [...items].sort(compareItems);
    const out: SyncItem[] = [];
    for (const it of sorted) {
      const last = out[out.length - 1];
      if (last && compareItems(last, it) === 0) continue;
      out.push(it);
    }
    return new ItemSet(Object.freeze(out));
  }

  get size(): number {
    return this.items.length;
  }

  /** The first index in [from, size) whose item is not below `bound`. */
  lowerBound(bound: Bound, from = 0): number {
    let lo = from;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareItemToBound(this.items[mid]!, bound) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  fingerprint(from: number, to: number): Uint8Array {
    const sum = new Uint8Array(ID_BYTES);
    const view = new DataView(sum.buffer);
    let borrow = 0;
    for (let k = 0; k < 8; k++) {
      let d = this.sums[to * 8 + k]! - this.sums[from * 8 + k]! - borrow;
      borrow = d < 0 ? 1 : 0;
      if (d < 0) d += 0x100000000;
      view.setUint32(k * 4, d, true);
    }
    return fingerprintOfSum(sum, to - from);
  }
}

export function fingerprintOfSum(sumLe: Uint8Array, count: number): Uint8Array {
  return createHash('sha256').update(sumLe).update(encodeVarint(count)).digest().subarray(0, FINGERPRINT_BYTES);
}
