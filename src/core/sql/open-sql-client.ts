/** Open a SqlClient for a database URL (see ./sql-url.ts for the accepted forms). */
import { openPostgresClient, type PostgresClientOptions } from './postgres-client.js';
import type { SqlClient } from './sql-client.js';
import { openSqliteClient } from './sqlite-client.js';
import { parseSqlUrl } from './sql-url.js';

export interface OpenSqlClientOptions extends PostgresClientOptions {
  /** Directory that `sqlite:///relative.db` is relative to (default: the working directory). */
  readonly baseDir?: string;
  /** SQLite: fail instead of creating a missing file (a handle that must open an existing database). */
  readonly mustExist?: boolean;
}

export async function openSqlClient(url: string, options: OpenSqlClientOptions = {}): Promise<SqlClient> {
  const target = parseSqlUrl(url, options.baseDir);
  return target.dialect === 'sqlite' ? openSqliteClient(target.path, { mustExist: options.mustExist ?? false }) : openPostgresClient(target.url, options);
}
