/**
 * The deployment identity: an id minted once, when a registry is first opened (a new registry, or
 * an existing one on its first open by a shoal that knows about it), and stored in the registry
 * itself, so every instance of one deployment reads the same id and two deployments never do —
 * even when they share a Redis and register the same table names. Caches key on it.
 *
 * Its own one-row table, created if missing (additive: no layout-version change).
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../core/sql/sql-client.js';
import { ShoalError } from '../errors.js';

/** What a deployment id looks like (a UUID as minted; checked when read back). */
const DEPLOYMENT_ID = /^[A-Za-z0-9-]{8,64}$/;

/** Read the registry's deployment id, minting and storing it first when it has none. */
export async function ensureDeploymentId(client: SqlClient): Promise<string> {
  return client.transaction(async (tx) => {
    await tx.exec('CREATE TABLE IF NOT EXISTS registry_deployment (id INTEGER PRIMARY KEY CHECK (id = 1), deployment_id TEXT NOT NULL)');
    // concurrent first opens race on the primary key: one insert wins, every instance reads it back
    await tx.run('INSERT INTO registry_deployment (id, deployment_id) VALUES (1, ?) ON CONFLICT (id) DO NOTHING', [randomUUID()]);
    const rows = await tx.query<{ deployment_id: string }>('SELECT deployment_id FROM registry_deployment WHERE id = 1');
    const id = rows[0]?.deployment_id;
    if (typeof id !== 'string' || !DEPLOYMENT_ID.test(id)) {
      throw new ShoalError('REGISTRY_CORRUPT', 'the registry_deployment row is missing or malformed', {
        hint: 'restore the registry database; it was edited by hand',
      });
    }
    return id;
  });
}
