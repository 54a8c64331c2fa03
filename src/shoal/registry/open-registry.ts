/**
 * Open the control-plane registry named by a URL, as upstream writes them: `sqlite:///relative.db`,
 * `sqlite:////absolute/path.db`, `postgresql://…` or `postgres://…`. Creates the tables if missing.
 */
import { isCodedError } from '../../core/errors.js';
import { openSqlClient } from '../../core/sql/open-sql-client.js';
import { redactUrl } from '../../core/sql/sql-url.js';
import { ShoalError } from '../errors.js';
import { ensureDeploymentId } from './deployment-id.js';
import { captureIdentity, type RegistryIdentity } from './registry-identity.js';
import type { Registry } from './registry.js';
import { migrateRegistry } from './registry-schema.js';
import { SqlRegistry } from './sql-registry.js';

export interface OpenRegistryOptions {
  /** What `sqlite:///relative.db` is relative to (default: the working directory). */
  readonly baseDir?: string;
  /** Errors of idle PostgreSQL connections (never thrown; default: ignored). */
  readonly onBackgroundError?: (e: Error) => void;
}

export async function openRegistry(url: string, options: OpenRegistryOptions = {}): Promise<Registry> {
  let client;
  try {
    client = await openSqlClient(url, {
      ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
      ...(options.onBackgroundError === undefined ? {} : { onBackgroundError: options.onBackgroundError }),
      max: 4,
    });
  } catch (e) {
    if (isCodedError(e) && (e.code === 'SQL_URL_INVALID' || e.code === 'SQL_URL_UNSUPPORTED')) {
      throw new ShoalError('REGISTRY_URL', `control_plane.tenant_url: ${e.message}`, { where: 'control_plane.tenant_url', ...(e.hint ? { hint: e.hint } : {}) });
    }
    throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot open the registry at ${redactUrl(url)}: ${(e as Error).message}`, {
      where: 'control_plane.tenant_url',
      hint: 'check that the database is reachable and the URL is right',
      cause: e,
    });
  }
  let identity: RegistryIdentity;
  try {
    await migrateRegistry(client);
    identity = captureIdentity(url, await ensureDeploymentId(client), options.baseDir);
  } catch (e) {
    await client.close().catch(() => undefined);
    if (e instanceof ShoalError) throw e;
    throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot prepare the registry tables at ${redactUrl(url)}: ${(e as Error).message}`, {
      hint: 'the registry user needs CREATE on the database (or create the tables once with a privileged user)',
      cause: e,
    });
  }
  return new SqlRegistry(client, redactUrl(url), identity);
}
