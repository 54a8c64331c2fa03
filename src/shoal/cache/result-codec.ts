/**
 * The stored form of a cached result: columns and rows exactly as the live path produced them.
 * JSON has no bigint, Date, bytes or non-finite numbers, so every cell that is not a plain JSON
 * scalar is written as a tagged object and read back as the same JS value (a `Buffer` stays a
 * `Buffer`, a bigint a bigint, `NaN` stays `NaN`). A cell of any other kind (a class instance the
 * codec does not know) makes the result unencodable: it is then served live, never approximated.
 */
import type { ColumnInfo } from '../server/query-service.js';

/** A cached result as it is stored. `at` is the store instant (ms), `ttlMs` its lifetime. */
export interface ResultEntry {
  readonly at: number;
  readonly ttlMs: number;
  readonly tables: readonly string[];
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly unknown[])[];
}

type Tagged =
  | { readonly t: 'i'; readonly v: string } // bigint
  | { readonly t: 'n'; readonly v: string } // NaN, Infinity, -Infinity, -0
  | { readonly t: 'd'; readonly v: number } // Date (epoch ms; an invalid Date is unencodable)
  | { readonly t: 'B'; readonly v: string } // Buffer, base64
  | { readonly t: 'u'; readonly v: string } // other Uint8Array, base64
  | { readonly t: 'a'; readonly v: readonly unknown[] }
  | { readonly t: 'o'; readonly v: Readonly<Record<string, unknown>> }
  | { readonly t: 'x' }; // undefined

/** Raised inside encoding when a cell cannot be stored exactly. */
class Unencodable extends Error {}

function encodeCell(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : ({ t: 'n', v: String(Object.is(v, -0) ? '-0' : v) } satisfies Tagged);
  if (typeof v === 'bigint') return { t: 'i', v: v.toString() } satisfies Tagged;
  if (v === undefined) return { t: 'x' } satisfies Tagged;
  if (v instanceof Date) {
    const ms = v.getTime();
    if (Number.isNaN(ms)) throw new Unencodable('invalid Date');
    return { t: 'd', v: ms } satisfies Tagged;
  }
  if (Buffer.isBuffer(v)) return { t: 'B', v: v.toString('base64') } satisfies Tagged;
  if (v instanceof Uint8Array && Object.getPrototypeOf(v) === Uint8Array.prototype) return { t: 'u', v: Buffer.from(v).toString('base64') } satisfies Tagged;
  if (Array.isArray(v) && Object.getPrototypeOf(v) === Array.prototype) return { t: 'a', v: v.map(encodeCell) } satisfies Tagged;
  if (typeof v === 'object') {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto === Object.prototype || proto === null) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = encodeCell(x);
      return { t: 'o', v: out } satisfies Tagged;
    }
  }
  throw new Unencodable(typeof v);
}

function decodeCell(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const c = v as Tagged;
  switch (c.t) {
    case 'i':
      return BigInt(c.v);
    case 'n':
      return c.v === '-0' ? -0 : Number(c.v);
    case 'd':
      return new Date(c.v);
    case 'B':
      return Buffer.from(c.v, 'base64');
    case 'u':
      return new Uint8Array(Buffer.from(c.v, 'base64'));
    case 'a':
      return c.v.map(decodeCell);
    case 'o': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(c.v)) out[k] = decodeCell(x);
      return out;
    }
    case 'x':
      return undefined;
    default:
      throw new Error('unknown cell tag');
  }
}

/** One row in stored form, or undefined when a cell cannot be stored exactly. */
export function encodeRow(row: readonly unknown[]): unknown[] | undefined {
  try {
    return row.map(encodeCell);
  } catch (e) {
    if (e instanceof Unencodable) return undefined;
    throw e;
  }
}

/**
 * The stored text of an entry whose rows are already encoded (`encodeRow`). The rows are
 * written last so a reader can check freshness without them mattering to the layout.
 */
export function entryText(meta: Omit<ResultEntry, 'rows'>, encodedRowsJson: string): string {
  return `{"v":1,"at":${meta.at},"ttlMs":${meta.ttlMs},"tables":${JSON.stringify(meta.tables)},"columns":${JSON.stringify(meta.columns)},"rows":${encodedRowsJson}}`;
}

/** Read a stored entry back; undefined for text that is not an entry of this format (treated as absent). */
export function decodeEntry(text: string): ResultEntry | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object') return undefined;
  const e = raw as { v?: unknown; at?: unknown; ttlMs?: unknown; tables?: unknown; columns?: unknown; rows?: unknown };
  if (e.v !== 1 || typeof e.at !== 'number' || typeof e.ttlMs !== 'number' || !Array.isArray(e.tables) || !Array.isArray(e.columns) || !Array.isArray(e.rows)) {
    return undefined;
  }
  try {
    return {
      at: e.at,
      ttlMs: e.ttlMs,
      tables: e.tables as string[],
      columns: e.columns as ColumnInfo[],
      rows: (e.rows as unknown[][]).map((r) => r.map(decodeCell)),
    };
  } catch {
    return undefined;
  }
}
