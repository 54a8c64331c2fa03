import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodedError } from '../../src/core/errors.js';
import { SHOAL_ERROR_STATUS, isShoalErrorCode } from '../../src/shoal/error-codes.js';
import { ShoalError, shoalErrorFrom } from '../../src/shoal/errors.js';
import { errorBody, httpStatusFor } from '../../src/shoal/server/error-status.js';

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const FILES = sources('src/shoal').map((f) => ({ file: f, text: readFileSync(f, 'utf8') }));

/** The rows of the table in docs/shoal-errors.md: `| \`CODE\` | status | meaning |`. */
function documented(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const m of readFileSync('docs/shoal-errors.md', 'utf8').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) \| [^|\n]*\S[^|\n]* \|$/gm)) {
    expect(rows.has(m[1]!), `${m[1]} is documented twice`).toBe(false);
    rows.set(m[1]!, Number(m[2]));
  }
  return rows;
}

describe('the shoal error codes', () => {
  it('holds every code a ShoalError is built with (the scan finds codes the compiler cannot see, e.g. behind a cast)', () => {
    const raised = new Set<string>();
    for (const { text } of FILES) {
      // new ShoalError('X', …), super('X', …) in a subclass, shoalErrorFrom('X', …), and a constant holding a code
      for (const m of text.matchAll(/(?:new ShoalError|super|shoalErrorFrom)\(\s*'([A-Z][A-Z0-9_]*)'/g)) raised.add(m[1]!);
      for (const m of text.matchAll(/const [A-Z][A-Z0-9_]* = '([A-Z][A-Z0-9_]*)';/g)) raised.add(m[1]!);
    }
    expect(raised.size).toBeGreaterThan(100);
    expect([...raised].filter((c) => !isShoalErrorCode(c)).sort()).toEqual([]);
  });

  it('builds a ShoalError from a non-literal code only at the reviewed sites, each narrowed to the union', () => {
    // A new site must narrow its code (instanceof ShoalError, a literal check) or go through
    // shoalErrorFrom, which turns a foreign code into INTERNAL; then it is added here.
    const dynamic: string[] = [];
    for (const { file, text } of FILES) {
      for (const m of text.matchAll(/new ShoalError\(\s*([^'\s][^,]*),/g)) dynamic.push(`${file.replace(/\\/g, '/')}: ${m[1]}`);
    }
    expect(dynamic.sort()).toEqual([
      "src/shoal/auth/acting-role.ts: e instanceof ShoalError ? e.code : 'ROLE_UNKNOWN'",
      'src/shoal/errors.ts: code',
      'src/shoal/mv/refresh-under-lease.ts: MV_REFRESH_REFUSED',
      'src/shoal/mv/service-identity.ts: e.code',
      'src/shoal/sql/bind-failure.ts: code',
    ]);
  });

  it('has no code nobody raises', () => {
    const all = FILES.filter((f) => !f.file.endsWith('error-codes.ts'))
      .map((f) => f.text)
      .join('\n');
    expect(Object.keys(SHOAL_ERROR_STATUS).filter((c) => !all.includes(`'${c}'`))).toEqual([]);
  });

  it('is documented in docs/shoal-errors.md, row for row with the same status', () => {
    const docs = documented();
    expect(Object.fromEntries([...docs].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
      Object.fromEntries(Object.entries(SHOAL_ERROR_STATUS).sort(([a], [b]) => a.localeCompare(b))),
    );
  });
});

describe('the HTTP status of an error', () => {
  it('is a 5xx for a fault of the server, its config or a dependency, never the 400 of a client error', () => {
    for (const code of ['SQL_BAD_POLICY', 'SQL_BAD_MASK', 'ROLE_CYCLE', 'CONFIG_INVALID', 'SECRET_UNRESOLVED', 'MV_CATALOG_CORRUPT', 'SQL_INTERNAL', 'INTERNAL'] as const) {
      expect(httpStatusFor(new ShoalError(code, 'x')), code).toBe(500);
    }
    expect(httpStatusFor(new ShoalError('ENGINE_QUERY_FAILED', 'x'))).toBe(502);
    for (const code of ['ENGINE_CLOSED', 'MV_CATALOG_UNAVAILABLE', 'MV_STORE_UNAVAILABLE'] as const) expect(httpStatusFor(new ShoalError(code, 'x')), code).toBe(503);
    expect(httpStatusFor(new ShoalError('SQL_DATA_EXCEPTION', 'x'))).toBe(400);
  });

  it('is a 500 for a core or tik coded error that reached the edge, whose text is not echoed', () => {
    for (const e of [new CodedError('SQL_CLOSED', 'the SQLite handle is closed'), new CodedError('store/io', 'disk /secret/path failed'), new Error('boom')]) {
      expect(httpStatusFor(e)).toBe(500);
      expect(errorBody(e)).toEqual({ error: { code: 'INTERNAL', message: 'internal error; see the server log' } });
    }
  });

  it('of a code read back from elsewhere is its own, or INTERNAL (a 500) with the foreign code kept in the message', () => {
    expect(shoalErrorFrom('SQL_SYNTAX', 'bad').code).toBe('SQL_SYNTAX');
    const foreign = shoalErrorFrom('store/io', 'disk failed', { hint: 'h' });
    expect([foreign.code, foreign.message, foreign.hint, httpStatusFor(foreign)]).toEqual(['INTERNAL', 'store/io: disk failed', 'h', 500]);
  });
});
