/**
 * PostgreSQL landed into the DuckDB engine through `pg`, against a real server: type fidelity,
 * pushdown that really narrows what is fetched, a join with a CSV file, and a source that is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import fc from 'fast-check';
import { service } from '../../../support/service.js';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import { catalogEntryFor, type CatalogEntry, type EngineSourceConfig } from '../../../../src/shoal/engine/catalog-entry.js';
import type { Cell, LandingReport, RowBatch } from '../../../../src/shoal/engine/engine.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { checkPushdownLaw } from '../../../shoal/engine/duckdb/pushdown-law.js';
import { makeTikStore, TIK_START, type TikFixture } from '../../../shoal/engine/duckdb/tik-fixture.js';

const postgres = service('postgres');
const DB = `shoal_engine_it_${process.pid}`;
const ROWS = 5000;
const REGIONS = ['eu', 'us', 'apac', 'latam'];
const SEGMENTS: Record<number, string> = { 1: 'enterprise', 2: 'smb', 3: 'consumer' };

async function collect(stream: AsyncIterable<RowBatch>): Promise<{ columns: { name: string; type: string }[]; rows: Cell[][] }> {
  const out: { columns: { name: string; type: string }[]; rows: Cell[][] } = { columns: [], rows: [] };
  for await (const b of stream) {
    out.columns = [...b.columns];
    out.rows.push(...b.rows.map((r) => [...r]));
  }
  return out;
}

async function codeOf(p: Promise<unknown>): Promise<ShoalError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ShoalError) return e;
    throw e;
  }
  throw new Error('expected a ShoalError');
}

describe.skipIf(postgres.skip)('PostgreSQL landed into DuckDB', () => {
  let admin: pg.Client;
  let db: pg.Client;
  let engine: DuckDbEngine;
  let dir: string;
  let entries: CatalogEntry[];
  let tik: TikFixture;
  const NOW = TIK_START + 2 * 3_600_000;
  const ORDERS = { sourceId: 'sales-pg', schema: 'public', table: 'orders' };

  beforeAll(async () => {
    const url = new URL(postgres.url as string);
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    db = new pg.Client({ connectionString: postgres.url?.replace(/\/[^/]*$/, `/${DB}`) });
    await db.connect();
    await db.query(`CREATE TABLE orders (
      id integer PRIMARY KEY, customer_id integer, region text, amount numeric(12,2), big bigint,
      placed date, at timestamp, atz timestamptz, flag boolean, doc jsonb, note text, ratio double precision,
      u uuid, span interval, free numeric, small smallint)`);
    await db.query(
      `INSERT INTO orders
       SELECT g, 1 + g % 3, (ARRAY['eu','us','apac','latam'])[1 + g % 4], (g * 1.25)::numeric(12,2), g::bigint * 1000000000000,
              DATE '2024-01-01' + g % 366, TIMESTAMP '2024-01-01 00:00:00.000001' + g * INTERVAL '1 minute',
              TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 hour', g % 2 = 0, jsonb_build_object('g', g),
              CASE WHEN g % 10 = 0 THEN NULL ELSE 'n' || g END, g / 8.0, md5(g::text)::uuid, g * INTERVAL '1 second',
              round(g / 3.0, 6), (g % 100)::smallint
       FROM generate_series(1, ${ROWS}) g`,
    );
    await db.query(`INSERT INTO orders (id, big, amount, free, note, doc) VALUES
      (0, 9223372036854775807, -9999999999.99, 12345678901234567890123456.123456789, 'quote '' and "dq" and ünï', '{"nested":{"a":[1,null,true]}}')`);
    dir = mkdtempSync(join(tmpdir(), 'shoal-pg-it-'));
    writeFileSync(join(dir, 'customer_segments.csv'), 'customer_id,segment\n' + Object.entries(SEGMENTS).map(([k, v]) => `${k},${v}`).join('\n') + '\n');
    const pgSource: EngineSourceConfig = {
      id: 'sales-pg',
      type: 'postgresql',
      host: url.hostname,
      port: Number(url.port),
      database: DB,
      username: decodeURIComponent(url.username),
      password: '${env:SHOAL_IT_PG_PASSWORD}',
    };
    const csvSource: EngineSourceConfig = { id: 'segments-csv', type: 'csv', path: dir };
    tik = await makeTikStore();
    // Which order each support ticket is about: a business table keyed by tik ticket ids.
    await db.query('CREATE TABLE ticket_orders (ticket text PRIMARY KEY, order_id integer)');
    for (const [i, t] of tik.tickets.entries()) await db.query('INSERT INTO ticket_orders VALUES ($1, $2)', [t, 5 + 3 * i]);
    const tikSource: EngineSourceConfig = { id: 'support-board', type: 'tik', path: tik.root };
    const downSource: EngineSourceConfig = { id: 'down-pg', type: 'postgresql', host: '127.0.0.1', port: 1, database: 'x', username: 'x' };
    entries = [
      catalogEntryFor({ source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'orders' }, pgSource),
      catalogEntryFor({ source_id: 'segments-csv', domain_id: 'sales', table: 'customer_segments' }, csvSource),
      catalogEntryFor({ source_id: 'down-pg', domain_id: 'archive', schema: 'public', table: 'orders' }, downSource),
      catalogEntryFor({ source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'ticket_orders' }, pgSource),
      catalogEntryFor({ source_id: 'support-board', domain_id: 'support', table: 'tickets' }, tikSource),
    ];
    // Extensions can't be downloaded here; make that certain (no INSTALL, an empty extension directory).
    mkdirSync(join(dir, 'extensions'));
    engine = await DuckDbEngine.create({
      env: { SHOAL_IT_PG_PASSWORD: 'not-needed-with-trust-auth' },
      installExtensions: false,
      extensionDirectory: join(dir, 'extensions'),
      clock: () => NOW,
    });
    const report = await engine.reconcile(entries);
    expect(report.failed).toEqual([]);
  });

  afterAll(async () => {
    await engine?.close();
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await admin?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
    tik?.cleanup();
  });

  it('keeps PostgreSQL types and values exact', async () => {
    const r = await collect(engine.execute('SELECT * FROM "sales_pg"."public"."orders" WHERE id IN (0, 8) ORDER BY id'));
    expect(r.columns).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'customer_id', type: 'INTEGER' },
      { name: 'region', type: 'VARCHAR' },
      { name: 'amount', type: 'DECIMAL(12,2)' },
      { name: 'big', type: 'BIGINT' },
      { name: 'placed', type: 'DATE' },
      { name: 'at', type: 'TIMESTAMP' },
      { name: 'atz', type: 'TIMESTAMP WITH TIME ZONE' },
      { name: 'flag', type: 'BOOLEAN' },
      { name: 'doc', type: 'JSON' },
      { name: 'note', type: 'VARCHAR' },
      { name: 'ratio', type: 'DOUBLE' },
      { name: 'u', type: 'UUID' },
      { name: 'span', type: 'INTERVAL' },
      // Unconstrained numeric: the narrowest decimal that holds every fetched value exactly.
      { name: 'free', type: 'DECIMAL(35,9)' },
      { name: 'small', type: 'SMALLINT' },
    ]);
    const [zero, eight] = r.rows;
    expect(zero?.slice(0, 5)).toEqual([0, null, null, '-9999999999.99', '9223372036854775807']);
    // JSON arrives as the source's JSON text (jsonb's normal form).
    expect(JSON.parse(zero?.[9] as string)).toEqual({ nested: { a: [1, null, true] } });
    expect(zero?.[10]).toBe('quote \' and "dq" and ünï');
    expect(zero?.[14]).toBe('12345678901234567890123456.123456789');
    const expected = (await db.query({ text: `SELECT id, customer_id, region, amount::text, big::text, placed::text, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US'),
        flag, doc::text, note, ratio, u::text, small FROM orders WHERE id = 8`, rowMode: 'array' })).rows[0] as unknown[];
    expect([eight?.[0], eight?.[1], eight?.[2], eight?.[3], eight?.[4], eight?.[5], eight?.[6], eight?.[8], eight?.[9], eight?.[10], eight?.[11], eight?.[12], eight?.[15]]).toEqual(
      expected.map((v, i) => (i === 1 || i === 0 || i === 10 || i === 12 ? Number(v) : i === 8 ? v : v)),
    );
    const check = await collect(engine.execute(`SELECT atz = TIMESTAMPTZ '2024-01-01 08:00:00+00', span = INTERVAL '8 seconds', free = 2.666667 FROM sales.orders WHERE id = 8`));
    expect(check.rows[0]).toEqual([true, true, true]);
  });

  it('law: landing is type-faithful: every value reads back exactly as PostgreSQL prints it', async () => {
    await db.query(`CREATE TABLE fidelity (id integer PRIMARY KEY, b bigint, d numeric(20,6), day date, at timestamp, t text, f boolean, j jsonb, r double precision)`);
    const fid = catalogEntryFor(
      { source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'fidelity' },
      { id: 'sales-pg', type: 'postgresql', host: entries[0]?.source.host, port: entries[0]?.source.port, database: DB, username: entries[0]?.source.username, password: '${env:SHOAL_IT_PG_PASSWORD}' },
    );
    await engine.reconcile([...entries, fid]);
    const row = fc.record({
      b: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
      d: fc.option(fc.tuple(fc.bigInt({ min: -(10n ** 14n) + 1n, max: 10n ** 14n - 1n }), fc.nat({ max: 999_999 })).map(([i, f]) => `${i}.${String(f).padStart(6, '0')}`), { nil: null }),
      day: fc.option(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }).map((x) => x.toISOString().slice(0, 10)), { nil: null }),
      at: fc.option(fc.tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), fc.nat({ max: 999 })).map(([x, us]) => `${x.toISOString().slice(0, 23)}${String(us).padStart(3, '0')}`), { nil: null }),
      t: fc.option(fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/\0/g, '')), { nil: null }),
      f: fc.option(fc.boolean(), { nil: null }),
      j: fc.option(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)), { nil: null }),
      r: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
    });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 6 }), async (rows) => {
          await db.query('TRUNCATE fidelity');
          for (const [i, x] of rows.entries()) {
            await db.query('INSERT INTO fidelity VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [i, x.b?.toString() ?? null, x.d, x.day, x.at, x.t, x.f, x.j, x.r]);
          }
          const landed = await collect(engine.execute('SELECT * FROM sales.fidelity ORDER BY id'));
          const printed = (await db.query({
            text: `SELECT id, b::text, d::text, day::text, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US'), t, f, j::text, r FROM fidelity ORDER BY id`,
            rowMode: 'array',
            types: { getTypeParser: (oid: number) => (oid === 16 ? (v: string) => v === 't' : oid === 701 || oid === 23 ? Number : (v: string) => v) },
          })).rows as unknown[][];
          // DuckDB prints a timestamp's fraction without trailing zeros; to_char pads it to six digits.
          const trimFraction = (ts: unknown) => (typeof ts === 'string' ? ts.replace(/(\.\d*[1-9])0+$/, '$1').replace(/\.0+$/, '') : ts);
          expect(landed.rows.map((r) => [r[0], r[1], r[2], r[3], trimFraction(r[4]), r[5], r[6], r[7] === null ? null : JSON.parse(r[7] as string), r[8]])).toEqual(
            printed.map((p) => [p[0], p[1], p[2], p[3], trimFraction(p[4]), p[5], p[6], p[7] === null ? null : JSON.parse(p[7] as string), p[8]]),
          );
        }),
        { numRuns: 25 },
      );
    } finally {
      await engine.reconcile(entries);
    }
  });

  it('pushes projection and predicates into PostgreSQL: only matching rows are fetched', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute("SELECT id, amount FROM sales.orders WHERE region = 'eu' AND id <= 400 ORDER BY id", {
        pushdown: [{ table: ORDERS, columns: ['id', 'amount', 'region'], predicates: [{ column: 'region', op: '=', value: 'eu' }, { column: 'id', op: '<=', value: 400 }] }],
        onLanding: (x) => reports.push(x),
      }),
    );
    const expected = (await db.query({ text: "SELECT id, amount::text FROM orders WHERE region = 'eu' AND id <= 400 ORDER BY id", rowMode: 'array' })).rows;
    expect(r.rows).toEqual(expected);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.sourceSql).toBe('SELECT "id", "amount", "region" FROM "public"."orders" WHERE "region" = $1 AND "id" <= $2');
    expect(reports[0]?.params).toEqual(['eu', 400]);
    expect(reports[0]?.rowsFetched).toBe(expected.length);
    expect(reports[0]?.rowsFetched).toBeLessThan(ROWS / 10);
  });

  it('without pushdown the whole table is landed, and the answer is the same', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(engine.execute("SELECT count(*)::INTEGER, sum(amount)::VARCHAR FROM sales.orders WHERE region = 'eu'", { onLanding: (x) => reports.push(x) }));
    const expected = (await db.query({ text: "SELECT count(*)::int, sum(amount)::text FROM orders WHERE region = 'eu'", rowMode: 'array' })).rows;
    expect(r.rows).toEqual(expected);
    expect(reports[0]?.rowsFetched).toBe(ROWS + 1);
  });

  it('pushes IN, IS NULL and LIKE', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute("SELECT count(*)::INTEGER FROM sales.orders WHERE customer_id IN (1, 2) AND note IS NULL AND region LIKE 'l%'", {
        pushdown: [{
          table: ORDERS,
          columns: ['customer_id', 'note', 'region'],
          predicates: [{ column: 'customer_id', op: 'IN', values: [1, 2] }, { column: 'note', op: 'IS NULL' }, { column: 'region', op: 'LIKE', value: 'l%' }],
        }],
        onLanding: (x) => reports.push(x),
      }),
    );
    const expected = (await db.query({ text: "SELECT count(*)::int FROM orders WHERE customer_id IN (1, 2) AND note IS NULL AND region LIKE 'l%'", rowMode: 'array' })).rows;
    expect(r.rows).toEqual(expected);
    expect(reports[0]?.rowsFetched).toBe(expected[0]?.[0]);
  });

  it('law: pushing predicates and a projection into PostgreSQL never changes an answer', async () => {
    await checkPushdownLaw(
      engine,
      {
        ref: ORDERS,
        name: 'sales.orders',
        key: 'id',
        columns: [
          { name: 'id', values: [0, 8, 400, 4999.5, 5000] },
          { name: 'region', values: ['eu', 'EU', 'Eu', 'us', 'apac', 'b', 'Z', ''], patterns: ['e%', 'E%', '%a%', 'l_tam'] },
          { name: 'note', values: ['n1', 'N1', 'n10', 'n9', 'a', 'Z'], patterns: ['n1%', 'N%'] },
          { name: 'amount', values: [1.25, 10, 100.5, 6250] },
        ],
      },
      15,
    );
  });

  it('answers a cross-source join, PostgreSQL ⋈ CSV, correctly', async () => {
    const r = await collect(
      engine.execute(`SELECT s.segment, o.region, count(*)::INTEGER AS n, sum(o.amount)::VARCHAR AS revenue
        FROM "sales_pg"."public"."orders" o JOIN "segments_csv"."default"."customer_segments" s ON o.customer_id = s.customer_id
        GROUP BY 1, 2 ORDER BY 1, 2`),
    );
    const raw = (await db.query({ text: 'SELECT customer_id, region, amount::text FROM orders WHERE customer_id IS NOT NULL', rowMode: 'array' })).rows as [number, string, string][];
    const groups = new Map<string, { n: number; cents: bigint }>();
    for (const [cid, region, amount] of raw) {
      const k = `${SEGMENTS[cid]}|${region}`;
      const g = groups.get(k) ?? { n: 0, cents: 0n };
      g.n++;
      g.cents += BigInt(amount.replace('.', ''));
      groups.set(k, g);
    }
    const expected = [...groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, g]) => {
        const [seg, region] = k.split('|');
        const c = g.cents.toString().padStart(3, '0');
        return [seg, region, g.n, `${c.slice(0, -2)}.${c.slice(-2)}`];
      });
    expect(r.rows).toEqual(expected);
    expect(new Set(r.rows.map((x) => x[1]))).toEqual(new Set(REGIONS));
  });

  it('answers a three-source join, PostgreSQL ⋈ CSV ⋈ tik tickets, correctly', async () => {
    const r = await collect(
      engine.execute(`SELECT t.title, o.id, o.amount::VARCHAR, s.segment, t.current
        FROM "support_board"."default"."tickets" t
        JOIN "sales_pg"."public"."ticket_orders" l ON l.ticket = t.ticket
        JOIN "sales_pg"."public"."orders" o ON o.id = l.order_id
        JOIN "segments_csv"."default"."customer_segments" s ON s.customer_id = o.customer_id
        ORDER BY o.id`),
    );
    const expected: Cell[][] = [];
    for (const [i, t] of tik.tickets.entries()) {
      const orderId = 5 + 3 * i;
      const [cid, amount] = (await db.query({ text: 'SELECT customer_id, amount::text FROM orders WHERE id = $1', values: [orderId], rowMode: 'array' })).rows[0] as [number, string];
      const st = (await tik.json(['status', t], NOW)) as { title: string; current: string[] };
      expected.push([st.title, orderId, amount, SEGMENTS[cid] as string, st.current]);
    }
    expect(r.rows).toEqual(expected);
    expect(r.rows.length).toBe(4);
  });

  it('a source that is down gives SOURCE_UNAVAILABLE naming it, while PostgreSQL and CSV queries keep working', async () => {
    const e = await codeOf(collect(engine.execute('SELECT count(*) FROM archive.orders')));
    expect(e.code).toBe('SOURCE_UNAVAILABLE');
    expect(e.message).toContain('"down-pg"');
    expect(await engine.health('down-pg')).toMatchObject({ ok: false, code: 'SOURCE_UNAVAILABLE' });
    const joined = await codeOf(collect(engine.execute('SELECT * FROM archive.orders a JOIN sales.orders o USING (id)')));
    expect(joined.code).toBe('SOURCE_UNAVAILABLE');
    expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments'))).rows).toEqual([[3]]);
    expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.orders WHERE id = 1'))).rows).toEqual([[1]]);
    expect(await engine.health('sales-pg')).toEqual({ sourceId: 'sales-pg', ok: true });
  });

  it('a query cancelled while a slow source is fetching ends with QUERY_CANCELLED, and the source stays usable', async () => {
    await db.query('CREATE OR REPLACE VIEW slow_orders AS SELECT o.id FROM orders o, pg_sleep(3)');
    const slow = catalogEntryFor(
      { source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'slow_orders' },
      { id: 'sales-pg', type: 'postgresql', host: entries[0]?.source.host, port: entries[0]?.source.port, database: DB, username: entries[0]?.source.username, password: '${env:SHOAL_IT_PG_PASSWORD}' },
    );
    await engine.reconcile([...entries, slow]);
    try {
      const ac = new AbortController();
      const running = codeOf(collect(engine.execute('SELECT count(*) FROM sales.slow_orders', { signal: ac.signal })));
      setTimeout(() => ac.abort(), 200);
      expect((await running).code).toBe('QUERY_CANCELLED');
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.orders WHERE id <= 3'))).rows).toEqual([[4]]);
    } finally {
      await engine.reconcile(entries);
    }
  });

  it('a table missing at the source is SOURCE_QUERY_FAILED, not unavailable', async () => {
    const ghost = catalogEntryFor(
      { source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'ghost' },
      { id: 'sales-pg', type: 'postgresql', host: entries[0]?.source.host, port: entries[0]?.source.port, database: DB, username: entries[0]?.source.username, password: '${env:SHOAL_IT_PG_PASSWORD}' },
    );
    await engine.reconcile([...entries, ghost]);
    try {
      const e = await codeOf(collect(engine.execute('SELECT * FROM sales.ghost')));
      expect(e.code).toBe('SOURCE_QUERY_FAILED');
      expect(e.message).toContain('"sales-pg"');
    } finally {
      await engine.reconcile(entries);
    }
  });

  it('the ATTACH connector reports an extension that cannot load, and the landed sources keep working', async () => {
    const attached = catalogEntryFor(
      { source_id: 'live-pg', domain_id: 'live', schema: 'public', table: 'orders' },
      { id: 'live-pg', type: 'postgresql', host: entries[0]?.source.host, port: entries[0]?.source.port, database: DB, username: 'postgres', password: '${env:SHOAL_IT_PG_PASSWORD}', attach: true },
    );
    const report = await engine.reconcile([...entries, attached]);
    try {
      expect(report.failed).toEqual([expect.objectContaining({ entry: 'live_pg.public.orders', code: 'ENGINE_EXTENSION_UNAVAILABLE' })]);
      expect(report.failed[0]?.message).not.toContain('not-needed-with-trust-auth');
      const e = await codeOf(collect(engine.execute('SELECT * FROM live.orders')));
      expect(e.code).toBe('ENGINE_EXTENSION_UNAVAILABLE');
      expect(e.hint).toContain('attach: false');
      expect(await engine.health('live-pg')).toMatchObject({ ok: false, code: 'ENGINE_EXTENSION_UNAVAILABLE' });
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.orders WHERE id < 10'))).rows).toEqual([[10]]);
    } finally {
      await engine.reconcile(entries);
    }
  });
});
