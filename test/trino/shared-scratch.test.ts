/**
 * Several instances over one Trino and one scratch directory (a fleet): each landing is private
 * to its query. Two instances landing the same table at once each read exactly their own rows,
 * an instance starting up or finishing a query removes nothing another one has in flight, and
 * what an instance that died left behind (a real process, killed) is removed once its heartbeat
 * is stale — never a live instance's area, however long its query runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/shoal/engine/catalog-entry.js';
import { DuckDbEngine } from '../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { Cell, PushdownSpec } from '../../src/shoal/engine/engine.js';
import { TrinoEngine, type TrinoEngineOptions } from '../../src/shoal/engine/trino/trino-engine.js';
import { collect, entry, makeFiles, type FileFixture } from '../shoal/engine/duckdb/engine-fixtures.js';
import { until } from '../support/until.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const multiset = (rows: readonly (readonly Cell[])[]) => rows.map((r) => JSON.stringify(r)).sort();

const ALL = 'SELECT id, name, price FROM te_shop.main.items';
const FEW = 'SELECT id, name, price FROM "te_shop"."main"."items" WHERE id <= 10';
const FEW_PUSHDOWN: PushdownSpec[] = [{ table: { sourceId: 'te-shop', schema: 'main', table: 'items' }, predicates: [{ column: 'id', op: '<=', value: 10 }] }];

describe.runIf(trinoAvailable())('instances sharing one scratch directory', () => {
  let files: FileFixture;
  let scratch: string;
  let url: string;
  let entries: CatalogEntry[];
  let duck: DuckDbEngine;
  const engines: TrinoEngine[] = [];
  const start = async (extra: Partial<TrinoEngineOptions> = {}): Promise<TrinoEngine> => {
    const e = await TrinoEngine.create({ url, scratchDir: scratch, ...extra });
    engines.push(e);
    expect((await e.reconcile(entries)).failed).toEqual([]);
    return e;
  };

  beforeAll(async () => {
    url = (await readyTrino()).url;
    files = await makeFiles();
    scratch = mkdtempSync(join(tmpdir(), 'shoal-trino-shared-'));
    entries = [entry({ id: 'te-shop', type: 'sqlite', path: files.sqlite }, { domain_id: 'shop', schema: 'main', table: 'items' })];
    duck = await DuckDbEngine.create();
    await duck.reconcile(entries);
  });
  afterAll(async () => {
    for (const e of engines) await e.close();
    await duck?.close();
    files?.cleanup();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('two instances landing the same table at once each read exactly their own rows, and neither cleanup touches the other', async () => {
    const a = await start();
    const b = await start();
    const all = multiset((await collect(duck.execute(ALL))).rows);
    const few = multiset((await collect(duck.execute(FEW))).rows);
    expect(all).toHaveLength(200);
    expect(few).toHaveLength(10);

    // A lands the table (only ten rows, pushed down) and holds its stream open
    const held = a.execute(FEW, { pushdown: FEW_PUSHDOWN })[Symbol.asyncIterator]();
    const first = await held.next();
    const heldFiles = await a.landedFiles();
    expect(heldFiles).toHaveLength(1);

    // B lands the same table meanwhile: its own rows, once each, none of A's
    expect(multiset((await collect(b.execute(ALL))).rows)).toEqual(all);
    // an instance starting over the same scratch area, and B's finished query, removed nothing of A's
    const c = await start();
    expect(multiset((await collect(c.execute(FEW, { pushdown: FEW_PUSHDOWN }))).rows)).toEqual(few);
    expect(await a.landedFiles()).toEqual(heldFiles);
    for (const f of heldFiles) expect(existsSync(f)).toBe(true);

    // A's answer is its own ten rows
    const rows = [...(first.done ? [] : first.value.rows)];
    for (let r = await held.next(); !r.done; r = await held.next()) rows.push(...r.value.rows);
    expect(multiset(rows)).toEqual(few);

    // all at once, on every instance, different queries of the same table
    const runs = await Promise.all(
      [a, b, c, a, b, c].map(async (e, i) => ({ i, got: multiset((await collect(i % 2 === 0 ? e.execute(ALL) : e.execute(FEW, { pushdown: FEW_PUSHDOWN }))).rows) })),
    );
    for (const { i, got } of runs) expect(got).toEqual(i % 2 === 0 ? all : few);

    // nothing left: no files, no tables
    for (const e of [a, b, c]) expect(await e.landedFiles()).toEqual([]);
    const schemas = [a, b, c].map((e) => `'${e.landingInstance}'`).join(', ');
    const left = await a.client.rows(`SELECT count(*) FROM ${a.sharedCatalogs.landed}.information_schema.tables WHERE table_schema IN (${schemas})`);
    expect(left).toEqual([[0]]);
  });

  it('what a killed instance left is removed once its heartbeat is stale; a live instance\'s area never is, however long its query runs', async () => {
    const dist = resolve(process.cwd(), 'dist/src/shoal/engine');
    expect(existsSync(join(dist, 'trino/trino-engine.js')), 'this test runs an instance from dist/: npm run build first').toBe(true);
    // a real instance in its own process: it lands, holds its query open, and is killed
    const script = `
      const { TrinoEngine } = await import(${JSON.stringify(join(dist, 'trino/trino-engine.js'))});
      const { catalogEntryFor } = await import(${JSON.stringify(join(dist, 'catalog-entry.js'))});
      const e = await TrinoEngine.create({ url: ${JSON.stringify(url)}, scratchDir: ${JSON.stringify(scratch)} });
      await e.reconcile([catalogEntryFor({ source_id: 'te-shop', domain_id: 'shop', schema: 'main', table: 'items' }, { id: 'te-shop', type: 'sqlite', path: ${JSON.stringify(files.sqlite)} })]);
      const held = e.execute(${JSON.stringify(ALL)})[Symbol.asyncIterator]();
      await held.next();
      console.log(JSON.stringify({ instance: e.landingInstance, files: await e.landedFiles() }));
      setInterval(() => undefined, 1 << 30);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let dead: { instance: string; files: string[] };
    try {
      const line = await new Promise<string>((res, rej) => {
        createInterface({ input: child.stdout! }).once('line', res);
        child.once('exit', (code) => rej(new Error(`the instance process exited (${code}) before landing`)));
      });
      dead = JSON.parse(line) as typeof dead;
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(dead.files).toHaveLength(1);
    const deadArea = join(scratch, 'landed', dead.instance);
    const schemaNames = async (e: TrinoEngine) => (await e.client.rows(`SHOW SCHEMAS FROM ${e.sharedCatalogs.landed}`)).map((r) => String(r[0]));

    // a live instance with a query in flight, its area made to look as old; its heartbeat runs
    const live = await start({ landingHeartbeatMs: 100 });
    const held = live.execute(ALL)[Symbol.asyncIterator]();
    const first = await held.next();
    const liveArea = join(scratch, 'landed', live.landingInstance);
    const liveFiles = await live.landedFiles();
    expect(liveFiles).toHaveLength(1);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(liveArea, hourAgo, hourAgo);

    // a fresh area (the killed instance's, just now) is kept: its instance may be alive
    const sweeper = await start();
    expect(existsSync(deadArea)).toBe(true);
    expect(await schemaNames(sweeper)).toContain(dead.instance);

    // once its heartbeat is stale it goes, with its tables; the live one has touched its area since
    utimesSync(deadArea, hourAgo, hourAgo);
    await until("the live instance's heartbeat", async () => (statSync(liveArea).mtimeMs > Date.now() - 60_000 ? true : undefined));
    await sweeper.reconcile(entries);
    expect(existsSync(deadArea)).toBe(false);
    expect(await schemaNames(sweeper)).not.toContain(dead.instance);
    expect(await live.landedFiles()).toEqual(liveFiles);
    expect(await schemaNames(sweeper)).toContain(live.landingInstance);

    const rows = [...(first.done ? [] : first.value.rows)];
    for (let r = await held.next(); !r.done; r = await held.next()) rows.push(...r.value.rows);
    expect(multiset(rows)).toEqual(multiset((await collect(duck.execute(ALL))).rows));

    // a closed instance leaves nothing
    await live.close();
    expect(existsSync(liveArea)).toBe(false);
    expect(await schemaNames(sweeper)).not.toContain(live.landingInstance);
  });
});
