/**
 * Result cells on the wire: a shoal column type (a PostgreSQL type name, see
 * src/shoal/instance/pg-type-names.ts) becomes a type OID, and each cell its text or binary
 * form. Binary is written for int2/4/8, float4/8, bool, numeric, date, timestamp, timestamptz
 * and bytea; every other type is sent as `text` (OID 25), whose binary form is its UTF-8 text.
 */
import { toWireValue } from '../server/json-value.js';

export interface PgType {
  readonly oid: number;
  /** pg_type.typname, as `format_type` names it when there is no declared type. */
  readonly name: string;
  /** pg_type.typlen. */
  readonly size: number;
  readonly modifier: number;
}

export const OID = {
  bool: 16,
  bytea: 17,
  name: 19,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  float4: 700,
  float8: 701,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

const TEXT: PgType = { oid: OID.text, name: 'text', size: -1, modifier: -1 };

const fixed = (oid: number, name: string, size: number): PgType => ({ oid, name, size, modifier: -1 });
const BOOL = fixed(OID.bool, 'boolean', 1);
const INT2 = fixed(OID.int2, 'smallint', 2);
const INT4 = fixed(OID.int4, 'integer', 4);
const INT8 = fixed(OID.int8, 'bigint', 8);
const FLOAT4 = fixed(OID.float4, 'real', 4);
const FLOAT8 = fixed(OID.float8, 'double precision', 8);
const TIMESTAMP = fixed(OID.timestamp, 'timestamp without time zone', 8);
const TIMESTAMPTZ = fixed(OID.timestamptz, 'timestamp with time zone', 8);
const VARCHAR = fixed(OID.varchar, 'character varying', -1);

/** Type names (and their aliases) with a wire type of their own. */
const SIMPLE: Readonly<Record<string, PgType>> = {
  boolean: BOOL, bool: BOOL,
  smallint: INT2, int2: INT2,
  integer: INT4, int: INT4, int4: INT4,
  bigint: INT8, int8: INT8,
  real: FLOAT4, float4: FLOAT4,
  'double precision': FLOAT8, double: FLOAT8, float8: FLOAT8, float: FLOAT8,
  date: fixed(OID.date, 'date', 4),
  timestamp: TIMESTAMP, 'timestamp without time zone': TIMESTAMP, datetime: TIMESTAMP,
  timestamptz: TIMESTAMPTZ, 'timestamp with time zone': TIMESTAMPTZ,
  bytea: fixed(OID.bytea, 'bytea', -1),
  text: TEXT,
  varchar: VARCHAR, 'character varying': VARCHAR,
};

/** The wire type of a shoal column type name (`numeric(12,2)`, `varchar(40)`, `timestamptz`, …). */
export function pgTypeOf(type: string | undefined): PgType {
  const t = (type ?? '').trim().toLowerCase();
  const m = /^([a-z ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(t);
  if (!m) return TEXT;
  const base = m[1]!;
  if (base === 'numeric' || base === 'decimal') {
    const p = m[2] === undefined ? undefined : Number(m[2]);
    const s = m[3] === undefined ? 0 : Number(m[3]);
    return { oid: OID.numeric, name: 'numeric', size: -1, modifier: p === undefined ? -1 : ((p << 16) | s) + 4 };
  }
  const simple = SIMPLE[base];
  if (!simple) return TEXT;
  if (simple.oid === OID.varchar && m[2] !== undefined) return { ...simple, modifier: Number(m[2]) + 4 };
  return simple;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** A JS Date as PostgreSQL prints it (ISO DateStyle, UTC). */
function dateText(d: Date, oid: number): string {
  const day = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  if (oid === OID.date) return day;
  const ms = d.getUTCMilliseconds();
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3).replace(/0+$/, '')}` : ''}`;
  return `${day} ${time}${oid === OID.timestamptz ? '+00' : ''}`;
}

/** The text form of a cell (null for SQL NULL). */
export function textOf(v: unknown, type: PgType): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : String(v);
  if (v instanceof Date) return dateText(v, type.oid);
  if (v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  const w = toWireValue(v);
  return typeof w === 'string' ? w : JSON.stringify(w);
}

const EPOCH_2000_MS = Date.UTC(2000, 0, 1);
const DAY_MS = 86_400_000;

/** Microseconds since 2000-01-01 of a timestamp's text (`YYYY-MM-DD[ T]HH:MM:SS[.ffffff][±HH[:MM]|Z]`). */
function micros2000(text: string, withZone: boolean): bigint {
  const m = /^(\d{4,})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6})\d*)?)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(text.trim());
  if (!m) throw new TypeError(`not a timestamp: ${text.slice(0, 40)}`);
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  let micros = BigInt(ms - EPOCH_2000_MS) * 1000n + BigInt((m[7] ?? '').padEnd(6, '0') || '0');
  const zone = m[8];
  if (withZone && zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0);
    micros -= BigInt(sign * minutes) * 60_000_000n;
  }
  return micros;
}

/** NUMERIC's binary form: base-10000 digit groups, a weight, a sign and the display scale. */
function numericBinary(text: string): Buffer {
  const t = text.trim();
  if (/^nan$/i.test(t)) return Buffer.from([0, 0, 0, 0, 0xc0, 0, 0, 0]);
  const m = /^([-+])?(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new TypeError(`not a decimal: ${t.slice(0, 40)}`);
  const negative = m[1] === '-';
  const intPart = (m[2] ?? '').replace(/^0+/, '');
  const frac = m[3] ?? '';
  const scale = frac.length;
  // pad the integer part to whole groups on the left and the fraction on the right
  const intPadded = intPart.padStart(Math.ceil(intPart.length / 4) * 4, '0');
  const fracPadded = frac.padEnd(Math.ceil(frac.length / 4) * 4, '0');
  const groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intPadded.length / 4 - 1;
  // strip leading and trailing zero groups (the weight moves with leading ones)
  while (groups.length > 0 && groups[0] === 0) {
    groups.shift();
    weight--;
  }
  while (groups.length > 0 && groups[groups.length - 1] === 0) groups.pop();
  if (groups.length === 0) weight = 0;
  const out = Buffer.alloc(8 + 2 * groups.length);
  out.writeInt16BE(groups.length, 0);
  out.writeInt16BE(weight, 2);
  out.writeUInt16BE(negative && groups.length > 0 ? 0x4000 : 0, 4);
  out.writeInt16BE(scale, 6);
  groups.forEach((g, i) => out.writeInt16BE(g, 8 + 2 * i));
  return out;
}

function integerOf(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^[-+]?\d+$/.test(v.trim())) return BigInt(v.trim());
  if (typeof v === 'boolean') return v ? 1n : 0n;
  throw new TypeError('not an integer');
}

/** The binary form of a non-null cell of `type` (see the file comment for the types). */
export function binaryOf(v: unknown, type: PgType): Buffer {
  switch (type.oid) {
    case OID.bool:
      return Buffer.from([v === true || v === 't' || v === 'true' || v === 1 ? 1 : 0]);
    case OID.int2: {
      const b = Buffer.alloc(2);
      b.writeInt16BE(Number(integerOf(v)));
      return b;
    }
    case OID.int4: {
      const b = Buffer.alloc(4);
      b.writeInt32BE(Number(integerOf(v)));
      return b;
    }
    case OID.int8: {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(integerOf(v));
      return b;
    }
    case OID.float4: {
      const b = Buffer.alloc(4);
      b.writeFloatBE(Number(v));
      return b;
    }
    case OID.float8: {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(Number(v));
      return b;
    }
    case OID.numeric:
      return numericBinary(textOf(v, type)!);
    case OID.date: {
      const b = Buffer.alloc(4);
      const ms = v instanceof Date ? v.getTime() : Date.parse(`${textOf(v, type)!.slice(0, 10)}T00:00:00Z`);
      if (Number.isNaN(ms)) throw new TypeError('not a date');
      b.writeInt32BE(Math.floor((ms - EPOCH_2000_MS) / DAY_MS));
      return b;
    }
    case OID.timestamp:
    case OID.timestamptz: {
      const b = Buffer.alloc(8);
      const micros = v instanceof Date ? BigInt(v.getTime() - EPOCH_2000_MS) * 1000n : micros2000(textOf(v, type)!, type.oid === OID.timestamptz);
      b.writeBigInt64BE(micros);
      return b;
    }
    case OID.bytea:
      if (v instanceof Uint8Array) return Buffer.from(v);
      return Buffer.from(textOf(v, type)!, 'utf8');
    default:
      return Buffer.from(textOf(v, type)!, 'utf8');
  }
}

/** One cell in the format the client asked for (0 text, 1 binary). */
export function encodeCell(v: unknown, type: PgType, format: number): Buffer | null {
  if (v === null || v === undefined) return null;
  if (format === 1) return binaryOf(v, type);
  return Buffer.from(textOf(v, type)!, 'utf8');
}
