/**
 * A registry deleted or replaced under an open handle is noticed before any write lands in it
 * (src/shoal/registry/registry-identity.ts): the handle refuses writes with REGISTRY_REPLACED
 * (503), its epoch reads fail the same way (the epoch watch and /health notice), and nothing is
 * written into a file nobody will read again. The same holds for every other writer to the
 * registry's database (users and tokens, the audit log, the MV refresh catalog): none writes into
 * the deleted file or a peer's fresh registry, and none creates a registry file of its own.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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
import type { Registry } from '../../../src/shoal/registry/registry.js';
import { httpStatusFor } from '../../../src/shoal/server/error-status.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-registry-identity-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (): { dir: string; file: string; url: string } => {
  const dir = join(root, `r${++n}`);
  const file = join(dir, 'registry.db');
  return { dir, file, url: `sqlite:///${file}` };
};

const replacedError = async (p: Promise<unknown>) => {
  const e: unknown = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toMatchObject({ code: 'REGISTRY_REPLACED' });
  expect(httpStatusFor(e)).toBe(503);
  return e as Error;
};

const removeSidecars = (file: string) => {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
};

describe('the registry identity', () => {
  it('a deleted SQLite registry file refuses writes (REGISTRY_REPLACED, 503) and epoch reads', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    await reg.registerDomain({ id: 'sales' });
    unlinkSync(file);
    const e = await replacedError(reg.registerDomain({ id: 'ops' }));
    expect(e.message).toContain('deleted');
    await replacedError(reg.epoch());
    await reg.close();
  });

  it('a SQLite registry file replaced by a fresh registry (a peer created it) refuses writes; the peer keeps its own', async () => {
    const { file, url } = fresh();
    const a = await openRegistry(url);
    await a.registerDomain({ id: 'sales' });
    removeSidecars(file);
    const peer = await openRegistry(url); // a fresh registry at the same path
    await peer.registerDomain({ id: 'peer' });
    expect(peer.deploymentId).not.toBe(a.deploymentId);
    const e = await replacedError(a.registerDomain({ id: 'lost' }));
    expect(e.message).toContain('replaced');
    expect((await peer.snapshot()).catalog.domains.map((d) => d.id)).toEqual(['peer']);
    await a.close();
    await peer.close();
  });

  it('a file moved into place over the registry refuses writes', async () => {
    const one = fresh();
    const other = fresh();
    const a = await openRegistry(one.url);
    const b = await openRegistry(other.url);
    await b.close();
    renameSync(other.file, one.file);
    await replacedError(a.registerDomain({ id: 'lost' }));
    await a.close();
  });

  it('a registry whose deployment id changed (a dropped and recreated database) refuses writes', async () => {
    const { url } = fresh();
    const reg: Registry = await openRegistry(url);
    const raw = await openSqlClient(url);
    await raw.run("UPDATE registry_deployment SET deployment_id = 'another-deployment-0001' WHERE id = 1");
    await raw.close();
    const e = await replacedError(reg.registerDomain({ id: 'ops' }));
    expect(e.message).toContain('another-deployment-0001');
    await reg.close();
  });

  it('the untouched registry keeps accepting writes', async () => {
    const { url } = fresh();
    const reg = await openRegistry(url);
    await reg.registerDomain({ id: 'a' });
    expect((await reg.registerDomain({ id: 'b' })).changed).toBe(true);
    expect(await reg.epoch()).toBe(2);
    await reg.close();
  });

  it("an instance whose registry file was deleted reports the registry as 'replaced' in its health", async () => {
    const { dir, file } = fresh();
    const { config } = loadConfig(`control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: sales}]
roles: [{id: analyst, capabilities: [query_development], domain_access: [sales]}]
`);
    const instance = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
    try {
      expect(await instance.health()).toMatchObject({ status: 'ok', dependencies: { registry: 'ok' } });
      unlinkSync(file);
      expect(await instance.health()).toMatchObject({ status: 'degraded', dependencies: { registry: 'replaced' } });
      await replacedError(instance.registry.registerDomain({ id: 'ops' }));
    } finally {
      await instance.close();
    }
  });
});

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
    removeSidecars(file);
    await replacedError(store.addUser(user('bob')));
    await replacedError(store.addToken(token('tok_b')));
    await replacedError(store.removeUser('alice'));
    await replacedError(store.revokeToken('tok_a', '2026-01-02T00:00:00Z'));
    expect(existsSync(file)).toBe(false);
    await store.close();
    await reg.close();
  });

  it('users and tokens: nothing reaches a fresh registry a peer created at the path', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    const store = await openIdentityStore(url, reg.identity);
    removeSidecars(file);
    const peer = await openRegistry(url);
    await replacedError(store.addToken(token('tok_lost')));
    await replacedError(store.addUser(user('lost')));
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
    removeSidecars(file);
    await replacedError(openIdentityStore(url, reg.identity));
    expect(existsSync(file)).toBe(false);
  });

  it('the audit log: an append to a replaced registry is refused and lands nowhere', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    const store = await SqlAuditStore.open(url, reg.identity);
    await store.append([audit(1)]);
    removeSidecars(file);
    await replacedError(store.append([audit(2)]));
    expect(existsSync(file)).toBe(false);
    const peer = await openRegistry(url);
    await replacedError(store.append([audit(3)]));
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
      removeSidecars(file);
      await replacedError(instance.mvs!.refresh('sales.by_region'));
      expect(existsSync(file)).toBe(false);
      const peer = await openRegistry(`sqlite:///${file}`);
      await replacedError(instance.mvs!.refresh('sales.by_region', { force: true }));
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
