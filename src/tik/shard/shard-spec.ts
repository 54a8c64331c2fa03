import { createHash } from 'node:crypto';
import { TikError } from '../errors.js';

/**
 * Which part of the ticket space a replica holds (ADR 0021 consequence 1): shard `index` of
 * `count`. A replica started without `--shard` holds everything, which is the same as `0/1`.
 */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** The whole ticket space: an unsharded replica. */
export const WHOLE: ShardSpec = Object.freeze({ index: 0, count: 1 });

/** The largest shard count accepted (a sanity bound, not a design limit). */
export const MAX_SHARDS = 4096;

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `text` is a full lower-case uuid (a ticket id, not a prefix). */
export function isTicketId(text: string): boolean {
  return UUID_TEXT.test(text);
}

/**
 * The shard of a ticket among `count`: the first 8 bytes of SHA-256 over the UTF-8 bytes of the
 * ticket's lower-case uuid text (36 characters, with hyphens), read as an unsigned big-endian
 * 64-bit integer, modulo `count`. Stable across implementations and runs.
 */
export function shardOf(ticket: string, count: number): number {
  if (count === 1) return 0;
  const h = createHash('sha256').update(ticket.toLowerCase(), 'utf8').digest();
  return Number(h.readBigUInt64BE(0) % BigInt(count));
}

/** Whether a replica holding `spec` owns `ticket`. */
export function ownsTicket(spec: ShardSpec, ticket: string): boolean {
  return spec.count === 1 || shardOf(ticket, spec.count) === spec.index;
}

/** `i/M` text of a spec (what `--shard` takes, `/health` announces and sync requests carry). */
export function shardText(spec: ShardSpec): string {
  return `${spec.index}/${spec.count}`;
}

export function sameShard(a: ShardSpec, b: ShardSpec): boolean {
  return a.index === b.index && a.count === b.count;
}

/** Parses `i/M` (0 ≤ i < M ≤ 4096); throws `shard/bad-spec` naming `where`. */
export function parseShardSpec(text: string, where = '--shard'): ShardSpec {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index >= count) {
    throw new TikError('shard/bad-spec', `${where} must be i/M with 0 ≤ i < M ≤ ${MAX_SHARDS}, got ${JSON.stringify(text)}`, {
      where,
      hint: 'e.g. --shard 0/2 and --shard 1/2 for two shards',
    });
  }
  return Object.freeze({ index, count });
}
