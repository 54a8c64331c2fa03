/**
 * MV snapshot copies in the Trino scratch area are removed, boundedly: a copy stays while its
 * snapshot file is in the store, and for a whole grace period after this instance first saw the
 * file gone (a peer may still be reading the snapshot it resolved before); then its copy and
 * table go. The current snapshot's copy is never touched.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { collect } from '../shoal/engine/duckdb/engine-fixtures.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const GRACE = 60_000;

describe.runIf(trinoAvailable())('MV snapshot copies on Trino', () => {
  let dir: string;
  let now = Date.now();
  const engines: TrinoEngine[] = [];

  beforeAll(async () => {
    const { url } = await readyTrino();
    dir = mkdtempSync(join(tmpdir(), 'shoal-trino-copies-'));
    mkdirSync(join(dir, 'store', 'by_region'), { recursive: true });
    const duck = await DuckDBInstance.create(':memory:');
    const c = await duck.connect();
    for (const [name, n] of [['old', 3], ['new', 4]] as const) {
      await c.run(`COPY (SELECT i AS id, 'r' || i AS region FROM range(${n}) t(i)) TO '${join(dir, 'store', 'by_region', `${name}.parquet`)}' (FORMAT parquet)`);
    }
    c.closeSync();
    duck.closeSync();
    for (let i = 0; i < 2; i++) engines.push(await TrinoEngine.create({ url, scratchDir: join(dir, 'scratch'), clock: () => now }));
  });
  afterAll(async () => {
    for (const e of engines) await e.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const count = async (e: TrinoEngine, file: string) => (await collect(e.execute(`SELECT count(*) FROM (${await e.snapshots.body(join(dir, 'store', 'by_region', file))})`))).rows;
  const copies = () => readdirSync(join(dir, 'scratch', 'mv')).filter((n) => !n.endsWith('.source')).sort();

  it('keeps a copy while its file is in the store and for the grace period after it is gone, then removes it and its table', async () => {
    const [a, b] = engines as [TrinoEngine, TrinoEngine];
    expect(await count(a, 'old.parquet')).toEqual([['3']]);
    expect(await count(b, 'old.parquet')).toEqual([['3']]);
    expect(await count(a, 'new.parquet')).toEqual([['4']]);
    expect(copies()).toHaveLength(2);
    const tables = async () => (await a.client.rows(`SHOW TABLES FROM ${a.sharedCatalogs.mv}.snapshots`)).map((r) => String(r[0]));
    expect(await tables()).toHaveLength(2);

    // both files in the store: nothing goes, however much time passes
    now += 10 * GRACE;
    expect((await a.snapshots.collectGarbage({ graceMs: GRACE })).removed).toEqual([]);

    // the store removed the superseded file: its copy stays for the grace period, and a peer
    // still reading the snapshot it resolved before reads it whole
    rmSync(join(dir, 'store', 'by_region', 'old.parquet'));
    expect((await a.snapshots.collectGarbage({ graceMs: GRACE })).removed).toEqual([]);
    now += GRACE - 1;
    expect((await a.snapshots.collectGarbage({ graceMs: GRACE })).removed).toEqual([]);
    expect((await b.snapshots.collectGarbage({ graceMs: GRACE })).removed).toEqual([]);
    expect(await count(b, 'old.parquet')).toEqual([['3']]);

    // gone for the whole grace period: the copy, its marker and its table go; the current one stays
    now += 1;
    const { removed } = await a.snapshots.collectGarbage({ graceMs: GRACE });
    expect(removed).toHaveLength(1);
    expect(copies()).toHaveLength(1);
    expect(existsSync(join(dir, 'scratch', 'mv', `${removed[0]}.source`))).toBe(false);
    expect(await tables()).toHaveLength(1);
    expect(await count(a, 'new.parquet')).toEqual([['4']]);
    // the peer, which saw the file gone later, has nothing left to remove
    now += GRACE;
    expect((await b.snapshots.collectGarbage({ graceMs: GRACE })).removed).toEqual([]);
    expect(await count(b, 'new.parquet')).toEqual([['4']]);
  });
});
