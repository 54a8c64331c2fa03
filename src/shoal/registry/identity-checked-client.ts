/**
 * Another handle on the registry's database for the stores that live beside the catalog (users and
 * tokens, the audit log, the MV refresh catalog), held to the same identity as the registry itself
 * (./registry-identity.ts): every write runs in a transaction that first checks the registry is
 * still the one opened, so a deleted or replaced registry refuses it with REGISTRY_REPLACED (503)
 * instead of writing into a file nobody will read again. Opening never creates a database: a
 * SQLite file that is gone is REGISTRY_REPLACED, not a fresh empty registry.
 *
 * Reads (`SELECT …` outside a write transaction, read-only transactions) are not checked: they
 * change nothing, and the epoch poll already reports a replaced registry to /health.
 */
import type { SqlClient, SqlExecutor, SqlRow, SqlValue, TransactionOptions } from '../../core/sql/sql-client.js';
import { openSqlClient } from '../../core/sql/open-sql-client.js';
import { ShoalError } from '../errors.js';
import { verifyFile, verifyIdentity, type RegistryIdentity } from './registry-identity.js';
import { registryFailure } from './registry-unavailable.js';

export interface CheckedClientOptions {
  readonly baseDir?: string;
  /** PostgreSQL pool size. */
  readonly max?: number;
  readonly onBackgroundError?: (e: Error) => void;
}

/** Open the database of the registry whose identity is `identity` (opened at `url`), writes checked. */
export async function openIdentityCheckedClient(url: string, identity: RegistryIdentity, options: CheckedClientOptions = {}): Promise<SqlClient> {
  if (identity.inMemory) return openSqlClient(url, options);
  let client: SqlClient;
  try {
    client = await openSqlClient(url, {
      mustExist: true,
      ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
      ...(options.max === undefined ? {} : { max: options.max }),
      ...(options.onBackgroundError === undefined ? {} : { onBackgroundError: options.onBackgroundError }),
    });
  } catch (e) {
    verifyFile(identity); // a SQLite file deleted since the registry was opened: say so, rather than "cannot open"
    throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot open the registry at ${identity.url}: ${(e as Error).message}`, {
      where: 'control_plane.tenant_url',
      hint: 'check that the registry database is reachable and the URL is right',
      cause: e,
    });
  }
  try {
    await verifyIdentity(client, identity);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw registryFailure(e, identity.url);
  }
  return new IdentityCheckedClient(client, identity);
}

/** A statement that only reads (the fenced lease writes with `UPDATE … RETURNING` through `query`). */
const READ_ONLY = /^\s*SELECT\b/i;

class IdentityCheckedClient implements SqlClient {
  readonly dialect: SqlClient['dialect'];

  constructor(
    private readonly inner: SqlClient,
    private readonly identity: RegistryIdentity,
  ) {
    this.dialect = inner.dialect;
  }

  query<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
    return READ_ONLY.test(sql) ? this.inner.query<R>(sql, params) : this.write((tx) => tx.query<R>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<{ readonly rowCount: number }> {
    return this.write((tx) => tx.run(sql, params));
  }

  exec(script: string): Promise<void> {
    return this.write((tx) => tx.exec(script));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return options.readOnly ? this.inner.transaction(fn, options) : this.write(fn);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** In the write transaction (SQLite holds the write lock from BEGIN IMMEDIATE): nothing is written into another registry. */
  private write<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.inner.transaction(async (tx) => {
      await verifyIdentity(tx, this.identity);
      return fn(tx);
    });
  }
}
