/**
 * The `x-shoal-hot-age` response header: for every hot copy a query read, how old it is, in
 * seconds (millisecond precision): `<domain.table>=<seconds>, …`, in the order of `x-shoal-hot`.
 * The age is measured from when the copy was last known to match its source: its last
 * revalidation for a table with a change signal, its load for one without (hot-signal.ts).
 */
import type { HotBinding } from './hot-cache.js';

export function hotAgeHeader(bindings: readonly Pick<HotBinding, 'key' | 'ageSeconds'>[]): string {
  const seen = new Map<string, number>();
  for (const b of bindings) seen.set(b.key, Math.max(seen.get(b.key) ?? 0, b.ageSeconds));
  return [...seen].map(([k, age]) => `${k}=${age.toFixed(3)}`).join(', ');
}

/** Parse the header back (tests, clients): table key → age in seconds. */
export function parseHotAgeHeader(value: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of value.split(',')) {
    const m = /^\s*(.+)=(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}
