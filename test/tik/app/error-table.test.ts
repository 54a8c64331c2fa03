import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, isTikErrorCode, outcomeOf } from '../../../src/tik/app/error-table.js';

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the error table', () => {
  it('holds every code tik raises (a new code needs a row: its HTTP status and exit code)', () => {
    const raised = new Set<string>();
    for (const f of sources('src/tik')) {
      for (const m of readFileSync(f, 'utf8').matchAll(/(?:TikError|CodedError|problem)\(\s*'([a-z0-9-]+\/[a-z0-9-]+)'/g)) raised.add(m[1]!);
    }
    expect(raised.size).toBeGreaterThan(50);
    expect([...raised].filter((c) => !isTikErrorCode(c)).sort()).toEqual([]);
  });

  it('maps usage errors to exit 2 and HTTP 400, authentication to 401, authorization to 403, unknown things to 404', () => {
    for (const c of ['cli/usage', 'cli/bad-key', 'cli/bad-instant', 'cli/bad-value', 'cli/bad-period'] as const) expect(ERROR_TABLE[c]).toEqual({ http: 400, exit: 2 });
    expect(ERROR_TABLE['auth/unauthenticated'].http).toBe(401);
    for (const c of ['auth/forbidden', 'auth/unsigned', 'auth/bad-signature', 'auth/signed-only', 'auth/writes-disabled'] as const) expect(ERROR_TABLE[c].http).toBe(403);
    expect(ERROR_TABLE['ticket/unknown'].http).toBe(404);
    expect(ERROR_TABLE['ticket/ambiguous'].http).toBe(409);
    expect(outcomeOf('not/a-code')).toEqual({ http: 500, exit: 1 });
  });
});
