/**
 * PostgreSQL and MariaDB landed on Trino, against real servers (started here from the installed
 * binaries, or PG_URL / MYSQL_URL): for generated governed queries and every viewer, a
 * `federation_engine: trino` instance gives the DuckDB instance's multiset over the same source
 * (same masking, no row outside RLS), or fails closed; and through the Trino instance's own
 * pipeline an analyst sees only its region, with emails masked. With CI=true a missing server
 * fails the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LandingReport } from '../../src/shoal/engine/engine.js';
import type { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { planQuery } from '../../src/shoal/sql/index.js';
import { salesData } from '../shoal/sql/duckdb-harness.js';
import { collect, salesConfigYaml } from '../shoal/sql/pushdown-law.js';
import { loadMariadb, loadPostgres } from '../support/server-tables.js';
import { type Missing, type Running, isMissing, startMariadb, startPostgres } from '../support/services.js';
import { type EnginePair, assertGovernedParity, canon, governedOutcome, startEnginePair } from './engine-parity.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const DB = `shoal_trino_landed_${process.pid}`;
const data = salesData();

async function server(start: () => Promise<Running | Missing>): Promise<Running | undefined> {
  if (!trinoAvailable()) return undefined;
  const s = await start();
  if (!isMissing(s)) return s;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${s.name} is missing: ${s.missing}`);
  process.stderr.write(`\n${'!'.repeat(78)}\n${s.name.toUpperCase()} MISSING — its Trino landing tests are SKIPPED: ${s.missing}\n${'!'.repeat(78)}\n`);
  return undefined;
}

const postgres = await server(startPostgres);
const mariadb = await server(startMariadb);

/** A DuckDB and a Trino instance over one source holding `salesData()`; the law and the pipeline checks. */
function parity(name: string, sourceLine: () => string, schema?: string): void {
  describe(`${name} landed on Trino`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-trino-landed-'));
    let pair: EnginePair;

    beforeAll(async () => {
      pair = await startEnginePair(salesConfigYaml(sourceLine(), schema), dir, (await readyTrino()).url);
    });
    afterAll(async () => {
      await pair?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a governed query gives the same multiset on both engines, for every viewer (or Trino fails closed)', async () => {
      expect(await assertGovernedParity(pair, { numRuns: 15, seed: 15 })).toBeGreaterThan(8);
    }, 600_000);

    it('the analyst\'s RLS is pushed into the source statement, and its answer, masked, equals DuckDB\'s', async () => {
      const { duck, trino, governance } = pair;
      const sql = 'SELECT c.id, c.email, c.region, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id';
      const viewer = { role: 'analyst', vars: { 'provisa.region': 'EU' } };
      const plan = planQuery({ sql, ...viewer }, governance, { route: 'engine', engine: 'trino' });
      const landings: LandingReport[] = [];
      const rows = await collect(trino.engine.execute(plan.sql, { ...(plan.pushdown ? { pushdown: plan.pushdown } : {}), onLanding: (l) => landings.push(l) }));
      expect(rows.length).toBeGreaterThan(0);
      for (const [, email, region, amount] of rows) {
        expect(region).toBe('EU');
        expect(String(email)).toMatch(/^.{2}\*\*\*@/);
        expect(Number(amount)).toBeGreaterThanOrEqual(100);
      }
      const customers = landings.find((l) => l.table.table === 'customers')!;
      expect(customers.params).toEqual(['EU']);
      expect(customers.rowsFetched).toBeLessThan(data.find((t) => t.name === 'customers')!.rows.length);
      expect(canon(rows)).toEqual((await governedOutcome(duck, governance, sql, viewer) as { rows: string[] }).rows);
      // through the instance's own pipeline: the hidden column does not exist for the analyst
      await expect(trino.query({ sql: 'SELECT ssn FROM sales.customers', ...viewer }, new AbortController().signal)).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
      expect(await (trino.engine as TrinoEngine).landedFiles()).toEqual([]);
    });
  });
}

describe.runIf(trinoAvailable() && postgres !== undefined)('PostgreSQL', () => {
  const url = new URL(postgres?.url ?? 'postgresql://x@127.0.0.1:1/x');
  let drop: (() => Promise<void>) | undefined;
  // a non-default schema: the engine table is (src, shop, <table>)
  beforeAll(async () => void (drop = await loadPostgres(postgres!.url, DB, data, 'shop')));
  afterAll(async () => {
    await drop?.();
    if (postgres?.origin === 'started') await postgres.stop();
  });
  parity('PostgreSQL', () => `{id: src, type: postgresql, host: "${url.hostname}", port: ${url.port}, database: ${DB}, username: "${decodeURIComponent(url.username)}"}`, 'shop');
});

describe.runIf(trinoAvailable() && mariadb !== undefined)('MariaDB', () => {
  const url = new URL(mariadb?.url ?? 'mysql://x@127.0.0.1:1/x');
  let drop: (() => Promise<void>) | undefined;
  // a case-insensitive collation: the source returns more than a pushed predicate asks, Trino filters exactly
  beforeAll(async () => void (drop = await loadMariadb(mariadb!.url, DB, data)));
  afterAll(async () => {
    await drop?.();
    if (mariadb?.origin === 'started') await mariadb.stop();
  });
  parity('MariaDB', () => `{id: src, type: mariadb, host: "${url.hostname}", port: ${url.port}, database: ${DB}, username: "${decodeURIComponent(url.username)}"}`);
});
