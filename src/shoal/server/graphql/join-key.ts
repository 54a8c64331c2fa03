/**
 * The key a relationship's rows are matched by, parent value to related row's value. The batched
 * statement compares them in SQL (the parent's value cast to the related column's type), so the
 * key must agree with SQL: on a numeric join column 5, 5n, "5" and "5.00" are one value.
 */
const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

function numericText(v: unknown): string | undefined {
  const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v.trim() : undefined;
  const m = text === undefined ? null : DECIMAL_TEXT.exec(text);
  if (!m) return undefined;
  const whole = m[2]!.replace(/^0+(?=\d)/, '');
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const digits = fraction ? `${whole}.${fraction}` : whole;
  return digits === '0' ? '0' : `${m[1]}${digits}`;
}

/** `numeric`: the join column is a number type (int, bigint, decimal, float). */
export function joinKey(v: unknown, numeric: boolean): string {
  if (numeric) {
    const n = numericText(v);
    if (n !== undefined) return n;
  }
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}
