/**
 * The engine's pooled query connections: every query gives its connection back (or closes it),
 * a pooled connection carries nothing of the query before it (no landed temp table, no interrupt),
 * and a statement kept prepared on a connection still sees the catalog and the data as they are now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { CatalogEntry } from '../../../../src/shoal/engine/catalog-entry.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { collect, CUSTOMERS, entry, makeFiles, type FileFixture } from './engine-fixtures.js';

let files: FileFixture;
beforeAll(async () => {
  files = await makeFiles();
});
afterAll(() => files?.cleanup());

function entriesOf(f: FileFixture): CatalogEntry[] {
  return [
    entry({ id: 'shop-db', type: 'sqlite', path: f.sqlite }, { domain_id: 'shop', schema: 'main', table: 'items' }),
    entry({ id: 'segments-csv', type: 'csv', path: f.csv }, { domain_id: 'sales', table: 'customer_segments' }),
  ];
}

async function withEngine(f: (engine: DuckDbEngine) => Promise<void>, over: FileFixture = files): Promise<void> {
  const engine = await DuckDbEngine.create();
  try {
    expect((await engine.reconcile(entriesOf(over))).failed).toEqual([]);
    await f(engine);
  } finally {
    await engine.close();
  }
}

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ShoalError) return e.code;
    throw e;
  }
  return 'no error';
}

/** A query streaming many batches, so it can be cancelled between two of them. */
const LONG = 'SELECT r.range AS n, c.segment FROM sales.customer_segments c, range(20000) r';
const TEMP_TABLES = 'SELECT count(*)::INTEGER FROM duckdb_tables() WHERE temporary';

describe('DuckDB engine query connections', () => {
  it('every query gives its connection back or closes it, whether it ends, fails, is refused or its reader stops early', async () => {
    await withEngine(async (engine) => {
      await collect(engine.execute('SELECT 1'));
      expect(engine.connectionCounts()).toEqual({ busy: 0, idle: 1 });
      // a failed query may have left part of a landing behind: its connection is closed, not kept
      expect(await failure(collect(engine.execute('SELECT CAST(segment AS INTEGER) FROM sales.customer_segments')))).toBe('SQL_DATA_EXCEPTION');
      expect(engine.connectionCounts()).toEqual({ busy: 0, idle: 0 });
      expect(await failure(collect(engine.execute('CREATE TABLE x AS SELECT 1')))).toBe('ENGINE_READ_ONLY');
      expect(await failure(collect(engine.execute('SELECT * FROM shop.items', { pushdown: [{ table: { sourceId: 'nowhere', schema: 'main', table: 't' } }] })))).toBe('ENGINE_UNKNOWN_TABLE');
      for await (const b of engine.execute(LONG)) {
        expect(b.rows.length).toBeGreaterThan(0);
        break;
      }
      // twelve at once: more connections open for them, and only a few stay
      const many = await Promise.all(Array.from({ length: 12 }, (_, i) => collect(engine.execute(`SELECT id FROM shop.items WHERE id = ${i + 1}`))));
      expect(many.map((r) => r.rows)).toEqual(Array.from({ length: 12 }, (_, i) => [[String(i + 1)]]));
      const counts = engine.connectionCounts();
      expect(counts.busy).toBe(0);
      expect(counts.idle).toBeGreaterThan(0);
      expect(counts.idle).toBeLessThanOrEqual(4);
    });
  });

  it('a pooled connection holds no temp table of the landed query before it', async () => {
    await withEngine(async (engine) => {
      for (let i = 0; i < 3; i++) {
        expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM shop.items'))).rows).toEqual([[200]]);
        // one query at a time: this one runs on the connection the landed query gave back
        expect((await collect(engine.execute(TEMP_TABLES))).rows).toEqual([[0]]);
      }
      expect(engine.connectionCounts()).toEqual({ busy: 0, idle: 1 });
    });
  });

  it('a cancelled query interrupts only itself and poisons no later query', async () => {
    await withEngine(async (engine) => {
      const controller = new AbortController();
      const cancelledRun = (async () => {
        let batches = 0;
        for await (const b of engine.execute(LONG, { signal: controller.signal })) {
          expect(b.rows.length).toBeGreaterThan(0);
          // cancel once this query has begun streaming and a concurrent one is running too
          if (++batches === 1) controller.abort();
        }
      })();
      const neighbour = collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments, range(50000)'));
      expect(await failure(cancelledRun)).toBe('QUERY_CANCELLED');
      expect((await neighbour).rows).toEqual([[CUSTOMERS.length * 50000]]);
      // every later query, landed or not, on whichever connection is kept, runs to completion
      for (let i = 0; i < 4; i++) {
        expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM shop.items WHERE id > 100'))).rows).toEqual([[100]]);
        expect((await collect(engine.execute(LONG))).rows.length).toBe(CUSTOMERS.length * 20000);
      }
      expect(engine.connectionCounts().busy).toBe(0);
    });
  });

  it('a statement kept prepared sees new source data, a changed file and a replaced resident table', async () => {
    // files of its own: this test changes them
    const own = await makeFiles();
    await withEngine(async (engine) => {
      const items = 'SELECT name FROM shop.items WHERE id = 2';
      expect((await collect(engine.execute(items))).rows).toEqual([['nut']]);
      const db = new Database(own.sqlite);
      try {
        db.prepare('UPDATE items SET name = ? WHERE id = 2').run('washer');
      } finally {
        db.close();
      }
      expect((await collect(engine.execute(items))).rows).toEqual([['washer']]);

      const segments = 'SELECT count(*)::INTEGER FROM sales.customer_segments';
      expect((await collect(engine.execute(segments))).rows).toEqual([[CUSTOMERS.length]]);
      writeFileSync(own.csv, 'customer_id,segment,region\n9,smb,eu\n');
      expect((await collect(engine.execute(segments))).rows).toEqual([[1]]);

      const hot = 'SELECT v FROM "__shoal_hot"."main"."h" ORDER BY v';
      await engine.resident.create('h', 'SELECT 1 AS v');
      expect((await collect(engine.execute(hot))).rows).toEqual([[1]]);
      await engine.resident.drop('h');
      await engine.resident.create('h', "SELECT 'two' AS v UNION ALL SELECT 'three'");
      expect((await collect(engine.execute(hot))).rows).toEqual([['three'], ['two']]);
    }, own).finally(() => own.cleanup());
  });
});
