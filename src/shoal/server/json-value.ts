/**
 * The wire form of a result cell. JSON has no bigint, date or bytes: integers outside the safe
 * range travel as decimal strings (never rounded), instants as ISO-8601 strings, bytes as base64.
 */
export function toWireValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'bigint':
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'string':
    case 'boolean':
      return v;
    default:
      break;
  }
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(toWireValue);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toWireValue(x);
    return out;
  }
  return String(v);
}

export function csvCell(v: unknown): string {
  const w = toWireValue(v);
  if (w === null) return '';
  const s = typeof w === 'object' ? JSON.stringify(w) : String(w);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
