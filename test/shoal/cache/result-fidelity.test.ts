/**
 * Type fidelity of cached answers: for random rows of every common type (big integers past 2^53,
 * non-finite-looking reals, unicode text, bytes, NULLs), on the direct route and the engine route,
 * the HIT body is byte for byte the MISS body and the body of an instance without the cache.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';

const config = (cache: string, registry: string) => `control_plane: {tenant_url: "sqlite:///${registry}"}
cache: ${cache}
auth: {provider: none}
domains: [{id: d}]
sources:
  - {id: db, type: sqlite, path: data.db}
  - {id: one, type: csv, path: one.csv}
tables:
  - source_id: db
    domain_id: d
    table: t
    columns:
      - {name: id, data_type: integer}
      - {name: i, data_type: bigint}
      - {name: r, data_type: double}
      - {name: s, data_type: varchar}
      - {name: b, data_type: blob}
  - {source_id: one, domain_id: d, table: one, columns: [{name: k, data_type: integer}]}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
`;

describe('cached answers keep every type', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-result-fidelity-'));
  const db = () => new Database(join(dir, 'data.db'));
  let cached: ShoalInstance;
  let plain: ShoalInstance;
  let app: FastifyInstance;
  let oracle: FastifyInstance;

  beforeAll(async () => {
    const d = db();
    d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB)');
    d.close();
    writeFileSync(join(dir, 'one.csv'), 'k\n1\n');
    writeFileSync(join(dir, 'cached.yaml'), config('{enabled: true, default_ttl: 600}', 'reg-a.db'));
    writeFileSync(join(dir, 'plain.yaml'), config('{enabled: false}', 'reg-b.db'));
    const start = (f: string) => ShoalInstance.start({ config: loadConfig({ path: join(dir, f) }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false });
    cached = await start('cached.yaml');
    plain = await start('plain.yaml');
    app = await buildApp({ service: cached });
    oracle = await buildApp({ service: plain });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await oracle?.close();
    await cached?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const row = fc.record({
    i: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
    r: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
    s: fc.option(fc.string({ unit: 'grapheme', maxLength: 10 }), { nil: null }),
    b: fc.option(fc.uint8Array({ maxLength: 8 }), { nil: null }),
  });

  it('law: HIT body = MISS body = uncached body, on the direct and the engine route', async () => {
    const queries = [
      ['direct:db', 'SELECT id, i, r, s, b FROM d.t ORDER BY id'],
      ['engine', 'SELECT t.id, t.i, t.r, t.s, t.b FROM d.t t JOIN d.one o ON o.k = 1 ORDER BY t.id'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 5 }), async (rows) => {
        const d = db();
        d.defaultSafeIntegers(true);
        d.exec('DELETE FROM t');
        const insert = d.prepare('INSERT INTO t VALUES (?, ?, ?, ?, ?)');
        rows.forEach((x, n) => insert.run(BigInt(n), x.i, x.r, x.s, x.b === null ? null : Buffer.from(x.b)));
        d.close();
        await cached.results!.invalidate('d.t'); // the data changed under the cache
        for (const [route, sql] of queries) {
          const ask = (a: FastifyInstance) => a.inject({ method: 'POST', url: '/data/sql', payload: { sql, role: 'admin' } });
          const [miss, hit, live] = [await ask(app), await ask(app), await ask(oracle)];
          expect(miss.headers['x-shoal-route']).toBe(route);
          expect([miss.headers['x-provisa-cache'], hit.headers['x-provisa-cache']]).toEqual(['MISS', 'HIT']);
          expect(live.statusCode).toBe(200);
          expect(miss.body).toBe(live.body);
          expect(hit.body).toBe(miss.body);
        }
      }),
      { numRuns: 20 },
    );
  }, 120_000);
});
