import { TikError } from '../errors.js';
import type { ByteReader, ByteWriter } from './byte-io.js';
import { ID_BYTES, type SyncItem } from './sync-item.js';

/**
 * A range boundary: a time and an id prefix (implicitly padded with zero bytes). An item is
 * below the bound iff its time is smaller, or equal with an id that sorts before the prefix.
 * `ts = Infinity` is the bound above every item.
 */
export interface Bound {
  readonly ts: number;
  readonly prefix: Uint8Array;
}

export const MIN_BOUND: Bound = Object.freeze({ ts: 0, prefix: new Uint8Array(0) });
export const MAX_BOUND: Bound = Object.freeze({ ts: Number.POSITIVE_INFINITY, prefix: new Uint8Array(0) });

/** < 0 if the item is below the bound, ≥ 0 otherwise. */
export function compareItemToBound(item: SyncItem, bound: Bound): number {
  if (item.ts !== bound.ts) return item.ts < bound.ts ? -1 : 1;
  const p = bound.prefix;
  for (let i = 0; i < p.length; i++) {
    const d = item.id[i]! - p[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** The shortest bound that separates `prev` (below) from `curr` (at or above). */
export function minimalBound(prev: SyncItem, curr: SyncItem): Bound {
  if (curr.ts !== prev.ts) return { ts: curr.ts, prefix: new Uint8Array(0) };
  let shared = 0;
  while (shared < ID_BYTES && curr.id[shared] === prev.id[shared]) shared++;
  return { ts: curr.ts, prefix: curr.id.slice(0, Math.min(shared + 1, ID_BYTES)) };
}

/** Per-message state of delta-encoded timestamps (each message starts from 0). */
export class TimestampCodec {
  private last = 0;

  write(w: ByteWriter, b: Bound): void {
    if (b.ts === Number.POSITIVE_INFINITY) {
      this.last = Number.POSITIVE_INFINITY;
      w.varint(0);
    } else {
      w.varint(1 + b.ts - this.last);
      this.last = b.ts;
    }
    w.varint(b.prefix.length);
    w.bytes(b.prefix);
  }

  read(r: ByteReader): Bound {
    const v = r.varint('bound timestamp');
    let ts: number;
    if (v === 0) ts = Number.POSITIVE_INFINITY;
    else {
      if (this.last === Number.POSITIVE_INFINITY) throw badBound('a bound follows the infinite bound');
      ts = this.last + v - 1;
      if (!Number.isSafeInteger(ts)) throw badBound(`timestamp ${ts} is out of range`);
    }
    this.last = ts;
    const len = r.varint('bound prefix length');
    if (len > ID_BYTES) throw badBound(`an id prefix of ${len} bytes (at most ${ID_BYTES})`);
    return { ts, prefix: r.bytes(len, 'bound id prefix') };
  }
}

const badBound = (what: string): TikError =>
  new TikError('sync/bad-message', `reconciliation message has a bad bound: ${what}`, { where: 'bound', hint: 'the peer speaks another protocol version or sent garbage' });
