/** Retry backoff: `baseMs · 2^(attempt−1)`, capped at `maxMs` (attempt 1 waits `baseMs`). */
export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export function backoffMs(b: Backoff, attempt: number): number {
  const exp = Math.min(Math.max(attempt - 1, 0), 40);
  return Math.min(b.maxMs, b.baseMs * 2 ** exp);
}
