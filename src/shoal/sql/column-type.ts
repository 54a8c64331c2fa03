/** Coarse classes of declared column types, enough to pick mask expressions and literals. */
export type TypeClass = 'string' | 'integer' | 'numeric' | 'date' | 'timestamp' | 'time' | 'boolean' | 'other';

export function typeClass(type: string | undefined): TypeClass {
  const t = (type ?? '').toLowerCase().replace(/\(.*\)/, '').trim();
  if (!t) return 'other';
  if (/^(smallint|integer|int|int2|int4|int8|bigint|tinyint|mediumint|serial|bigserial|smallserial)$/.test(t)) return 'integer';
  if (/^(decimal|numeric|real|float|float4|float8|double|double precision|money)$/.test(t)) return 'numeric';
  if (/^(varchar|character varying|char|character|text|string|bpchar|citext|uuid|json|jsonb|name)$/.test(t)) return 'string';
  if (t === 'date') return 'date';
  if (/^(timestamp|timestamptz|datetime|timestamp with(out)? time zone)$/.test(t)) return 'timestamp';
  if (/^(time|timetz|time with(out)? time zone)$/.test(t)) return 'time';
  if (/^(boolean|bool)$/.test(t)) return 'boolean';
  return 'other';
}

/** Bounds upstream substitutes for `mask_value: MAX | MIN` on integer columns. */
export function integerBounds(type: string | undefined): { min: string; max: string } {
  const t = (type ?? '').toLowerCase();
  if (/smallint|int2/.test(t)) return { min: '-32768', max: '32767' };
  if (/bigint|int8|bigserial/.test(t)) return { min: '-9223372036854775808', max: '9223372036854775807' };
  return { min: '-2147483648', max: '2147483647' };
}
