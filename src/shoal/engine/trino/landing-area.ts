/**
 * Where the Trino engine lands sources: private to one engine instance, and within it to one
 * query, so instances sharing a Trino and a scratch directory never read, replace or delete each
 * other's rows.
 *
 *   <scratch>/landed/<instance>/                      this instance's area (its heartbeat: the mtime)
 *   <scratch>/landed/<instance>/q<n>/<entry>/data.parquet   one landed table of query n
 *   shoal_landed_<scratch digest>."<instance>"."q<n>_<entry>"   the external table over it
 *
 * `<instance>` is random per engine (`i` and 12 hex digits); only its engine writes under it. A
 * query's tables are dropped and its directory removed when its stream ends. An instance that
 * dies leaves its area behind: any instance removes an area whose heartbeat is older than
 * `abandonedAfterMs` (a live instance touches its own every `heartbeatMs`, however long its
 * queries run), and nothing else.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrinoClient } from './trino-client.js';
import { ident, literal, qualified } from './trino-sql.js';
import type { WrittenColumn } from './parquet-writer.js';

const INSTANCE = /^i[0-9a-f]{12}$/;

/** A live instance touches its area this often (ms). */
export const DEFAULT_HEARTBEAT_MS = 60_000;
/** An area untouched this long belongs to an instance that died (ms): many heartbeats, and clock skew between machines. */
export const DEFAULT_ABANDONED_AFTER_MS = 10 * 60_000;

export interface LandingAreaOptions {
  readonly heartbeatMs?: number;
  readonly abandonedAfterMs?: number;
  /** Epoch ms (default Date.now). */
  readonly now?: () => number;
}

/** One query's landings: add tables, then release them all when the query's stream ends. */
export class QueryLanding {
  private readonly tables: string[] = [];

  constructor(
    private readonly area: LandingArea,
    readonly dir: string,
    private readonly rel: string,
    private readonly prefix: string,
  ) {}

  /** Write one table with `write` (given the Parquet file to write) and declare it; its qualified name. */
  async add(name: string, write: (file: string) => Promise<readonly WrittenColumn[]>): Promise<{ table: string; columns: readonly WrittenColumn[] }> {
    const columns = await write(join(this.dir, name, 'data.parquet'));
    const table = qualified(this.area.catalog, this.area.instance, `${this.prefix}_${name}`);
    const defs = columns.map((c) => `${ident(c.name)} ${c.trino}`).join(', ');
    await this.area.client.query(`CREATE TABLE ${table} (${defs}) WITH (format = 'PARQUET', external_location = ${literal(`local:///${this.rel}/${name}`)})`);
    this.tables.push(table);
    return { table, columns };
  }

  /** Drop this query's tables and remove its files (best effort: a leftover goes with the area). */
  async release(): Promise<void> {
    await Promise.all(this.tables.map((t) => this.area.client.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined)));
    await rm(this.dir, { recursive: true, force: true });
    this.area.released();
  }
}

export class LandingArea {
  /** This engine's schema in `catalog` and directory under `<scratch>/landed/`. */
  readonly instance = `i${randomBytes(6).toString('hex')}`;
  private readonly root: string;
  private readonly dir: string;
  private ready: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private queries = 0;
  private open = 0;
  private closed = false;
  private readonly now: () => number;

  constructor(
    readonly client: TrinoClient,
    scratch: string,
    /** The hive catalog over the scratch area holding every instance's landed tables. */
    readonly catalog: string,
    /** Create `catalog` if no instance has yet. */
    private readonly ensureCatalog: (name: string) => Promise<void>,
    private readonly options: LandingAreaOptions = {},
  ) {
    this.root = join(scratch, 'landed');
    this.dir = join(this.root, this.instance);
    this.now = options.now ?? (() => Date.now());
  }

  /** The area exists (directory, schema) and is kept alive. */
  private prepare(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      await this.ensureCatalog(this.catalog);
      await this.client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified(this.catalog, this.instance)}`);
      const beat = () => {
        const t = new Date(this.now());
        utimes(this.dir, t, t).catch(() => undefined);
      };
      this.heartbeat = setInterval(beat, this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
      this.heartbeat.unref();
    })();
    this.ready.catch(() => (this.ready = undefined));
    return this.ready;
  }

  /** A new query's landing (its directory is made by the first table written). */
  async begin(): Promise<QueryLanding> {
    await this.prepare();
    const prefix = `q${++this.queries}`;
    this.open++;
    return new QueryLanding(this, join(this.dir, prefix), `landed/${this.instance}/${prefix}`, prefix);
  }

  /** @internal a query released its landing. */
  released(): void {
    this.open--;
    if (this.closed && this.open === 0) void this.remove();
  }

  /**
   * Remove the areas of instances that died: an area of another instance whose heartbeat is older
   * than `abandonedAfterMs`. Never this instance's, never a live one's, never anything not named
   * like an area. The removed instances.
   */
  async sweep(): Promise<string[]> {
    const limit = this.options.abandonedAfterMs ?? DEFAULT_ABANDONED_AFTER_MS;
    const removed: string[] = [];
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      if (!INSTANCE.test(name) || name === this.instance) continue;
      const dir = join(this.root, name);
      const touched = await stat(dir).then((s) => s.mtimeMs, () => undefined);
      if (touched === undefined || this.now() - touched < limit) continue;
      // the tables first: a schema exists only while its directory does, so a later sweep finds it
      await this.ensureCatalog(this.catalog);
      await this.client.query(`DROP SCHEMA IF EXISTS ${qualified(this.catalog, name)} CASCADE`);
      await rm(dir, { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }

  /** The Parquet files this instance's landings hold now (none between queries). */
  async files(): Promise<string[]> {
    const out: string[] = [];
    for (const q of await readdir(this.dir).catch(() => [] as string[])) {
      for (const t of await readdir(join(this.dir, q)).catch(() => [] as string[])) {
        for (const f of await readdir(join(this.dir, q, t)).catch(() => [] as string[])) if (f.endsWith('.parquet')) out.push(join(this.dir, q, t, f));
      }
    }
    return out;
  }

  private async remove(): Promise<void> {
    if (this.ready === undefined) return;
    await this.client.query(`DROP SCHEMA IF EXISTS ${qualified(this.catalog, this.instance)} CASCADE`).catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Stop the heartbeat; the area goes now, or when the last open query releases its landing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    await this.ready?.catch(() => undefined);
    if (this.open === 0) await this.remove();
  }
}
