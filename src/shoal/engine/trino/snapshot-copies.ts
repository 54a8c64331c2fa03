/**
 * MV snapshots on Trino: Trino nodes may not see the snapshot store, and a hive table is a
 * directory, so each published snapshot file is copied once into the scratch area and declared
 * as a table of the shared MV catalog:
 *
 *   <scratch>/mv/<digest>.source         which file the copy is of (and on which host), written first
 *   <scratch>/mv/<digest>/data.parquet   the copy
 *   <mv catalog>.snapshots.s_<digest>    the table over it
 *
 * `<digest>` is a digest of the snapshot's path. Snapshot files are immutable and their names
 * never reused, so the copy and table are shared by every instance over the scratch area: writing
 * the same bytes again, or a peer's CREATE first, changes nothing a reader sees.
 *
 * Garbage collection (after the store's own, on every instance's MV tick) removes a copy once its
 * snapshot file is gone from the store, and only when this instance has seen it gone for a whole
 * grace period and the copy is older than that. The store removes a file only after it has been
 * unreferenced for a grace period, so a query of any instance that resolved the snapshot while it
 * was published has had two grace periods to finish before its copy goes. A copy whose file is
 * on another host's local store (a `distributed` MV) is judged only by instances on that host.
 */
import { createHash } from 'node:crypto';
import { access, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { SnapshotReader } from '../engine.js';
import type { ParquetWriter } from './parquet-writer.js';
import type { TrinoClient } from './trino-client.js';
import { ident, literal, qualified } from './trino-sql.js';

const SCHEMA = 'snapshots';
const DIGEST = /^[0-9a-f]{24}$/;
const SOURCE_SUFFIX = '.source';

interface Marker {
  readonly source: string;
  readonly host: string;
}

const exists = (path: string) => access(path).then(() => true, () => false);

export interface SnapshotCopiesContext {
  readonly client: TrinoClient;
  readonly writer: ParquetWriter;
  readonly scratch: string;
  /** The shared hive catalog the tables live in, and how to make sure it exists. */
  readonly catalog: string;
  readonly ensureCatalog: (name: string) => Promise<void>;
  /** Runs DDL one statement group at a time (the engine's DDL queue). */
  readonly exclusive: <T>(work: () => Promise<T>) => Promise<T>;
  readonly checkOpen: () => void;
  /** Epoch ms. */
  readonly now: () => number;
}

export class SnapshotCopies implements SnapshotReader {
  private readonly tables = new Map<string, Promise<string>>();
  /** When this instance first saw each copy's snapshot file gone. */
  private readonly goneSince = new Map<string, number>();
  private readonly root: string;

  constructor(private readonly ctx: SnapshotCopiesContext) {
    this.root = join(ctx.scratch, 'mv');
  }

  async body(path: string): Promise<string> {
    return `SELECT * FROM ${await this.table(path)}`;
  }

  /** The table of one snapshot file (mounted once per engine). */
  private table(path: string): Promise<string> {
    this.ctx.checkOpen();
    const abs = resolve(path);
    let held = this.tables.get(abs);
    if (held === undefined) {
      held = this.ctx.exclusive(() => this.mount(abs));
      this.tables.set(abs, held);
      held.catch(() => this.tables.delete(abs));
    }
    return held;
  }

  private async mount(path: string): Promise<string> {
    const digest = createHash('sha256').update(path).digest('hex').slice(0, 24);
    // the marker first: a copy is never without one, so garbage collection can judge it
    const marker: Marker = { source: path, host: hostname() };
    await mkdir(this.root, { recursive: true });
    await writeFile(join(this.root, `${digest}${SOURCE_SUFFIX}`), JSON.stringify(marker));
    const columns = await this.ctx.writer.writeSnapshot(path, join(this.root, digest, 'data.parquet'));
    await this.ctx.ensureCatalog(this.ctx.catalog);
    await this.ctx.client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified(this.ctx.catalog, SCHEMA)}`);
    const name = qualified(this.ctx.catalog, SCHEMA, `s_${digest}`);
    const defs = columns.map((c) => `${ident(c.name)} ${c.trino}`).join(', ');
    // never DROP here: a peer may be reading the table; same path, same bytes, same columns
    await this.ctx.client.query(`CREATE TABLE IF NOT EXISTS ${name} (${defs}) WITH (format = 'PARQUET', external_location = ${literal(`local:///mv/${digest}`)})`);
    return name;
  }

  /** Whether this instance can tell that the copy's snapshot file is gone (not merely out of its sight). */
  private async gone(marker: Marker | undefined): Promise<boolean> {
    if (marker === undefined) return true; // a copy with no marker (an older layout): nothing reads it by this name's path
    if (await exists(marker.source)) return false;
    // another host's file: gone only if the store it lives in is one this host sees (a shared mount)
    return marker.host === hostname() || (await exists(dirname(dirname(marker.source))));
  }

  /** Remove the copies (and tables) of snapshot files that are gone, past `graceMs` (see the file comment). The digests removed. */
  collectGarbage(options: { readonly graceMs: number }): Promise<{ readonly removed: readonly string[] }> {
    return this.ctx.exclusive(() => this.collect(options.graceMs));
  }

  private async collect(graceMs: number): Promise<{ removed: string[] }> {
    const now = this.ctx.now();
    const removed: string[] = [];
    const seen = new Set<string>();
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const digest = name.endsWith(SOURCE_SUFFIX) ? name.slice(0, -SOURCE_SUFFIX.length) : name;
      if (!DIGEST.test(digest) || seen.has(digest)) continue;
      seen.add(digest);
      const markerPath = join(this.root, `${digest}${SOURCE_SUFFIX}`);
      const marker = await readFile(markerPath, 'utf8').then((t) => JSON.parse(t) as Marker, () => undefined);
      if (!(await this.gone(marker))) {
        this.goneSince.delete(digest);
        continue;
      }
      const since = this.goneSince.get(digest) ?? now;
      this.goneSince.set(digest, since);
      const copied = await stat(join(this.root, digest)).then((s) => s.mtimeMs, () => stat(markerPath).then((s) => s.mtimeMs, () => now));
      if (now - since < graceMs || now - copied < graceMs) continue;
      await this.ctx.ensureCatalog(this.ctx.catalog);
      await this.ctx.client.query(`DROP TABLE IF EXISTS ${qualified(this.ctx.catalog, SCHEMA, `s_${digest}`)}`);
      await rm(join(this.root, digest), { recursive: true, force: true });
      await rm(markerPath, { force: true });
      if (marker !== undefined) this.tables.delete(marker.source);
      this.goneSince.delete(digest);
      removed.push(digest);
    }
    for (const d of [...this.goneSince.keys()]) if (!seen.has(d)) this.goneSince.delete(d);
    return { removed };
  }
}
