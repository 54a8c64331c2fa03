/**
 * The admin edge refuses sources that reach what the operator did not allow: files outside
 * admin.file_roots (directly, by `..` or through a link), `${env:…}` references, the registry and
 * the MV store, and hosts not in admin.allowed_hosts (refused before any connection is tried).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';

describe('admin-registered sources reach only what the operator allowed', () => {
  let dir: string;
  let root: string;
  let instance: ShoalInstance;
  let app: FastifyInstance;
  let listener: Server;
  let listenerPort: number;
  const connections: Socket[] = [];

  const register = async (body: object) => {
    const r = await app.inject({ method: 'POST', url: '/admin/sources', headers: { 'x-provisa-role': 'admin' }, payload: body });
    return { status: r.statusCode, body: r.json() as { error?: { code: string; message: string; hint?: string } } };
  };
  const registered = async (): Promise<string[]> => (await instance.registry.snapshot()).catalog.sources.map((s) => s.id);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-admin-sources-'));
    root = join(dir, 'data');
    mkdirSync(root);
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(root, 'ok.csv'), 'id\n1\n');
    writeFileSync(join(dir, 'outside', 'secret.csv'), 'secret\nhunter2\n');
    symlinkSync(join(dir, 'outside', 'secret.csv'), join(root, 'link.csv'));
    symlinkSync('/etc', join(root, 'etc'));
    mkdirSync(join(root, 'dir-source'));
    writeFileSync(join(root, 'dir-source', 'a.csv'), 'id\n1\n');
    symlinkSync(join(dir, 'outside', 'secret.csv'), join(root, 'dir-source', 'leak.csv'));
    // a listener that records every connection: a refused host must never be dialled
    listener = createServer((s) => {
      connections.push(s);
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    listenerPort = (listener.address() as { port: number }).port;
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
control_plane: {tenant_url: "sqlite:///registry.db", catalog: registry} # the admin API owns the catalog
materialize_store_url: mv-store
admin:
  file_roots: [data]
  allowed_hosts: ["db.allowed.example:5432", "localhost:1"]
domains: [{id: sales}]
sources: [{id: ops-csv, type: csv, path: data/dir-source}]
tables:
  - {source_id: ops-csv, domain_id: sales, table: a, columns: [{name: id, data_type: integer}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    app = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance)] });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    await new Promise<void>((r) => (listener ? listener.close(() => r()) : r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('/etc/passwd as a CSV source is refused and nothing is registered', async () => {
    const r = await register({ id: 'passwd', type: 'csv', path: '/etc/passwd' });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_PATH_REFUSED' } } });
    expect(r.body.error?.message).toContain('admin.file_roots');
    expect(await registered()).not.toContain('passwd');
  });

  it('.. out of a root is refused, and so is a root-relative path through a link to /etc', async () => {
    expect(await register({ id: 'dots', type: 'csv', path: 'data/../outside/secret.csv' })).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_PATH_REFUSED' } } });
    expect(await register({ id: 'etc', type: 'csv', path: 'data/etc/passwd' })).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_PATH_REFUSED' } } });
    expect(await registered()).not.toContain('dots');
    expect(await registered()).not.toContain('etc');
  });

  it('a symlink inside a root that points outside is refused', async () => {
    const r = await register({ id: 'link', type: 'csv', path: join(root, 'link.csv') });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_PATH_REFUSED' } } });
    expect(r.body.error?.message).toContain('symbolic link');
    expect(await registered()).not.toContain('link');
  });

  it('a table whose name walks out of a directory source, or is a link out of it, is refused', async () => {
    const table = (name: string) => ({ source_id: 'ops-csv', domain_id: 'sales', table: name, columns: [{ name: 'secret', data_type: 'varchar' }] });
    for (const name of ['../outside/secret', 'leak']) {
      const r = await app.inject({ method: 'POST', url: '/admin/tables', headers: { 'x-provisa-role': 'admin' }, payload: table(name) });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ error: { code: 'ADMIN_PATH_REFUSED' } });
    }
    expect((await instance.registry.snapshot()).catalog.tables.map((t) => t.table)).toEqual(['a']);
  });

  it('${env:HOME} anywhere in an admin-registered source is refused', async () => {
    for (const body of [
      { id: 'env-path', type: 'csv', path: '${env:HOME}/x.csv' },
      { id: 'env-pass', type: 'postgresql', host: 'db.allowed.example', password: '${env:HOME}' },
    ]) {
      const r = await register(body);
      expect(r).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_ENV_REFUSED' } } });
    }
    expect(await registered()).toEqual(['ops-csv']);
  });

  it('a source naming the registry file or the MV store is refused, even when they are under a root', async () => {
    const r1 = await register({ id: 'reg', type: 'sqlite', path: join(dir, 'registry.db') });
    expect(r1.status).toBe(403); // outside the roots
    // put the control plane under a root to prove it is refused for what it is, not where it is
    const other = new (await import('../../../src/shoal/server/admin-source-policy.js')).AdminSourcePolicy({
      admin: { file_roots: [dir], allowed_hosts: [] },
      baseDir: dir,
      registryUrl: 'sqlite:///registry.db',
      mvStoreDir: join(dir, 'mv-store'),
    });
    await expect(other.checkSource({ id: 'reg', type: 'sqlite', path: 'registry.db' })).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
    mkdirSync(join(dir, 'mv-store'), { recursive: true });
    await expect(other.checkSource({ id: 'mv', type: 'parquet', path: 'mv-store' })).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
    // a directory that contains the registry is refused too (a table name would pick the file)
    await expect(other.checkSource({ id: 'all', type: 'csv', path: '.' })).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
    expect(await registered()).toEqual(['ops-csv']);
  });

  it('a PostgreSQL source to a host not on the allow-list is refused before any connection is attempted', async () => {
    for (const body of [
      { id: 'pg-evil', type: 'postgresql', host: '127.0.0.1', port: listenerPort, database: 'x', username: 'u' },
      { id: 'pg-attach', type: 'postgresql', host: '127.0.0.1', port: listenerPort, database: 'x', attach: true },
      { id: 'my-evil', type: 'mysql', host: '127.0.0.1', port: listenerPort, database: 'x' },
      { id: 'pg-socket', type: 'postgresql', host: '/var/run/postgresql', database: 'x' },
    ]) {
      const r = await register(body);
      expect(r).toMatchObject({ status: 403, body: { error: { code: 'ADMIN_HOST_REFUSED' } } });
    }
    await instance.refresh();
    expect(connections).toHaveLength(0);
    expect(await registered()).toEqual(['ops-csv']);
  });

  it('a file under a root and a listed host are registered (paths stored real)', async () => {
    const r = await register({ id: 'ok-csv', type: 'csv', path: 'data/ok.csv' });
    expect(r.status).toBe(200);
    const stored = (await instance.registry.snapshot()).catalog.sources.find((s) => s.id === 'ok-csv');
    expect(stored?.path).toBe(join(root, 'ok.csv'));
    expect((await register({ id: 'pg-ok', type: 'postgresql', host: 'DB.allowed.example', database: 'sales' })).status).toBe(200);
    expect((await register({ id: 'pg-port', type: 'postgresql', host: 'db.allowed.example', port: 6543, database: 'sales' })).status).toBe(403);
  });
});

describe('with no admin: key the admin API registers no file or network source', () => {
  let dir: string;
  let instance: ShoalInstance;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-admin-closed-'));
    writeFileSync(join(dir, 'x.csv'), 'id\n1\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
control_plane: {catalog: registry}
roles: [{id: admin, capabilities: [admin], domain_access: ["*"]}]
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    app = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance)] });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails closed and names the key to set', async () => {
    const post = (payload: object) => app.inject({ method: 'POST', url: '/admin/sources', headers: { 'x-provisa-role': 'admin' }, payload });
    const file = await post({ id: 'x', type: 'csv', path: join(dir, 'x.csv') });
    expect(file.statusCode).toBe(403);
    expect(file.json()).toMatchObject({ error: { code: 'ADMIN_SOURCES_DISABLED' } });
    expect(file.json().error.message).toContain('admin.file_roots');
    const net = await post({ id: 'pg', type: 'postgresql', host: 'localhost', database: 'x' });
    expect(net.json()).toMatchObject({ error: { code: 'ADMIN_SOURCES_DISABLED' } });
    expect(net.json().error.message).toContain('admin.allowed_hosts');
    expect((await instance.registry.snapshot()).catalog.sources).toEqual([]);
  });
});
