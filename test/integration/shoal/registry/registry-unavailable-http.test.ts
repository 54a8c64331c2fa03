/**
 * A registry that goes away under a running instance is a 503 REGISTRY_UNAVAILABLE on the routes
 * that read it (the admin API), never an untyped 500; /health reports it; queries keep being
 * answered from the catalog already built.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../../src/shoal/server/app.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const DB = `shoal_registry_gone_${process.pid}`;

describe.skipIf(postgres.skip)('the registry becoming unavailable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-registry-gone-'));
  let admin: pg.Client;
  let instance: ShoalInstance;
  let app: FastifyInstance;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${DB}`);
    const url = new URL(postgres.url as string);
    url.pathname = `/${DB}`;
    const { config } = loadConfig(`control_plane: {tenant_url: "${url.toString()}"}
auth: {provider: none}
cache: {enabled: false}
domains: [{id: ops}]
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
`);
    instance = await ShoalInstance.start({ config, baseDir: dir, pollMs: 600_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
    app = await buildApp({ service: instance, plugins: [adminPlugin(instance)] });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await instance?.close();
    await admin?.query(`ALTER DATABASE ${DB} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin?.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the admin API answers 503 REGISTRY_UNAVAILABLE, /health says degraded, and queries still run', async () => {
    const before = await app.inject({ method: 'GET', url: '/admin/epoch', headers: { 'x-provisa-role': 'admin' } });
    expect(before.statusCode).toBe(200);
    // the registry database stops accepting connections and drops the ones it has
    await admin.query(`ALTER DATABASE ${DB} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [DB]);
    for (const url of ['/admin/epoch', '/admin/sources']) {
      const r = await app.inject({ method: 'GET', url, headers: { 'x-provisa-role': 'admin' } });
      expect(r.statusCode, `${url}: ${r.body}`).toBe(503);
      expect(r.json()).toMatchObject({ error: { code: 'REGISTRY_UNAVAILABLE' } });
      expect(r.body).not.toContain('password');
    }
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ dependencies: { registry: 'unavailable' } });
    const q = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'SELECT 1 AS one', role: 'admin' } });
    expect(q.statusCode).toBe(200);
  }, 60_000);
});
