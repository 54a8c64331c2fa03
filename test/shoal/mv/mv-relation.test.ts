import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeColumn, makeTable } from '../../../src/shoal/config/model.js';
import { bindMvRelations, engineNameWithMvs, isMaterializedView, mvId, mvRelationName, snapshotBody } from '../../../src/shoal/mv/mv-relation.js';

describe('MV relation names', () => {
  it('law: one plain identifier per MV id, distinct ids give distinct names', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(mvRelationName(a)).toMatch(/^__shoal_mv_[A-Za-z0-9_]*_[0-9a-f]{8}$/);
        if (a !== b) expect(mvRelationName(a)).not.toBe(mvRelationName(b));
      }),
    );
  });

  it('only derived, materialized tables with view_sql are MVs; others keep their physical engine name', () => {
    const mv = makeTable({ source_id: '__derived__', domain_id: 'sales', table: 'by_region', materialize: true, view_sql: 'SELECT 1 AS x', columns: [makeColumn({ name: 'x' })] });
    const view = makeTable({ source_id: '__derived__', domain_id: 'sales', table: 'v', view_sql: 'SELECT 1 AS x', columns: [] });
    const plain = makeTable({ source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'orders', materialize: true, columns: [] });
    expect(isMaterializedView(mv)).toBe(true);
    expect(isMaterializedView(view)).toBe(false);
    expect(isMaterializedView(plain)).toBe(false);
    expect(mvId(mv)).toBe('sales.by_region');
    expect(engineNameWithMvs(mv)).toEqual([mvRelationName('sales.by_region')]);
    expect(engineNameWithMvs(plain)).toEqual(['sales_pg', 'public', 'orders']);
  });
});

describe('binding MV relations into a plan (run on DuckDB)', () => {
  let db: DuckDBInstance;
  const run = async (sql: string) => {
    const c = await db.connect();
    try {
      return (await c.runAndReadAll(sql)).getRowsJS();
    } finally {
      c.closeSync();
    }
  };
  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:');
  });
  afterAll(() => db.closeSync());

  const R = mvRelationName('sales.m');
  const body = "SELECT * FROM (VALUES ('eu', 1), ('us', 2)) AS t(region, n)";

  it('leaves a plan without MVs untouched', () => {
    expect(bindMvRelations('SELECT 1', [])).toBe('SELECT 1');
  });

  it('binds a plain SELECT, a plan with its own WITH, a RECURSIVE one and a set operation', async () => {
    const bound = [{ relation: R, body }];
    expect(await run(bindMvRelations(`SELECT region FROM (SELECT "region", "n" FROM "${R}") AS m ORDER BY region`, bound))).toEqual([['eu'], ['us']]);
    expect(await run(bindMvRelations(`WITH __cte_1 AS (SELECT n FROM "${R}") SELECT sum(n) FROM __cte_1`, bound))).toEqual([[3n]]);
    expect(await run(bindMvRelations(`with recursive r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2) SELECT count(*) FROM r, "${R}"`, bound))).toEqual([[4n]]);
    expect(await run(bindMvRelations(`SELECT n FROM "${R}" UNION ALL SELECT 9 ORDER BY 1`, bound))).toEqual([[1], [2], [9]]);
  });

  it('binds two MVs at once, and a snapshot body reads its Parquet file', async () => {
    const other = mvRelationName('sales.other');
    const sql = bindMvRelations(`SELECT count(*) FROM "${R}", "${other}"`, [{ relation: R, body }, { relation: other, body: 'SELECT 1 AS k UNION ALL SELECT 2' }]);
    expect(await run(sql)).toEqual([[4n]]);
    expect(snapshotBody("/tmp/it's.parquet")).toBe("SELECT * FROM read_parquet('/tmp/it''s.parquet')");
  });
});
