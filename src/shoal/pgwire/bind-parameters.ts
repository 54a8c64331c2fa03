/**
 * Bind message parameters become SQL literals in the statement's text: the governed path takes
 * SQL text only, so `$n` is replaced by a literal that the parser and governance then see like
 * any other. Every value is validated for its declared type (an integer parameter must be an
 * integer, …) and strings are quoted with '' doubling (standard_conforming_strings is on), so a
 * parameter can never become SQL syntax. An untyped parameter (OID 0, what node-postgres sends)
 * is a string literal, which PostgreSQL and DuckDB both coerce as an "unknown" literal.
 */
import { PgProtocolError } from './pg-protocol-error.js';
import { OID } from './pg-types.js';

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

const invalid = (oid: number, what: string): PgProtocolError => new PgProtocolError(`invalid input for a parameter of type OID ${oid}: ${what}`, '22P02');

/** A parameter's value as text, from its wire form (format 0 text, 1 binary). */
export function decodeParameter(raw: Buffer, oid: number, format: number): string {
  if (format === 0) return raw.toString('utf8');
  switch (oid) {
    case OID.int2:
      if (raw.length !== 2) throw invalid(oid, 'binary int2 must be 2 bytes');
      return String(raw.readInt16BE(0));
    case OID.int4:
    case OID.oid:
      if (raw.length !== 4) throw invalid(oid, 'binary int4 must be 4 bytes');
      return String(oid === OID.oid ? raw.readUInt32BE(0) : raw.readInt32BE(0));
    case OID.int8:
      if (raw.length !== 8) throw invalid(oid, 'binary int8 must be 8 bytes');
      return raw.readBigInt64BE(0).toString();
    case OID.float4:
      if (raw.length !== 4) throw invalid(oid, 'binary float4 must be 4 bytes');
      return String(raw.readFloatBE(0));
    case OID.float8:
      if (raw.length !== 8) throw invalid(oid, 'binary float8 must be 8 bytes');
      return String(raw.readDoubleBE(0));
    case OID.bool:
      if (raw.length !== 1) throw invalid(oid, 'binary bool must be 1 byte');
      return raw[0] ? 't' : 'f';
    case OID.numeric:
      return numericFromBinary(raw);
    case OID.date: {
      if (raw.length !== 4) throw invalid(oid, 'binary date must be 4 bytes');
      return new Date(Date.UTC(2000, 0, 1) + raw.readInt32BE(0) * 86_400_000).toISOString().slice(0, 10);
    }
    case OID.timestamp:
    case OID.timestamptz: {
      if (raw.length !== 8) throw invalid(oid, 'binary timestamp must be 8 bytes');
      const micros = raw.readBigInt64BE(0);
      const ms = Number(micros / 1000n) + Date.UTC(2000, 0, 1);
      const frac = String(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, '0');
      const iso = new Date(ms).toISOString();
      return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${frac}${oid === OID.timestamptz ? '+00' : ''}`;
    }
    case OID.text:
    case OID.varchar:
    case OID.bpchar:
    case OID.name:
    case 0:
      return raw.toString('utf8');
    default:
      throw invalid(oid, 'binary format is not supported for this type; send it as text');
  }
}

function numericFromBinary(raw: Buffer): string {
  if (raw.length < 8) throw invalid(OID.numeric, 'binary numeric is too short');
  const n = raw.readInt16BE(0);
  const weight = raw.readInt16BE(2);
  const sign = raw.readUInt16BE(4);
  const scale = raw.readInt16BE(6);
  if (sign === 0xc000) return 'NaN';
  if (raw.length !== 8 + 2 * n || scale < 0 || n < 0) throw invalid(OID.numeric, 'malformed binary numeric');
  let int = '';
  let frac = '';
  for (let i = 0; i < n; i++) {
    const g = String(raw.readInt16BE(8 + 2 * i)).padStart(4, '0');
    if (weight - i >= 0) int += g;
    else frac += g;
  }
  // groups implied between the last digit and the decimal point, or between the point and the first
  if (weight >= n) int += '0000'.repeat(weight - n + 1);
  if (weight < -1) frac = '0000'.repeat(-weight - 1) + frac;
  int = int.replace(/^0+(?=\d)/, '') || '0';
  frac = frac.padEnd(scale, '0').slice(0, scale);
  return `${sign === 0x4000 ? '-' : ''}${int}${scale > 0 ? `.${frac}` : ''}`;
}

const quote = (s: string): string => {
  // PostgreSQL text cannot hold NUL (SQLSTATE 22021)
  if (s.includes('\0')) throw new PgProtocolError('a parameter value contains a NUL byte', '22021');
  return `'${s.replace(/'/g, "''")}'`;
};

const signed = (s: string): string => (s.startsWith('-') ? `(${s})` : s.replace(/^\+/, ''));

/** The SQL literal of a decoded parameter of type `oid` (null: NULL). */
export function parameterLiteral(value: string | null, oid: number): string {
  if (value === null) return 'NULL';
  const v = value.trim();
  switch (oid) {
    case OID.int2:
    case OID.int4:
    case OID.int8:
    case OID.oid:
      if (!INTEGER.test(v)) throw invalid(oid, 'not an integer');
      return signed(v);
    case OID.numeric:
      if (!DECIMAL.test(v)) throw invalid(oid, 'not a decimal');
      return signed(v);
    case OID.float4:
    case OID.float8:
      if (DECIMAL.test(v)) return `CAST(${signed(v)} AS double precision)`;
      if (/^[-+]?(infinity|nan)$/i.test(v)) return `CAST(${quote(v)} AS double precision)`;
      throw invalid(oid, 'not a number');
    case OID.bool:
      if (/^(t|true|y|yes|on|1)$/i.test(v)) return 'TRUE';
      if (/^(f|false|n|no|off|0)$/i.test(v)) return 'FALSE';
      throw invalid(oid, 'not a boolean');
    case OID.date:
      return `CAST(${quote(value)} AS date)`;
    case OID.timestamp:
      return `CAST(${quote(value)} AS timestamp)`;
    case OID.timestamptz:
      return `CAST(${quote(value)} AS timestamptz)`;
    default:
      return quote(value);
  }
}
