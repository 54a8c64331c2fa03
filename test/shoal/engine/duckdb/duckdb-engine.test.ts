import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { CatalogEntry } from '../../../../src/shoal/engine/catalog-entry.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { collect, CUSTOMERS, entry, makeFiles, type FileFixture } from './engine-fixtures.js';

let files: FileFixture;
beforeAll(async () => {
  files = await makeFiles();
});
afterAll(() => files?.cleanup());

function fileEntries(): CatalogEntry[] {
  const csv = { id: 'segments-csv', type: 'csv', path: files.csv };
  const pq = { id: 'ref-parquet', type: 'parquet', path: files.parquet };
  const js = { id: 'events-json', type: 'json', path: files.json };
  return [
    entry(csv, { domain_id: 'sales', table: 'customer_segments' }),
    entry(pq, { domain_id: 'ref', schema: 'data', table: 'typed', alias: 'typed_values' }),
    entry(js, { domain_id: 'ops', table: 'events' }),
  ];
}

/** Everything the engine's catalog holds, through a second connection on the same instance. */
async function snapshot(instance: DuckDBInstance): Promise<string[]> {
  const c = await instance.connect();
  try {
    const views = (await c.runAndReadAll(`SELECT database_name, schema_name, view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL`)).getRows();
    const schemas = (await c.runAndReadAll(`SELECT database_name, schema_name FROM duckdb_schemas() WHERE NOT internal ORDER BY ALL`)).getRows();
    const dbs = (await c.runAndReadAll(`SELECT database_name FROM duckdb_databases() ORDER BY ALL`)).getRows();
    const tables = (await c.runAndReadAll(`SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE NOT internal ORDER BY ALL`)).getRows();
    return [...views, ...schemas, ...dbs, ...tables].map((r) => JSON.stringify(r));
  } finally {
    c.closeSync();
  }
}

async function rejection(p: Promise<unknown>): Promise<ShoalError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ShoalError) return e;
    throw e;
  }
  throw new Error('expected a ShoalError');
}

describe('DuckDB engine over files read in place', () => {
  it('exposes a CSV table under its physical three-part name and its domain name, with the same rows', async () => {
    const engine = await DuckDbEngine.create();
    try {
      const report = await engine.reconcile(fileEntries());
      expect(report.failed).toEqual([]);
      expect(report.created).toEqual(['segments_csv.default.customer_segments', 'ref_parquet.data.typed', 'events_json.default.events']);
      const physical = await collect(engine.execute('SELECT customer_id, segment, region FROM "segments_csv"."default"."customer_segments" ORDER BY 1'));
      const domain = await collect(engine.execute('SELECT customer_id, segment, region FROM sales.customer_segments ORDER BY 1'));
      // CSV detection types the ids BIGINT, which cells carry as exact decimal text.
      expect(physical.columns.map((c) => c.type)).toEqual(['BIGINT', 'VARCHAR', 'VARCHAR']);
      expect(physical.rows).toEqual(CUSTOMERS.map(([id, seg, region]) => [String(id), seg, region]));
      expect(domain.rows).toEqual(physical.rows);
      expect(domain.columns.map((c) => c.name)).toEqual(['customer_id', 'segment', 'region']);
    } finally {
      await engine.close();
    }
  });

  it('keeps Parquet types and values exact: bigint, decimal, date, timestamp, boolean, text, JSON, NULL', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const r = await collect(engine.execute('SELECT * FROM ref.typed_values ORDER BY id'));
      expect(r.columns).toEqual([
        { name: 'id', type: 'INTEGER' },
        { name: 'big', type: 'BIGINT' },
        { name: 'amount', type: 'DECIMAL(13,2)' },
        { name: 'day', type: 'DATE' },
        { name: 'at', type: 'TIMESTAMP' },
        { name: 'flag', type: 'BOOLEAN' },
        { name: 'label', type: 'VARCHAR' },
        { name: 'doc', type: 'JSON' },
      ]);
      expect(r.rows).toEqual([
        [1, '9007199254740993', '12345678901.23', '2024-02-29', '2024-02-29 13:14:15.123456', true, "ünïcode 'quoted'", '{"k":[1,2]}'],
        [2, '-9223372036854775808', '-0.01', '1970-01-01', '1999-12-31 23:59:59', false, '', '[]'],
        [3, null, null, null, null, null, null, null],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('reads newline-delimited JSON files', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const r = await collect(engine.execute('SELECT id, kind, n FROM ops.events ORDER BY id'));
      expect(r.rows).toEqual([
        ['1', 'open', 2.5],
        ['2', 'close', null],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('computes and renders time in UTC, whatever the host zone', async () => {
    const engine = await DuckDbEngine.create();
    try {
      const r = await collect(engine.execute("SELECT current_setting('TimeZone'), TIMESTAMPTZ '2024-01-01 12:00:00+02', date_trunc('day', TIMESTAMPTZ '2024-01-01 01:00:00+02')"));
      expect(r.rows).toEqual([['UTC', '2024-01-01 10:00:00+00', '2023-12-31 00:00:00+00']]);
    } finally {
      await engine.close();
    }
  });

  it('binds positional parameters', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const r = await collect(engine.execute('SELECT customer_id FROM sales.customer_segments WHERE segment = $1 AND region = $2', { params: ['smb', 'eu'] }));
      expect(r.rows).toEqual([['3']]);
    } finally {
      await engine.close();
    }
  });

  it('streams a large result in several batches that all carry the columns, and an empty result as one batch', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const big = await collect(engine.execute('SELECT c.customer_id, r.range AS n FROM sales.customer_segments c, range(3000) r'));
      expect(big.rows.length).toBe(CUSTOMERS.length * 3000);
      expect(big.batches).toBeGreaterThan(1);
      const empty = await collect(engine.execute('SELECT segment FROM sales.customer_segments WHERE false'));
      expect(empty).toEqual({ columns: [{ name: 'segment', type: 'VARCHAR' }], rows: [], batches: 1 });
    } finally {
      await engine.close();
    }
  });

  it('runs SELECT only: DDL, writes and settings are refused with ENGINE_READ_ONLY', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      for (const sql of ['DROP VIEW sales.customer_segments', 'CREATE TABLE x AS SELECT 1', "SET threads = 1", "COPY (SELECT 1) TO '/tmp/x.csv'"]) {
        expect((await rejection(collect(engine.execute(sql)))).code).toBe('ENGINE_READ_ONLY');
      }
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments'))).rows).toEqual([[4]]);
    } finally {
      await engine.close();
    }
  });

  it('reports engine errors by class without echoing the engine text', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const e = await rejection(collect(engine.execute("SELECT CAST(segment AS INTEGER) FROM sales.customer_segments")));
      // a failed cast is a data error of the client's SQL (a 400), named by class like a source's
      expect([e.code, e.message]).toEqual(['SQL_DATA_EXCEPTION', 'the query hit a data error at the engine: invalid character value for cast (SQLSTATE 22018)']);
      const overflow = await rejection(collect(engine.execute('SELECT CAST(2147483647 AS INTEGER) + CAST(count(*) AS INTEGER) FROM sales.customer_segments')));
      expect([overflow.code, overflow.message]).toEqual(['SQL_DATA_EXCEPTION', 'the query hit a data error at the engine: numeric value out of range (SQLSTATE 22003)']);
      const syntax = await rejection(collect(engine.execute('SELEC 1')));
      expect(syntax.code).toBe('ENGINE_QUERY_FAILED');
      expect(syntax.message).toContain('Parser Error');
    } finally {
      await engine.close();
    }
  });

  it('a query cancelled before it starts ends with QUERY_CANCELLED', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const ac = new AbortController();
      ac.abort();
      expect((await rejection(collect(engine.execute('SELECT 1', { signal: ac.signal })))).code).toBe('QUERY_CANCELLED');
      const ac2 = new AbortController();
      const it = engine.execute('SELECT * FROM range(100000)', { signal: ac2.signal })[Symbol.asyncIterator]();
      await it.next();
      ac2.abort();
      expect((await rejection((async () => { while (!(await it.next()).done); })())).code).toBe('QUERY_CANCELLED');
    } finally {
      await engine.close();
    }
  });
});

describe('nothing durable, nothing in the working directory (S1)', () => {
  it('spills query buffers only to its own directory under the OS temp directory, removed on close', async () => {
    const engine = await DuckDbEngine.create({ memoryLimit: '64MB' });
    const [[dir, dbs]] = (await collect(engine.execute("SELECT current_setting('temp_directory'), (SELECT count(*)::INTEGER FROM duckdb_databases() WHERE path IS NOT NULL)"))).rows as [[string, number]];
    expect(dir.startsWith(join(tmpdir(), 'shoal-duckdb-'))).toBe(true);
    expect(dbs).toBe(0);
    // A sort larger than the memory limit spills, and still answers.
    const big = await collect(engine.execute('SELECT max(x)::VARCHAR FROM (SELECT range AS x, md5(range::VARCHAR) AS h FROM range(3000000) ORDER BY h)'));
    expect(big.rows).toEqual([['2999999']]);
    await engine.close();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('reconcile: the catalog is derived state', () => {
  it('is idempotent: the same entries twice give the same catalog and change nothing', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const engine = await DuckDbEngine.create({ instance });
    try {
      await engine.reconcile(fileEntries());
      const first = await snapshot(instance);
      const again = await engine.reconcile(fileEntries());
      expect(again.created).toEqual([]);
      expect(again.dropped).toEqual([]);
      expect(again.unchanged.length).toBe(3);
      expect(await snapshot(instance)).toEqual(first);
    } finally {
      await engine.close();
    }
  });

  it('re-projects views dropped behind its back, and removes tables planted in its catalogs', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const engine = await DuckDbEngine.create({ instance });
    try {
      await engine.reconcile(fileEntries());
      const before = await snapshot(instance);
      const c = await instance.connect();
      await c.run('DROP VIEW sales.customer_segments');
      await c.run('DROP VIEW ref_parquet.data.typed');
      await c.run('CREATE TABLE segments_csv."default".planted AS SELECT 1 AS x');
      c.closeSync();
      const report = await engine.reconcile(fileEntries());
      expect([...report.created].sort()).toEqual(['ref_parquet.data.typed', 'segments_csv.default.customer_segments']);
      expect(await snapshot(instance)).toEqual(before);
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM ref.typed_values'))).rows).toEqual([[3]]);
    } finally {
      await engine.close();
    }
  });

  it('a query re-projects an entry whose view went missing, without waiting for a reconcile', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const engine = await DuckDbEngine.create({ instance });
    try {
      await engine.reconcile(fileEntries());
      const c = await instance.connect();
      await c.run('DROP VIEW sales.customer_segments');
      await c.run('DROP VIEW ref_parquet.data.typed');
      c.closeSync();
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments'))).rows).toEqual([[4]]);
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM "ref_parquet"."data"."typed"'))).rows).toEqual([[3]]);
    } finally {
      await engine.close();
    }
  });

  it('removes entries no longer present, with their schemas and catalogs', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const engine = await DuckDbEngine.create({ instance });
    const fresh = await DuckDBInstance.create(':memory:');
    const reference = await DuckDbEngine.create({ instance: fresh });
    try {
      await engine.reconcile(fileEntries());
      const onlyCsv = fileEntries().slice(0, 1);
      const report = await engine.reconcile(onlyCsv);
      expect([...report.dropped].sort()).toEqual(['events_json.default.events', 'ref_parquet.data.typed']);
      await reference.reconcile(onlyCsv);
      expect(await snapshot(instance)).toEqual(await snapshot(fresh));
      expect((await rejection(collect(engine.execute('SELECT * FROM ops.events')))).code).toBe('ENGINE_QUERY_FAILED');
    } finally {
      await engine.close();
      await reference.close();
    }
  });

  it('re-projects a stale entry: a table moved to another file is read from the new file', async () => {
    const engine = await DuckDbEngine.create();
    try {
      await engine.reconcile(fileEntries());
      const [csvEntry, ...rest] = fileEntries();
      const moved = entry({ id: 'segments-csv', type: 'parquet', path: files.parquet }, { domain_id: 'sales', table: 'customer_segments' });
      const report = await engine.reconcile([moved, ...rest]);
      expect(report.created).toEqual([moved.key]);
      expect(csvEntry?.key).toBe(moved.key);
      const r = await collect(engine.execute('SELECT count(*)::INTEGER, min(id) FROM sales.customer_segments'));
      expect(r.rows).toEqual([[3, 1]]);
    } finally {
      await engine.close();
    }
  });

  it('law: from any earlier catalog, reconcile(entries) gives the catalog a fresh engine builds from entries', async () => {
    const all = fileEntries();
    const subset = fc.subarray(all);
    await fc.assert(
      fc.asyncProperty(fc.array(subset, { maxLength: 3 }), subset, async (history, target) => {
        const instance = await DuckDBInstance.create(':memory:');
        const engine = await DuckDbEngine.create({ instance });
        const freshInstance = await DuckDBInstance.create(':memory:');
        const fresh = await DuckDbEngine.create({ instance: freshInstance });
        try {
          for (const h of history) await engine.reconcile(h);
          await engine.reconcile(target);
          await fresh.reconcile([...target].reverse());
          expect(await snapshot(instance)).toEqual(await snapshot(freshInstance));
        } finally {
          await engine.close();
          await fresh.close();
        }
      }),
      { numRuns: 12 },
    );
  });

  it('refuses names that would be ambiguous or reserved', async () => {
    const engine = await DuckDbEngine.create();
    try {
      const csv = { id: 'sales', type: 'csv', path: files.csv };
      const e1 = await rejection(engine.reconcile([entry(csv, { domain_id: 'sales', table: 'customer_segments' })]));
      expect(e1.code).toBe('ENGINE_NAME_CONFLICT');
      const mem = { id: 'memory', type: 'csv', path: files.csv };
      expect((await rejection(engine.reconcile([entry(mem, { domain_id: 'd', table: 't' })]))).code).toBe('ENGINE_NAME_CONFLICT');
      const a = { id: 'a', type: 'csv', path: files.csv };
      const b = { id: 'b', type: 'csv', path: files.csv };
      const dup = [entry(a, { domain_id: 'd', table: 't' }), entry(b, { domain_id: 'd', table: 't' })];
      const e3 = await rejection(engine.reconcile(dup));
      expect(e3.code).toBe('ENGINE_NAME_CONFLICT');
      expect(e3.message).toContain('d.t');
    } finally {
      await engine.close();
    }
  });
});

describe('a file source that is missing', () => {
  it('fails alone with SOURCE_UNAVAILABLE, other sources keep working, and it heals when the file appears', async () => {
    const engine = await DuckDbEngine.create();
    const hidden = `${files.json}.hidden`;
    renameSync(files.json, hidden);
    try {
      const report = await engine.reconcile(fileEntries());
      expect(report.failed).toEqual([expect.objectContaining({ entry: 'events_json.default.events', code: 'SOURCE_UNAVAILABLE' })]);
      const e = await rejection(collect(engine.execute('SELECT * FROM ops.events')));
      expect(e.code).toBe('SOURCE_UNAVAILABLE');
      expect(e.message).toContain('events-json');
      expect((await engine.health('events-json')).code).toBe('SOURCE_UNAVAILABLE');
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments'))).rows).toEqual([[4]]);
      expect(await engine.health('segments-csv')).toEqual({ sourceId: 'segments-csv', ok: true });
      renameSync(hidden, files.json);
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM ops.events'))).rows).toEqual([[2]]);
      expect((await engine.health('events-json')).ok).toBe(true);
    } finally {
      try {
        renameSync(hidden, files.json);
      } catch {
        // already restored
      }
      await engine.close();
    }
  });

  it('health of a source the engine does not know says so', async () => {
    const engine = await DuckDbEngine.create();
    try {
      expect(await engine.health('nope')).toMatchObject({ sourceId: 'nope', ok: false, code: 'ENGINE_UNKNOWN_SOURCE' });
    } finally {
      await engine.close();
    }
  });
});
