/**
 * Live ATTACH through DuckDB's scanner extensions (federation-fleet.md §4.7), chosen by
 * `attach: true` on a source, for deployments that can install them:
 * `INSTALL x; LOAD x; ATTACH '<dsn>' AS "_src_<catalog>" (TYPE x, READ_ONLY)`.
 */
import { resolve } from 'node:path';
import type { CatalogEntry } from '../../catalog-entry.js';
import { resolveSecret } from '../../../config/secret.js';
import { ShoalError } from '../../../errors.js';
import { ident, literal, qualified } from '../duckdb-sql.js';
import type { AttachConnector, AttachPlan } from './connector.js';

/** A libpq-style `key=value` pair, quoted when it holds spaces, quotes or backslashes. */
function kv(key: string, value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const s = String(value);
  return /[\s'\\]/.test(s) ? `${key}='${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : `${key}=${s}`;
}

/** The connection string DuckDB's extension expects for this source (secret resolved). */
export function attachDsn(entry: CatalogEntry, env: Readonly<Record<string, string | undefined>>): string {
  const s = entry.source;
  const password = s.password === undefined ? undefined : resolveSecret(s.password, env, `sources.${s.id}.password`);
  const port = s.port !== undefined && s.port !== 0 ? s.port : undefined;
  switch (s.type) {
    case 'postgresql':
      return [kv('host', s.host), kv('port', port), kv('dbname', s.database), kv('user', s.username), kv('password', password)]
        .filter((x) => x !== undefined)
        .join(' ');
    case 'mysql':
      return [kv('host', s.host), kv('port', port), kv('database', s.database), kv('user', s.username), kv('password', password)]
        .filter((x) => x !== undefined)
        .join(' ');
    case 'sqlite':
      if (s.path === undefined || s.path === '') {
        throw new ShoalError('SOURCE_CONFIG_INVALID', `sqlite source "${s.id}" has no path`, { where: `sources.${s.id}.path`, hint: 'set path to the database file' });
      }
      return resolve(s.path);
    default:
      throw new ShoalError('SOURCE_TYPE_UNSUPPORTED', `source "${s.id}" of type ${s.type} cannot be attached`, {
        where: `sources.${s.id}.attach`,
        hint: 'attach is for postgresql, mysql and sqlite sources; remove attach: true',
      });
  }
}

export const attachConnector: AttachConnector = Object.freeze({
  kind: 'attach' as const,
  plan(entry: CatalogEntry, env: Readonly<Record<string, string | undefined>>): AttachPlan {
    const extension = entry.source.type === 'postgresql' ? 'postgres' : entry.source.type === 'mysql' ? 'mysql' : 'sqlite';
    const alias = `_src_${entry.catalog}`;
    const dsn = attachDsn(entry, env);
    return {
      extension,
      alias,
      statements: [`INSTALL ${extension}`, `LOAD ${extension}`, `ATTACH IF NOT EXISTS ${literal(dsn)} AS ${ident(alias)} (TYPE ${extension}, READ_ONLY)`],
      viewBody: `SELECT * FROM ${qualified(alias, entry.remoteSchema, entry.table)}`,
    };
  },
});
