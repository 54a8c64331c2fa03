/**
 * The DuckDB engine's catalog: the projection of registry entries into views. Each entry is a view
 * under its physical name `"<catalog>"."<schema>"."<table>"` (the catalog is an `ATTACH ':memory:'`
 * database) and `memory."<domain>"."<alias>"`, a view over the physical one. File sources are views
 * over `read_csv_auto` / `read_parquet` / `read_json_auto`; attached sources are views over the
 * `_src_<catalog>` database; landed sources are views over a connection-local temp table
 * (./query-landing.ts). All DDL runs serialised on the admin connection.
 */
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { ShoalError } from '../../errors.js';
import type { SourcePool } from '../../sources/source-pool.js';
import { entryFingerprint, type CatalogEntry } from '../catalog-entry.js';
import type { ReconcileReport } from '../engine.js';
import { engineError } from './duckdb-errors.js';
import type { DuckDbConnectors } from './duckdb-connectors.js';
import { RESIDENT_CATALOG } from './duckdb-resident-tables.js';
import { ident, qualified } from './duckdb-sql.js';
import { landingTableName } from './query-landing.js';

/** Database names DuckDB owns; a source id may not map onto one. */
const RESERVED_CATALOGS = new Set(['memory', 'temp', 'system', 'main', RESIDENT_CATALOG]);
/** Schemas of the main database that are not domains. */
const BUILTIN_SCHEMAS = new Set(['main', 'information_schema', 'pg_catalog']);

interface Projected {
  readonly entry: CatalogEntry;
  readonly fingerprint: string;
}

export class DuckDbCatalog {
  private readonly projected = new Map<string, Projected>();
  private readonly failed = new Map<string, { entry: CatalogEntry; error: ShoalError }>();
  private readonly byLandingTable = new Map<string, CatalogEntry>();
  private ddl: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly admin: DuckDBConnection,
    private readonly connectors: DuckDbConnectors,
    private readonly pool: SourcePool,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly installExtensions: boolean,
  ) {}

  /** Serialise catalog DDL (reconcile and on-demand re-projection) on the admin connection. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.ddl.then(work, work);
    this.ddl = run.catch(() => undefined);
    return run;
  }

  /**
   * Make the catalog exactly the projection of `entries` (see Engine.reconcile); serialised with
   * any other DDL.
   */
  reconcile(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    return this.exclusive(() => this.reconcileNow(entries));
  }

  /** Project one entry again (it failed, or its view went missing); throws the projection's error if it still fails. */
  reproject(entry: CatalogEntry): Promise<void> {
    return this.exclusive(() => this.project(entry));
  }

  /** Resolves once no DDL is running (closing the engine waits for it). */
  async idle(): Promise<void> {
    await this.ddl.catch(() => undefined);
  }

  /** Why an entry failed to project, if it did. */
  failure(key: string): ShoalError | undefined {
    return this.failed.get(key)?.error;
  }

  /** The landed entry whose view reads the temp table `name`. */
  entryForLandingTable(name: string): CatalogEntry | undefined {
    return this.byLandingTable.get(name);
  }

  /** All entries the engine knows, projected or failed. */
  known(): CatalogEntry[] {
    return [...[...this.projected.values()].map((p) => p.entry), ...[...this.failed.values()].map((f) => f.entry)];
  }

  private validate(entries: readonly CatalogEntry[]): Map<string, CatalogEntry> {
    const desired = new Map<string, CatalogEntry>();
    const domainNames = new Map<string, string>();
    const catalogs = new Set(entries.map((e) => e.catalog));
    for (const e of entries) {
      if (RESERVED_CATALOGS.has(e.catalog.toLowerCase())) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `source id "${e.source.id}" maps to the reserved catalog name "${e.catalog}"`, {
          where: `sources.${e.source.id}.id`,
          hint: `rename the source (not ${[...RESERVED_CATALOGS].join(', ')})`,
        });
      }
      if (catalogs.has(e.domain) || BUILTIN_SCHEMAS.has(e.domain.toLowerCase())) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `domain "${e.domain}" has the same name as a source catalog or a built-in schema`, {
          where: `domains.${e.domain}`,
          hint: 'rename the domain or the source so that "<domain>.<table>" is unambiguous',
        });
      }
      if (desired.has(e.key)) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `two tables are both registered as ${e.key}`, {
          where: `tables.${e.table}`,
          hint: 'register each source table once',
        });
      }
      const domainName = `${e.domain}.${e.alias}`;
      const other = domainNames.get(domainName);
      if (other !== undefined) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `tables ${other} and ${e.key} are both exposed as ${domainName}`, {
          where: `tables.${e.table}.alias`,
          hint: 'give one of them an alias',
        });
      }
      domainNames.set(domainName, e.key);
      desired.set(e.key, e);
    }
    return desired;
  }

  private async rows(sql: string): Promise<DuckDBValue[][]> {
    return (await this.admin.runAndReadAll(sql)).getRows();
  }

  private async reconcileNow(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    const desired = this.validate(entries);
    const created: string[] = [];
    const dropped: string[] = [];
    const unchanged: string[] = [];
    const failedOut: { entry: string; code: string; message: string }[] = [];

    // What the engine holds right now, whatever we believe: views may have been dropped behind our back.
    const views = new Set((await this.rows(`SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal`)).map((r) => r.join('.')));

    for (const [key, p] of [...this.projected]) {
      if (!desired.has(key)) {
        await this.dropViews(p.entry);
        this.projected.delete(key);
        dropped.push(key);
      }
    }
    for (const key of [...this.failed.keys()]) if (!desired.has(key)) this.failed.delete(key);

    for (const entry of desired.values()) {
      const held = this.projected.get(entry.key);
      const present =
        views.has(`${entry.catalog}.${entry.schema}.${entry.table}`) && views.has(`memory.${entry.domain}.${entry.alias}`);
      if (held !== undefined && held.fingerprint === entryFingerprint(entry) && present) {
        unchanged.push(entry.key);
        continue;
      }
      if (held !== undefined) await this.dropViews(held.entry);
      try {
        await this.project(entry);
        created.push(entry.key);
      } catch (e) {
        const err = e instanceof ShoalError ? e : engineError(e);
        failedOut.push({ entry: entry.key, code: err.code, message: err.message });
      }
    }
    await this.collectGarbage(desired);
    await this.pool.retain(new Set([...desired.values()].map((e) => e.source.id)));
    return { created, dropped, unchanged, failed: failedOut };
  }

  private async dropViews(entry: CatalogEntry): Promise<void> {
    await this.admin.run(`DROP VIEW IF EXISTS ${qualified('memory', entry.domain, entry.alias)}`).catch(() => undefined);
    await this.admin.run(`DROP VIEW IF EXISTS ${qualified(entry.catalog, entry.schema, entry.table)}`).catch(() => undefined);
    this.byLandingTable.delete(landingTableName(entry));
  }

  /** Create (or replace) both views of one entry. On failure the entry is remembered as failed. */
  private async project(entry: CatalogEntry): Promise<void> {
    this.projected.delete(entry.key);
    try {
      const connector = this.connectors.for(entry);
      let body: string;
      if (connector.kind === 'scan') {
        body = connector.viewBody(entry);
      } else if (connector.kind === 'attach') {
        const plan = connector.plan(entry, this.env);
        const statements = this.installExtensions ? plan.statements : plan.statements.filter((st) => !st.startsWith('INSTALL '));
        await this.attach(entry, plan.extension, plan.alias, statements);
        body = plan.viewBody;
      } else {
        body = `SELECT * FROM temp.main.${ident(landingTableName(entry))}`;
      }
      await this.admin.run(`ATTACH IF NOT EXISTS ':memory:' AS ${ident(entry.catalog)}`);
      await this.admin.run(`CREATE SCHEMA IF NOT EXISTS ${qualified(entry.catalog, entry.schema)}`);
      await this.admin.run(`CREATE SCHEMA IF NOT EXISTS ${qualified('memory', entry.domain)}`);
      const physical = qualified(entry.catalog, entry.schema, entry.table);
      if (connector.kind === 'land') {
        // The view binds at creation: give it a placeholder temp table on the admin connection.
        const placeholder = `temp.main.${ident(landingTableName(entry))}`;
        await this.admin.run(`CREATE OR REPLACE TEMP TABLE ${ident(landingTableName(entry))} ("_shoal_placeholder" INTEGER)`);
        try {
          await this.admin.run(`CREATE OR REPLACE VIEW ${physical} AS ${body}`);
          await this.admin.run(`CREATE OR REPLACE VIEW ${qualified('memory', entry.domain, entry.alias)} AS SELECT * FROM ${physical}`);
        } finally {
          await this.admin.run(`DROP TABLE IF EXISTS ${placeholder}`);
        }
        this.byLandingTable.set(landingTableName(entry), entry);
      } else {
        try {
          await this.admin.run(`CREATE OR REPLACE VIEW ${physical} AS ${body}`);
        } catch (e) {
          if (connector.kind === 'scan') {
            throw new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" cannot be read: the file for ${entry.key} is missing or unreadable`, {
              where: `sources.${entry.source.id}.path`,
              hint: 'check that the file exists and is readable by shoal',
              cause: e,
            });
          }
          throw e;
        }
        await this.admin.run(`CREATE OR REPLACE VIEW ${qualified('memory', entry.domain, entry.alias)} AS SELECT * FROM ${physical}`);
      }
      this.projected.set(entry.key, { entry, fingerprint: entryFingerprint(entry) });
      this.failed.delete(entry.key);
    } catch (e) {
      const err = e instanceof ShoalError ? e : engineError(e);
      this.failed.set(entry.key, { entry, error: err });
      throw err;
    }
  }

  private async attach(entry: CatalogEntry, extension: string, alias: string, statements: readonly string[]): Promise<void> {
    const attached = (await this.rows(`SELECT database_name FROM duckdb_databases()`)).some((r) => r[0] === alias);
    if (attached) return;
    for (const [i, stmt] of statements.entries()) {
      try {
        await this.admin.run(stmt);
      } catch (e) {
        const isAttach = i === statements.length - 1;
        // Never echo the ATTACH statement or its error text: the DSN carries the password.
        throw isAttach
          ? new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" could not be attached through the DuckDB ${extension} extension`, {
              where: `sources.${entry.source.id}`,
              hint: 'check that the source is reachable and its credentials',
              cause: undefined,
            })
          : new ShoalError('ENGINE_EXTENSION_UNAVAILABLE', `source "${entry.source.id}" has attach: true, but the DuckDB "${extension}" extension cannot be loaded on this host`, {
              where: `sources.${entry.source.id}.attach`,
              hint: `install the extension where shoal runs (INSTALL ${extension} with network access, or copy it into the DuckDB extension directory), or set attach: false to land the source through its Node driver`,
              cause: e,
            });
      }
    }
  }

  /** Remove what no desired entry accounts for: stray views, schemas, catalogs and attachments. */
  private async collectGarbage(desired: ReadonlyMap<string, CatalogEntry>): Promise<void> {
    const entries = [...desired.values()];
    const wantViews = new Set(entries.flatMap((e) => [`${e.catalog}.${e.schema}.${e.table}`, `memory.${e.domain}.${e.alias}`]));
    const wantSchemas = new Set(entries.flatMap((e) => [`${e.catalog}.${e.schema}`, `memory.${e.domain}`]));
    const wantDatabases = new Set(entries.flatMap((e) => (e.mechanism === 'attach' ? [e.catalog, `_src_${e.catalog}`] : [e.catalog])));
    const databases = (await this.rows(`SELECT database_name FROM duckdb_databases() WHERE NOT internal`)).map((r) => String(r[0]));
    for (const db of databases) {
      if (!RESERVED_CATALOGS.has(db) && !wantDatabases.has(db)) await this.admin.run(`DETACH DATABASE IF EXISTS ${ident(db)}`);
    }
    for (const r of await this.rows(`SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal`)) {
      const [db, schema, view] = r.map(String) as [string, string, string];
      if (db.startsWith('_src_') || db === 'temp') continue;
      if (!wantViews.has(`${db}.${schema}.${view}`)) await this.admin.run(`DROP VIEW IF EXISTS ${qualified(db, schema, view)}`);
    }
    for (const r of await this.rows(`SELECT database_name, schema_name FROM duckdb_schemas() WHERE NOT internal`)) {
      const [db, schema] = r.map(String) as [string, string];
      if (db.startsWith('_src_') || db === 'temp' || db === 'system') continue;
      if (db === 'memory' && BUILTIN_SCHEMAS.has(schema)) continue;
      if (db !== 'memory' && schema === 'main') continue;
      if (!wantSchemas.has(`${db}.${schema}`)) await this.admin.run(`DROP SCHEMA IF EXISTS ${qualified(db, schema)} CASCADE`);
    }
    // Tables never belong in the catalog (S1): a table in a source catalog or a domain schema goes.
    for (const r of await this.rows(`SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary`)) {
      const [db, schema, table] = r.map(String) as [string, string, string];
      const managed = db === 'memory' ? !BUILTIN_SCHEMAS.has(schema) : !db.startsWith('_src_') && !RESERVED_CATALOGS.has(db);
      if (managed) await this.admin.run(`DROP TABLE IF EXISTS ${qualified(db, schema, table)}`);
    }
  }

  /**
   * Which known entry a DuckDB "does not exist" error is about, if any: one that failed to
   * project, or one whose view was dropped behind the engine's back.
   */
  missingEntryIn(message: string): CatalogEntry | undefined {
    if (!/does not exist/.test(message)) return undefined;
    const failed = [...[...this.failed.values()].map((f) => f.entry), ...[...this.projected.values()].map((p) => p.entry)];
    // DuckDB words it differently for a missing catalog, schema or table: most specific first.
    const tests: ((e: CatalogEntry) => boolean)[] = [
      (e) => message.includes(`"${e.catalog}.${e.schema}.${e.table}"`) || message.includes(`"${e.domain}.${e.alias}"`),
      (e) => message.includes(`Catalog "${e.catalog}" does not exist`) || message.includes(`schema "${e.domain}" does not exist`),
      (e) => message.includes(`name ${e.alias} does not exist`) || message.includes(`name ${e.table} does not exist`),
    ];
    for (const test of tests) {
      const hit = failed.find(test);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
}
