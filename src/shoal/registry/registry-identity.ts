/**
 * The identity of the registry an instance opened, checked before every write and at every epoch
 * poll: its deployment id (./deployment-id.ts), and for a SQLite file the file itself (device and
 * inode). A SQLite handle keeps writing into a file that was deleted or replaced under it — the
 * writes "succeed" into an inode nobody else will ever read, while peers open a fresh registry at
 * the path — so the path must still name the very file the handle holds. A PostgreSQL registry
 * that was dropped and created again has another deployment id (or none).
 *
 * A mismatch is REGISTRY_REPLACED (503): writes are refused, `/health` reports the registry as
 * `replaced`, and the instance keeps serving the catalog it last read until it is restarted over
 * the registry that is there now.
 */
import { statSync } from 'node:fs';
import type { SqlExecutor } from '../../core/sql/sql-client.js';
import { parseSqlUrl, redactUrl } from '../../core/sql/sql-url.js';
import { ShoalError } from '../errors.js';

export interface RegistryIdentity {
  readonly deploymentId: string;
  /** SQLite: the file the handle opened. */
  readonly file?: { readonly path: string; readonly dev: bigint; readonly ino: bigint };
  /** The URL with any password redacted (for messages). */
  readonly url: string;
  /** An in-memory SQLite registry: every handle opens a database of its own, so there is nothing to replace. */
  readonly inMemory?: true;
}

/** The identity of the registry just opened at `url`, whose deployment id is `deploymentId`. */
export function captureIdentity(url: string, deploymentId: string, baseDir?: string): RegistryIdentity {
  const target = parseSqlUrl(url, baseDir);
  if (target.dialect !== 'sqlite') return { deploymentId, url: redactUrl(url) };
  if (target.path === ':memory:') return { deploymentId, url: redactUrl(url), inMemory: true };
  const st = statSync(target.path, { bigint: true });
  return { deploymentId, url: redactUrl(url), file: { path: target.path, dev: st.dev, ino: st.ino } };
}

/** Throw REGISTRY_REPLACED unless the path of a SQLite registry still names the file it was opened as (a no-op for PostgreSQL). */
export function verifyFile(identity: RegistryIdentity): void {
  if (!identity.file) return;
  let st: { dev: bigint; ino: bigint } | undefined;
  try {
    st = statSync(identity.file.path, { bigint: true });
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOENT') throw e;
  }
  if (!st) throw replaced(identity, `the registry file ${identity.file.path} was deleted while this instance had it open`);
  if (st.dev !== identity.file.dev || st.ino !== identity.file.ino) {
    throw replaced(identity, `the registry file ${identity.file.path} was replaced by another file while this instance had it open`);
  }
}

/** Throw REGISTRY_REPLACED unless `q` reads the registry `identity` names. */
export async function verifyIdentity(q: SqlExecutor, identity: RegistryIdentity): Promise<void> {
  verifyFile(identity);
  let found: string | undefined;
  try {
    found = (await q.query<{ deployment_id: string }>('SELECT deployment_id FROM registry_deployment WHERE id = 1'))[0]?.deployment_id;
  } catch (e) {
    // the table is gone: not the registry this instance opened (an outage is reported as such by the caller)
    if (!/registry_deployment/i.test((e as Error).message)) throw e;
  }
  if (found !== identity.deploymentId) {
    throw replaced(identity, found === undefined ? `the registry at ${identity.url} has no deployment id any more` : `the registry at ${identity.url} now belongs to deployment ${found}, not ${identity.deploymentId}`);
  }
}

function replaced(identity: RegistryIdentity, message: string): ShoalError {
  return new ShoalError('REGISTRY_REPLACED', `${message}: writes are refused so that they are not lost`, {
    where: 'control_plane.tenant_url',
    hint: 'restore the registry this instance opened, or restart the instance (and its peers) over the registry that is there now',
  });
}
