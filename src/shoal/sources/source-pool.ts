/**
 * One driver per source, opened on first use and replaced when the source's connection fields
 * change (a rotated password, a moved host). Holds pools only: nothing durable.
 */
import { ShoalError } from '../errors.js';
import { MysqlSource } from './mysql-source.js';
import { PostgresSource } from './postgres-source.js';
import type { SourceConnection, SourceDialect, SourceDriver, SourceLimits } from './source-driver.js';
import { SqliteSource } from './sqlite-source.js';

function fingerprint(dialect: SourceDialect, c: SourceConnection): string {
  return JSON.stringify([dialect, c.host, c.port, c.database, c.username, c.password, c.path]);
}

/** Fingerprints by connection object (a catalog's source configs are not mutated): `driver` runs on every direct-route request. */
const fingerprints = new WeakMap<SourceConnection, { readonly dialect: SourceDialect; readonly fp: string }>();
function fingerprintOf(dialect: SourceDialect, c: SourceConnection): string {
  const held = fingerprints.get(c);
  if (held?.dialect === dialect) return held.fp;
  const fp = fingerprint(dialect, c);
  fingerprints.set(c, { dialect, fp });
  return fp;
}

export class SourcePool {
  private readonly drivers = new Map<string, { fingerprint: string; driver: SourceDriver }>();

  constructor(
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
    private readonly limits: SourceLimits = {},
  ) {}

  /** The driver for `conn`, (re)opened if its connection fields changed. */
  driver(dialect: SourceDialect, conn: SourceConnection): SourceDriver {
    const fp = fingerprintOf(dialect, conn);
    const held = this.drivers.get(conn.id);
    if (held !== undefined && held.fingerprint === fp) return held.driver;
    if (held !== undefined) void held.driver.close().catch(() => undefined);
    const driver = open(dialect, conn, this.env, this.limits);
    this.drivers.set(conn.id, { fingerprint: fp, driver });
    return driver;
  }

  /** Close and forget drivers for sources not in `keep`. */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    for (const [id, held] of [...this.drivers]) {
      if (!keep.has(id)) {
        this.drivers.delete(id);
        await held.driver.close().catch(() => undefined);
      }
    }
  }

  async closeAll(): Promise<void> {
    await this.retain(new Set());
  }
}

function open(dialect: SourceDialect, conn: SourceConnection, env: Readonly<Record<string, string | undefined>>, limits: SourceLimits): SourceDriver {
  switch (dialect) {
    case 'postgresql':
      return new PostgresSource(conn, env, limits);
    case 'mysql':
      return new MysqlSource(conn, env, limits);
    case 'sqlite':
      return new SqliteSource(conn, limits);
    default:
      throw new ShoalError('SOURCE_TYPE_UNSUPPORTED', `no driver for dialect ${String(dialect)}`, { where: `sources.${conn.id}` });
  }
}
