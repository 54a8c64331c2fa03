/**
 * The CREATE CATALOG statements the Trino engine issues (catalog.management=dynamic):
 * - a hive catalog per source catalog name over the shared scratch area (file metastore, local
 *   file system), holding the tables of file and landed sources as Parquet;
 * - for `attach: true` sources on a deployment with the plugin, Trino's own postgresql/mysql
 *   connector, with the password resolved now (never stored by shoal, never logged).
 */
import { resolveSecret } from '../../config/secret.js';
import { ShoalError } from '../../errors.js';
import type { CatalogEntry } from '../catalog-entry.js';
import type { TrinoConnectorName } from '../reachability.js';
import { ident, literal } from './trino-sql.js';

function withClause(props: Readonly<Record<string, string>>): string {
  return Object.entries(props).map(([k, v]) => `${ident(k)} = ${literal(v)}`).join(', ');
}

/** The hive catalog over `scratchDir`: its metastore lives at `<scratchDir>/metastore/<catalog>`. */
export function hiveCatalogStatement(catalog: string, scratchDir: string): string {
  return `CREATE CATALOG ${ident(catalog)} USING hive WITH (${withClause({
    'hive.metastore': 'file',
    'hive.metastore.catalog.dir': `local:///metastore/${catalog}`,
    'fs.native-local.enabled': 'true',
    'local.location': scratchDir,
    // DuckDB writes microsecond timestamps; the default (milliseconds) would round them
    'hive.timestamp-precision': 'MICROSECONDS',
  })})`;
}

/** A statement that carries a secret: `text` must never be logged or echoed in an error. */
export interface SecretStatement {
  readonly text: string;
  /** The same statement with the password replaced by `'***'`, for reports and tests. */
  readonly redacted: string;
}

/** CREATE CATALOG for Trino's own connector to `entry`'s source, the password resolved from `env` now. */
export function connectorCatalogStatement(entry: CatalogEntry, connector: TrinoConnectorName, env: Readonly<Record<string, string | undefined>>): SecretStatement {
  const s = entry.source;
  if (s.host === undefined || s.host === '') {
    throw new ShoalError('SOURCE_CONFIG_INVALID', `${s.type} source "${s.id}" has no host`, { where: `sources.${s.id}.host`, hint: 'set host (and port)' });
  }
  const port = s.port !== undefined && s.port !== 0 ? s.port : connector === 'postgresql' ? 5432 : 3306;
  // Trino's postgresql connector reads one database (in the URL); its mysql connector sees every database as a schema
  const url = connector === 'postgresql' ? `jdbc:postgresql://${s.host}:${port}/${s.database ?? ''}` : `jdbc:mysql://${s.host}:${port}`;
  const props: Record<string, string> = { 'connection-url': url };
  if (s.username !== undefined && s.username !== '') props['connection-user'] = s.username;
  const password = s.password === undefined ? undefined : resolveSecret(s.password, env, `sources.${s.id}.password`);
  const head = `CREATE CATALOG ${ident(entry.catalog)} USING ${connector} WITH (${withClause(props)}`;
  if (password === undefined) return { text: `${head})`, redacted: `${head})` };
  return {
    text: `${head}, ${ident('connection-password')} = ${literal(password)})`,
    redacted: `${head}, ${ident('connection-password')} = '***')`,
  };
}
