/**
 * Engine-resident tables (hot-table copies): created whole from a generated body, readable from
 * any query connection, left alone by catalog reconciliation (which drops every other table), and
 * their database is a reserved name no source may map onto.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { collect, entry, makeFiles, type FileFixture } from './engine-fixtures.js';

describe('DuckDB resident tables', () => {
  let files: FileFixture;
  beforeAll(async () => {
    files = await makeFiles();
  });
  afterAll(() => files?.cleanup());

  it('a resident table is read by name from query connections and survives reconcile; drop removes it', async () => {
    const engine = await DuckDbEngine.create();
    try {
      const csv = { id: 'files', type: 'csv', path: files.csv };
      await engine.reconcile([entry(csv, { domain_id: 'sales', table: 'customer_segments' })]);
      const rel = await engine.resident.create('t_1', "SELECT CAST(v.c1 AS INTEGER) AS \"id\", CAST(v.c2 AS VARCHAR) AS \"name\" FROM (VALUES ('1', 'a'), ('2', 'b')) AS v(c1, c2)");
      expect(rel).toEqual(['__shoal_hot', 'main', 't_1']);
      const read = async () => (await collect(engine.execute(`SELECT id, name FROM ${rel.map((p) => `"${p}"`).join('.')} ORDER BY id`))).rows;
      expect(await read()).toEqual([[1, 'a'], [2, 'b']]);
      // reconcile drops every table it does not own in the catalog: never a resident one
      await engine.reconcile([]);
      await engine.reconcile([entry(csv, { domain_id: 'sales', table: 'customer_segments' })]);
      expect(await engine.resident.list()).toEqual(['t_1']);
      expect(await read()).toEqual([[1, 'a'], [2, 'b']]);
      await engine.resident.drop('t_1');
      expect(await engine.resident.list()).toEqual([]);
      await expect(engine.resident.create('bad"name', 'SELECT 1')).rejects.toThrow(TypeError);
    } finally {
      await engine.close();
    }
  });

  it('no source may map onto the resident database', async () => {
    const engine = await DuckDbEngine.create();
    try {
      const e = await engine.reconcile([entry({ id: '__shoal_hot', type: 'csv', path: files.csv }, { domain_id: 'd', table: 't' })]).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ShoalError);
      expect((e as ShoalError).code).toBe('ENGINE_NAME_CONFLICT');
    } finally {
      await engine.close();
    }
  });
});
