/**
 * Masks fail closed on the cached paths too: over customers whose e-mails resist the mask
 * (newlines, no `@`, unicode, empty), the hot path (cached rows inlined, governed at query time),
 * the result cache (a MISS, then a HIT) and the live path return the same masked values for
 * predicates, grouping, ordering and joins on the masked column, and no raw value reaches an
 * analyst.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_HEADER } from '../../../src/shoal/cache/result-cache.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { type Table, salesData, sqlLiteral } from '../sql/duckdb-harness.js';
import { TINY_VALUES, maskResistantArb, secretToken } from '../sql/mask-resistant.js';
import { VIEWERS } from '../sql/pushdown-law.js';
import { answer, hotSalesYaml, same } from './hot-fixture.js';

const data = salesData();
const customers = data.find((t) => t.name === 'customers')!;
const weird: Table = {
  ...customers,
  rows: customers.rows.map((r, i) => [r[0], r[1], i % 7 === 6 ? TINY_VALUES[i % TINY_VALUES.length]! : fc.sample(maskResistantArb(i + 1), { seed: 300 + i, numRuns: 1 })[0]!, ...r.slice(3)]),
};

function writeDb(path: string, t: Table): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE ${t.name} (${t.cols.map(([n, ty]) => `${n} ${ty}`).join(', ')})`);
  db.exec(`INSERT INTO ${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`);
  db.close();
}

/** Joins with payments (another source) keep these on the engine route, where hot rows are inlined. */
const QUERIES = [
  'SELECT c.id, c.email, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id',
  "SELECT c.id FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.email = '***'",
  "SELECT c.email, count(*) AS n FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.email LIKE '%@%' GROUP BY c.email HAVING count(*) > 0",
  'SELECT c.email, p.id FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id ORDER BY c.email, p.id LIMIT 9',
  "SELECT upper(c.email) AS u, length(c.email) AS l FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id IN (SELECT x.id FROM sales.customers x WHERE x.email <> '***')",
  'WITH t AS (SELECT email, id FROM sales.customers) SELECT t.email, count(p.id) AS n FROM t JOIN sales.payments p ON p.customer_id = t.id GROUP BY t.email',
  'SELECT c.id, c.email FROM sales.customers c',
];

describe('masked values on the hot, result-cache and live paths', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-masked-paths-'));
  let hot: ShoalInstance;
  let live: ShoalInstance;
  let cached: ShoalInstance;

  beforeAll(async () => {
    writeDb(join(dir, 'dim.db'), weird);
    writeDb(join(dir, 'shop.db'), data.find((t) => t.name === 'payments')!);
    const yaml = (cache: string, registry: string) => hotSalesYaml({ src: '{id: src, type: sqlite, path: shop.db}', dim: '{id: dim, type: sqlite, path: dim.db}', extra: `cache: ${cache}\n` })
      .replace('sqlite:///registry.db', `sqlite:///${registry}`);
    hot = await ShoalInstance.start({ config: loadConfig(yaml('{enabled: false}', 'registry.db')).config, baseDir: dir, pollMs: 60_000 });
    live = await ShoalInstance.start({ config: loadConfig(yaml('{enabled: false}', 'registry.db')).config, baseDir: dir, pollMs: 60_000, importConfig: false, hot: false });
    cached = await ShoalInstance.start({ config: loadConfig(yaml('{enabled: true, default_ttl: 600}', 'registry-cached.db')).config, baseDir: dir, pollMs: 60_000, hot: false });
  }, 120_000);

  afterAll(async () => {
    await hot?.close();
    await live?.close();
    await cached?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the hot path, a result-cache MISS and HIT, and the live path give the same masked values, and no raw value', async () => {
    let inlined = 0;
    for (const sql of QUERIES) {
      for (const v of VIEWERS) {
        const want = await answer(live, sql, v);
        expect(want.ok, `${sql}: ${JSON.stringify(want)}`).toBe(true);
        const viaHot = await answer(hot, sql, v);
        if (viaHot.ok && viaHot.hot) inlined++;
        expect(same(viaHot), `hot: ${sql}`).toEqual(same(want));
        expect(same(await answer(cached, sql, v)), `result cache (first): ${sql}`).toEqual(same(want));
        const repeat = await cached.query({ sql, role: v.role, vars: v.vars }, new AbortController().signal);
        expect(repeat.headers?.[CACHE_HEADER], sql).toBe('HIT');
        const rows: string[] = [];
        for await (const b of repeat.batches) for (const row of b) rows.push(JSON.stringify(row));
        expect(rows.sort(), `result cache (HIT): ${sql}`).toEqual(want.ok ? want.rows : []);
        if (v.role !== 'admin' && want.ok) {
          const cells = want.rows.join('\n').toLowerCase();
          weird.rows.forEach((_, i) => expect(cells, `raw e-mail of row ${i + 1}: ${sql}`).not.toContain(secretToken(i + 1)));
        }
      }
    }
    expect(inlined).toBeGreaterThan(0);
  }, 300_000);
});
