/**
 * Identity at the edge with real processes: two `shoal serve` instances on one PostgreSQL
 * registry, no `auth:` key (so authentication is required). A token made with `shoal token
 * create` is accepted by both instances, carries its session value to RLS, cannot pick a role it
 * was not granted, and is refused by both once `shoal token revoke` has run; a user added with
 * `shoal user add --password-stdin` signs in with Basic. A `provider: none` server warns at start.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distBin, startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');

const CATALOG = `domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

const shoal = (cwd: string, args: string[], input?: string) =>
  spawnSync(process.execPath, [distBin('shoal'), ...args], { cwd, encoding: 'utf8', ...(input === undefined ? {} : { input }), env: { ...process.env, SHOAL_USER_PASSWORD: '' } });

describe.skipIf(postgres.skip)('shoal serve authenticates every request (real processes, PostgreSQL registry)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-serve-auth-'));
  const servers: ServerProcess[] = [];
  let admin: pg.Client;
  let db: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    db = `auth_registry_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const base = new URL(postgres.url!);
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n3,eu\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "postgresql://${base.username}@${base.host}/${db}"}\n${CATALOG}`);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      servers.push(await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', '300'], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } }));
    }
  }, 180_000);

  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await admin?.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async (url: string, headers: Record<string, string>, vars: Record<string, string> = {}) => {
    const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ sql: 'SELECT id, region FROM sales.orders ORDER BY id', vars }) });
    return { status: r.status, body: (await r.json()) as { rows?: unknown[][]; error?: { code: string } }, challenge: r.headers.get('www-authenticate') };
  };

  it('the role header alone gets a 401; a token from shoal token create works on every instance until revoked', async () => {
    for (const s of servers) {
      const anon = await ask(s.url, { 'x-provisa-role': 'admin' });
      expect(anon.status).toBe(401);
      expect(anon.challenge).toContain('Bearer');
    }
    const made = shoal(dir, ['token', 'create', '--config', 'shoal.yaml', '--name', 'eu-dash', '--role', 'analyst', '--var', 'provisa.user_region=eu', '--expires-in-days', '2', '--json']);
    expect(made.status, made.stderr).toBe(0);
    const { id, token } = JSON.parse(made.stdout) as { id: string; token: string };
    for (const s of servers) {
      const r = await ask(s.url, { authorization: `Bearer ${token}` });
      expect(r.status).toBe(200);
      expect(r.body.rows).toEqual([[1, 'eu'], [3, 'eu']]);
      expect((await ask(s.url, { authorization: `Bearer ${token}` }, { 'provisa.user_region': 'us' })).body.error?.code).toBe('VAR_NOT_SETTABLE');
      expect((await ask(s.url, { authorization: `Bearer ${token}`, 'x-provisa-role': 'admin' })).status).toBe(403);
      const adminApi = await fetch(`${s.url}/admin/sources`, { headers: { authorization: `Bearer ${token}`, 'x-provisa-role': 'admin' } });
      expect(adminApi.status).toBe(403);
    }
    const listed = shoal(dir, ['token', 'list', '--config', 'shoal.yaml', '--json']);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(token);
    expect(shoal(dir, ['token', 'revoke', '--config', 'shoal.yaml', id]).status).toBe(0);
    for (const s of servers) expect((await ask(s.url, { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('a user added with --password-stdin signs in with Basic; a wrong password is 401', async () => {
    const added = shoal(dir, ['user', 'add', '--config', 'shoal.yaml', 'uma', '--role', 'analyst', '--var', 'user_region=us', '--password-stdin'], 'a long pass phrase\n');
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout + added.stderr).not.toContain('a long pass phrase');
    const basic = (pw: string) => ({ authorization: `Basic ${Buffer.from(`uma:${pw}`).toString('base64')}` });
    for (const s of servers) {
      expect((await ask(s.url, basic('a long pass phrase'))).body.rows).toEqual([[2, 'us']]);
      expect((await ask(s.url, basic('a wrong pass phrase'))).status).toBe(401);
    }
    expect(shoal(dir, ['user', 'add', '--config', 'shoal.yaml', 'nopw', '--role', 'analyst']).status).toBe(1);
  });
});

describe('shoal serve with provider: none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-serve-none-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('warns at start and in /health', async () => {
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}\nauth: {provider: none}\n${CATALOG}`);
    const port = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
    expect(server.output()).toContain('WARNING: authentication is off');
    expect(((await (await fetch(`${server.url}/health`)).json()) as { auth: unknown }).auth).toEqual({ provider: 'none', warning: expect.stringContaining('authentication is off') });
  }, 120_000);
});
