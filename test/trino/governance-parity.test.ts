/**
 * The governance law on both engines over the same sources: two real shoal instances from one
 * config (a SQLite source, landed; a CSV source, read through the file path), one on DuckDB and
 * one with `federation_engine: trino`. For generated governed queries and every viewer, Trino
 * returns the same multiset as DuckDB (same masking, no row outside RLS), or both refuse; and a
 * query through the Trino instance's own pipeline (POST /data/sql's service) is masked and filtered.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { salesData, writeSqlite } from '../shoal/sql/duckdb-harness.js';
import { salesConfigYaml } from '../shoal/sql/pushdown-law.js';
import { type EnginePair, assertGovernedParity, startEnginePair } from './engine-parity.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

describe.runIf(trinoAvailable())('governance on DuckDB and on Trino over the same sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-trino-gov-'));
  let pair: EnginePair;
  let trino: ShoalInstance;

  beforeAll(async () => {
    const info = await readyTrino();
    writeSqlite(join(dir, 'shop.db'), salesData());
    writeFileSync(join(dir, 'tiers.csv'), 'tier,rank\ngold,1\nsilver,2\nbronze,3\nGOLD,4\n');
    const yaml = salesConfigYaml('{id: src, type: sqlite, path: shop.db}\n  - {id: tiers, type: csv, path: tiers.csv}')
      .replace('roles:\n', '  - {source_id: tiers, domain_id: sales, table: tiers, columns: [{name: tier, data_type: varchar}, {name: rank, data_type: integer}]}\nroles:\n');
    pair = await startEnginePair(yaml, dir, info.url);
    trino = pair.trino;
  });
  afterAll(async () => {
    await pair?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a governed query gives the same multiset on both engines, for every viewer (or both refuse)', async () => {
    expect(await assertGovernedParity(pair, { numRuns: 20, seed: 15 })).toBeGreaterThan(10);
  }, 600_000);

  it('through the Trino instance\'s pipeline: the analyst sees only its region, emails masked, the hidden column unknown', async () => {
    const run = async (sql: string, role: string, vars: Record<string, string>) => {
      const r = await trino.query({ sql, role, vars }, new AbortController().signal);
      const rows: unknown[][] = [];
      for await (const b of r.batches) rows.push(...b.map((x) => [...x]));
      return { headers: r.headers ?? {}, rows };
    };
    const eu = await run('SELECT c.id, c.email, c.region, t.rank FROM sales.customers c LEFT JOIN sales.tiers t ON t.tier = c.tier ORDER BY c.id', 'analyst', { 'provisa.region': 'EU' });
    expect(eu.headers['x-shoal-route']).toBe('engine');
    expect(eu.rows.length).toBeGreaterThan(0);
    for (const [, email, region] of eu.rows) {
      expect(region).toBe('EU');
      expect(String(email)).toMatch(/^.{2}\*\*\*@/);
    }
    const all = await run('SELECT count(*) AS n FROM sales.customers', 'admin', {});
    expect(all.rows).toEqual([[40n]]);
    await expect(run('SELECT ssn FROM sales.customers', 'analyst', { 'provisa.region': 'EU' })).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
  });
});
