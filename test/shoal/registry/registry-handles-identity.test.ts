/**
 * Every writer to the registry's database is held to the registry's identity, not only the catalog
 * handle: users and tokens, the audit log and the MV refresh catalog open their own handles, and a
 * deleted or replaced SQLite registry refuses their writes with REGISTRY_REPLACED (503) — nothing
 * lands in the deleted file, nothing in a fresh registry a peer created at the path, and no writer
 * creates a registry file of its own.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import type { AuditRecord } from '../../../src/shoal/audit/audit-record.js';
import { SqlAuditStore } from '../../../src/shoal/audit/audit-store.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { openIdentityStore } from '../../../src/shoal/registry/identity-store.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import { httpStatusFor } from '../../../src/shoal/server/error-status.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-registry-handles-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (): { dir: string; file: string; url: string } => {
  const dir = join(root, `r${++n}`);
  const file = join(dir, 'registry.db');
  return { dir, file, url: `sqlite:///${file}` };
};

const removeRegistry = (file: string) => {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
};

const refused = async (p: Promise<unknown>) => {
  const e: unknown = await p.then(() => 'accepted', (x: unknown) => x);
  expect(e).toMatchObject({ code: 'REGISTRY_REPLACED' });
  expect(httpStatusFor(e)).toBe(503);
};

/** Rows of `table` in the registry now at `url` (0 when it has no such table). */
async function count(url: string, table: string): Promise<number> {
  const c = await openSqlClient(url);
  try {
    const present = await c.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [table]);
    if (present.length === 0) return 0;
    return Number((await c.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
  } finally {
    await c.close();
  }
}

const user = (username: string) => ({ username, passwordHash: 'scrypt$1$1$1$c2FsdA==$aGFzaA==', roles: ['analyst'], vars: {}, createdAt: '2026-01-01T00:00:00Z' });
const token = (id: string) => ({ id, name: id, secretSha256: id.padEnd(64, '0'), roles: ['analyst'], vars: {}, createdBy: 'test', createdAt: '2026-01-01T00:00:00Z' });
const audit = (i: number): AuditRecord => ({
  at: 1_700_000_000_000 + i, instance: 'test:1:ab', principal: 'anonymous', role: 'analyst', method: 'POST', path: '/data/sql',
  status: 200, outcome: 'ok', sql_fingerprint: null, tables: [], route: 'engine', rows: 0, duration_ms: 1,
});

describe('the stores beside the catalog, on a deleted or replaced registry', () => {
  it('users and tokens: adding, removing and revoking are refused once the registry file is deleted; no file is created', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    const store = await openIdentityStore(url, reg.identity);
    await store.addUser(user('alice'));
    await store.addToken(token('tok_a'));
    removeRegistry(file);
    await refused(store.addUser(user('bob')));
    await refused(store.addToken(token('tok_b')));
    await refused(store.removeUser('alice'));
    await refused(store.revokeToken('tok_a', '2026-01-02T00:00:00Z'));
    expect(existsSync(file)).toBe(false);
    await store.close();
    await reg.close();
  });

  it('users and tokens: nothing reaches a fresh registry a peer created at the path', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    const store = await openIdentityStore(url, reg.identity);
    removeRegistry(file);
    const peer = await openRegistry(url);
    await refused(store.addToken(token('tok_lost')));
    await refused(store.addUser(user('lost')));
    expect(await count(url, 'auth_tokens')).toBe(0);
    expect(await count(url, 'auth_users')).toBe(0);
    await store.close();
    await reg.close();
    await peer.close();
  });

  it('opening the users and tokens of a deleted registry is refused, and creates no file', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    await reg.close();
    removeRegistry(file);
    await refused(openIdentityStore(url, reg.identity));
    expect(existsSync(file)).toBe(false);
  });

  it('the audit log: an append to a replaced registry is refused and lands nowhere', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    const store = await SqlAuditStore.open(url, reg.identity);
    await store.append([audit(1)]);
    removeRegistry(file);
    await refused(store.append([audit(2)]));
    expect(existsSync(file)).toBe(false);
    const peer = await openRegistry(url);
    await refused(store.append([audit(3)]));
    expect(await count(url, 'audit_log')).toBe(0);
    await store.close();
    await reg.close();
    await peer.close();
  });

  it('the MV refresh catalog: a refresh claim on a replaced registry is refused and writes nothing to the new one', async () => {
    const { dir, file } = fresh();
    const { config } = loadConfig(`control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    view_sql: 'SELECT region, count(*) AS n FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: n, data_type: bigint}]
roles: [{id: admin, capabilities: [admin, full_results], domain_access: ["*"]}]
`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n');
    const instance = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
    try {
      removeRegistry(file);
      await refused(instance.mvs!.refresh('sales.by_region'));
      expect(existsSync(file)).toBe(false);
      const peer = await openRegistry(`sqlite:///${file}`);
      await refused(instance.mvs!.refresh('sales.by_region', { force: true }));
      expect(await count(`sqlite:///${file}`, 'materialized_views')).toBe(0);
      expect(await count(`sqlite:///${file}`, 'mv_refresh_log')).toBe(0);
      await peer.close();
      expect(await instance.health()).toMatchObject({ status: 'degraded', dependencies: { registry: 'replaced' } });
    } finally {
      await instance.close();
    }
  });

  it('the untouched registry keeps accepting every store’s writes', async () => {
    const { url } = fresh();
    const reg = await openRegistry(url);
    const users = await openIdentityStore(url, reg.identity);
    const log = await SqlAuditStore.open(url, reg.identity);
    await users.addToken(token('tok_ok'));
    expect(await users.revokeToken('tok_ok', '2026-01-02T00:00:00Z')).toBe(true);
    await log.append([audit(1), audit(2)]);
    expect((await log.list({ limit: 10 })).length).toBe(2);
    await users.close();
    await log.close();
    await reg.close();
  });
});
