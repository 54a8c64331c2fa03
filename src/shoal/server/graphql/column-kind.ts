/**
 * How a declared column type appears in GraphQL: its scalar, whether it can be summed, and the SQL
 * type a bound value is cast to. Derived from the declared type only (the one the role's catalog
 * shows), so the schema is the same on every instance at an epoch.
 */
import { GraphQLBoolean, GraphQLError, GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, Kind, type ValueNode } from 'graphql';

export type ColumnKind = 'int' | 'bigint' | 'decimal' | 'float' | 'boolean' | 'text' | 'other';

export function columnKind(declared: string): ColumnKind {
  const t = declared.toLowerCase().trim();
  if (/\[\]$/.test(t)) return 'other';
  if (/^(smallint|integer|int|int2|int4|tinyint|mediumint)$/.test(t)) return 'int';
  if (/^(bigint|int8|hugeint)$/.test(t)) return 'bigint';
  if (/^(decimal|numeric)\b/.test(t)) return 'decimal';
  if (/^(real|float|float4|float8|double|double precision)$/.test(t)) return 'float';
  if (/^(boolean|bool)$/.test(t)) return 'boolean';
  if (/^(varchar|text|string|char|character|character varying|bpchar|uuid)\b/.test(t) || t === 'unknown') return 'text';
  return 'other';
}

export const NUMERIC_KINDS: ReadonlySet<ColumnKind> = new Set(['int', 'bigint', 'decimal', 'float']);

/** A declared type safe to write into a CAST (it comes from the registry, but is checked anyway). */
const CASTABLE = /^[a-z][a-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$/;

/** The SQL type a bound value of this column is cast to; undefined = compared as the string it is. */
export function castTypeOf(declared: string): string | undefined {
  const t = declared.toLowerCase().trim();
  if (t === 'unknown' || !CASTABLE.test(t) || columnKind(t) === 'text') return undefined;
  return t;
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

function textScalar(name: string, description: string, pattern: RegExp): GraphQLScalarType {
  const check = (v: unknown): string => {
    const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : v;
    if (typeof s !== 'string' || !pattern.test(s)) throw new GraphQLError(`${name} cannot represent ${JSON.stringify(String(v))}`);
    return s;
  };
  return new GraphQLScalarType({
    name,
    description,
    // out: the wire value as /data/sql sends it (a number while exact, else a string)
    serialize: (v) => v,
    parseValue: check,
    parseLiteral: (node: ValueNode) => {
      if (node.kind !== Kind.INT && node.kind !== Kind.STRING && !(name === 'Decimal' && node.kind === Kind.FLOAT)) throw new GraphQLError(`${name} takes a number or a string of digits`);
      return check(node.value);
    },
  });
}

export const GraphQLBigInt = textScalar('BigInt', 'A 64-bit integer: a JSON number while exact, else a string of digits.', INTEGER_TEXT);
export const GraphQLDecimal = textScalar('Decimal', 'An exact decimal as a string that keeps its scale ("851.50"); input also as a number.', DECIMAL_TEXT);

export function scalarOf(kind: ColumnKind): GraphQLScalarType {
  switch (kind) {
    case 'int': return GraphQLInt;
    case 'bigint': return GraphQLBigInt;
    case 'decimal': return GraphQLDecimal;
    case 'float': return GraphQLFloat;
    case 'boolean': return GraphQLBoolean;
    default: return GraphQLString;
  }
}
