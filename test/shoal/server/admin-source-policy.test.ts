import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';
import type { SourceConfig } from '../../../src/shoal/config/model.js';
import { AdminSourcePolicy } from '../../../src/shoal/server/admin-source-policy.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-admin-policy-'));
mkdirSync(join(dir, 'root', 'sub'), { recursive: true });
writeFileSync(join(dir, 'root', 'sub', 'a.csv'), 'id\n1\n');
writeFileSync(join(dir, 'b.csv'), 'id\n1\n');
symlinkSync(join(dir, 'root', 'sub'), join(dir, 'root', 'inner-link'));
symlinkSync(dir, join(dir, 'root', 'up-link'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pg = (host: string, extra: Partial<SourceConfig> = {}): SourceConfig => ({ id: 'p', type: 'postgresql', host, database: 'sales', ...extra });

describe('AdminSourcePolicy', () => {
  const policy = new AdminSourcePolicy({
    admin: { file_roots: ['root'], allowed_hosts: ['db.example.com', 'pg.example.com:5433', '[::1]:5432', '10.0.0.7:3306'] },
    baseDir: dir,
    registryUrl: 'postgresql://shoal@[::1]:5432/control',
  });

  it('a host entry without a port admits every port; with one, only that port (the type default when unset)', async () => {
    await expect(policy.checkSource(pg('db.example.com', { port: 9999 }))).resolves.toBeDefined();
    await expect(policy.checkSource(pg('PG.example.com', { port: 5433 }))).resolves.toBeDefined();
    await expect(policy.checkSource(pg('pg.example.com'))).rejects.toMatchObject({ code: 'ADMIN_HOST_REFUSED' });
    await expect(policy.checkSource({ id: 'm', type: 'mysql', host: '10.0.0.7', database: 'x' })).resolves.toBeDefined();
    await expect(policy.checkSource({ id: 'm', type: 'mariadb', host: '10.0.0.7', port: 3307, database: 'x' })).rejects.toMatchObject({ code: 'ADMIN_HOST_REFUSED' });
    await expect(policy.checkSource(pg('db.example.com.evil.net'))).rejects.toMatchObject({ code: 'ADMIN_HOST_REFUSED' });
  });

  it('the registry PostgreSQL database is refused on an allowed server, whatever the loopback spelling; other databases are not', async () => {
    await expect(policy.checkSource(pg('::1', { database: 'control' }))).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
    await expect(policy.checkSource(pg('[::1]', { database: undefined }))).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
    await expect(policy.checkSource(pg('::1', { database: 'sales' }))).resolves.toBeDefined();
    const local = new AdminSourcePolicy({ admin: { file_roots: [], allowed_hosts: ['127.0.0.1'] }, baseDir: dir, registryUrl: 'postgresql://u:pw@localhost/control' });
    await expect(local.checkSource(pg('127.0.0.1', { database: 'control' }))).rejects.toMatchObject({ code: 'ADMIN_PROTECTED_TARGET' });
  });

  it('paths: inside a root (also through a link that stays inside) pass and are stored real; a link out, a URL or a glob do not', async () => {
    await expect(policy.checkSource({ id: 'f', type: 'csv', path: 'root/inner-link/a.csv' })).resolves.toMatchObject({ path: join(dir, 'root', 'sub', 'a.csv') });
    await expect(policy.checkSource({ id: 'f', type: 'csv', path: 'root/up-link/b.csv' })).rejects.toMatchObject({ code: 'ADMIN_PATH_REFUSED' });
    await expect(policy.checkSource({ id: 'f', type: 'csv', path: 's3://bucket/x.csv' })).rejects.toMatchObject({ code: 'ADMIN_PATH_REFUSED' });
    await expect(policy.checkSource({ id: 'f', type: 'csv', path: 'root/sub/*.csv' })).rejects.toMatchObject({ code: 'ADMIN_PATH_REFUSED' });
    await expect(policy.checkSource({ id: 'f', type: 'tik', path: 'root/missing-store' })).rejects.toMatchObject({ code: 'ADMIN_PATH_REFUSED' });
  });

  it('base_url is refused (no connector uses it; it would be a host nobody checked)', async () => {
    await expect(policy.checkSource({ id: 'f', type: 'csv', path: 'root/sub/a.csv', base_url: 'http://169.254.169.254/' })).rejects.toMatchObject({ code: 'ADMIN_HOST_REFUSED' });
  });

  it('denyAll refuses every file and network source, naming the key to set', async () => {
    const none = AdminSourcePolicy.denyAll();
    await expect(none.checkSource({ id: 'f', type: 'parquet', path: '/tmp/x.parquet' })).rejects.toMatchObject({ code: 'ADMIN_SOURCES_DISABLED', message: expect.stringContaining('admin.file_roots') });
    await expect(none.checkSource(pg('db.example.com'))).rejects.toMatchObject({ code: 'ADMIN_SOURCES_DISABLED', message: expect.stringContaining('admin.allowed_hosts') });
  });
});

describe('the admin: config keys', () => {
  it('are validated with key paths', () => {
    const r = checkConfigText('admin:\n  file_roots: ["data/*"]\n  allowed_hosts: ["postgresql://db", "ok.example:5432", "h:99999"]\n  roots: []\n');
    expect(r.ok).toBe(false);
    const paths = r.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['admin.file_roots[0]', 'admin.allowed_hosts[0]', 'admin.allowed_hosts[2]', 'admin.roots']));
    expect(paths).not.toContain('admin.allowed_hosts[1]');
  });

  it('load into the config, unset lists as empty', () => {
    const r = checkConfigText('admin:\n  allowed_hosts: [db.internal]\n');
    expect(r.ok).toBe(true);
    expect(r.config?.admin).toEqual({ file_roots: [], allowed_hosts: ['db.internal'] });
    expect(checkConfigText('domains: []\n').config?.admin).toBeUndefined();
  });
});
