/**
 * Whose fault a source's refusal on the direct route is (src/shoal/instance/client-sql-fault.ts).
 * Only a grouping, aggregate or typing refusal is checked against the client's SQL alone: any
 * other refusal (a permission, a missing table, a cancel) stays the source's, even when DuckDB
 * would refuse the same SQL for a rule of its own (PostgreSQL accepts a column functionally
 * dependent on a grouped primary key; DuckDB does not). The engine is a real DuckDB.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../src/shoal/engine/engine.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { clientSqlFault } from '../../../src/shoal/instance/client-sql-fault.js';
import { createCatalog } from '../../../src/shoal/sql/index.js';
import { salesSpec } from '../sql/fixtures.js';

const catalog = createCatalog(salesSpec());
let db: DuckDBInstance;
let engine: Engine;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
  // the engine's execute, over a real DuckDB: what clientSqlFault uses of an engine
  engine = {
    name: 'duckdb',
    async *execute(sql: string) {
      const c = await db.connect();
      try {
        await c.run(sql);
        yield { columns: [], rows: [] };
      } finally {
        c.closeSync();
      }
    },
  } as unknown as Engine;
});
afterAll(() => db.closeSync());

/** A SOURCE_QUERY_FAILED as the PostgreSQL source raises it, around a pg error with `sqlState`. */
const refused = (code: string, message: string): ShoalError =>
  new ShoalError('SOURCE_QUERY_FAILED', `source "pg" rejected the statement while fetching rows (${code})`, { cause: Object.assign(new Error(message), { code }) });

const grouping = 'SELECT name, count(*) FROM sales.customers GROUP BY region';
const check = () => ({ engine, request: { sql: grouping, role: 'analyst', vars: { 'provisa.region': 'EU' } }, catalog, signal: new AbortController().signal });

describe('clientSqlFault on the direct route', () => {
  it("a source's grouping refusal (42803) that the client's SQL alone reproduces is the client's: SQL_INVALID_QUERY", async () => {
    const verdict = await clientSqlFault(refused('42803', 'column "name" must appear in the GROUP BY clause'), check());
    expect(verdict?.code).toBe('SQL_INVALID_QUERY');
  });

  it("any other refusal stays the source's, even when DuckDB would refuse the client's SQL too", async () => {
    for (const [code, message] of [
      ['42501', 'permission denied for table customers'],
      ['42P01', 'relation "customers" does not exist'],
      ['57014', 'canceling statement due to user request'],
    ] as const) {
      expect(await clientSqlFault(refused(code, message), check())).toBeUndefined();
    }
  });
});
