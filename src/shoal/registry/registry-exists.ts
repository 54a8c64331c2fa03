/**
 * Whether the registry a URL names holds a catalog — without creating or writing anything, so a
 * read command (`shoal query`) can decide between reading the registry and building its catalog
 * in memory. A registry "holds a catalog" once something was written to it (epoch > 0); a missing
 * SQLite file, a database without the registry tables, or a registry only ever opened (e.g. by
 * `shoal token create`) does not. An unreachable database is REGISTRY_UNAVAILABLE, never "absent":
 * a fleet's registry that is down must not silently be replaced by the file.
 */
import { existsSync } from 'node:fs';
import { openSqlClient } from '../../core/sql/open-sql-client.js';
import { parseSqlUrl, redactUrl } from '../../core/sql/sql-url.js';
import { ShoalError } from '../errors.js';
import { registryFailure } from './registry-unavailable.js';

export async function registryHoldsCatalog(url: string, baseDir: string): Promise<boolean> {
  let target;
  try {
    target = parseSqlUrl(url, baseDir);
  } catch (e) {
    throw new ShoalError('REGISTRY_URL', `control_plane.tenant_url: ${(e as Error).message}`, { where: 'control_plane.tenant_url' });
  }
  if (target.dialect === 'sqlite' && (target.path === ':memory:' || !existsSync(target.path))) return false;
  let client;
  try {
    client = await openSqlClient(url, { baseDir, max: 1 });
  } catch (e) {
    throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot open the registry at ${redactUrl(url)}: ${(e as Error).message}`, {
      where: 'control_plane.tenant_url',
      hint: 'check that the database is reachable and the URL is right',
      cause: e,
    });
  }
  try {
    const present = client.dialect === 'postgres'
      ? await client.query<{ t: string | null }>("SELECT to_regclass('config_epoch')::text AS t")
      : await client.query<{ t: string | null }>("SELECT name AS t FROM sqlite_master WHERE type = 'table' AND name = 'config_epoch'");
    if (!present[0]?.t) return false;
    const rows = await client.query<{ epoch: number | string }>('SELECT epoch FROM config_epoch WHERE id = 1');
    return Number(rows[0]?.epoch ?? 0) > 0;
  } catch (e) {
    throw registryFailure(e, url);
  } finally {
    await client.close().catch(() => undefined);
  }
}
