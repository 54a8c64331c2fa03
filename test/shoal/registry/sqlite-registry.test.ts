import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import { applyContract } from './apply-contract.js';
import { registryContract } from './registry-contract.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-registry-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

registryContract('SQLite file', {
  // root is absolute, so this is the sqlite:////absolute/path.db form
  freshUrl: async () => `sqlite:///${join(root, `r${++n}`, 'registry.db')}`,
  raw: (url) => openSqlClient(url),
  installFailingTrigger: async (raw) => {
    await raw.exec(`CREATE TRIGGER explode BEFORE INSERT ON rls_rules WHEN NEW.filter = 'explode'
      BEGIN SELECT RAISE(ABORT, 'explode'); END`);
  },
  runs: 25,
});

applyContract('SQLite file', { freshUrl: async () => `sqlite:///${join(root, `r${++n}`, 'registry.db')}`, runs: 25 });

describe('opening a SQLite registry', () => {
  it('sqlite:///relative.db is relative to baseDir, and the file keeps the catalog across handles', async () => {
    const dir = join(root, 'relative');
    const a = await openRegistry('sqlite:///state/registry.db', { baseDir: dir });
    await a.registerDomain({ id: 'sales' });
    await a.close();
    const absolute = join(dir, 'state/registry.db');
    expect(absolute.startsWith('/')).toBe(true);
    const b = await openRegistry(`sqlite:///${absolute}`); // sqlite:////abs/path.db
    expect((await b.snapshot()).catalog.domains).toEqual([{ id: 'sales' }]);
    expect(await b.epoch()).toBe(1);
    expect(b.subscribe).toBeUndefined();
    await b.close();
  });

  it('a registry written by a newer layout version is refused, not rewritten', async () => {
    const url = `sqlite:///${join(root, 'future', 'registry.db')}`;
    const first = await openRegistry(url);
    await first.close();
    const raw = await openSqlClient(url);
    await raw.run('UPDATE registry_meta SET schema_version = 99');
    await raw.close();
    await expect(openRegistry(url)).rejects.toMatchObject({ code: 'REGISTRY_VERSION', message: expect.stringContaining('99') });
  });

  it('another process holding the write lock makes a mutation wait, not fail; both writes land in order', async () => {
    const path = join(root, 'cross-process', 'registry.db');
    const a = await openRegistry(`sqlite:///${path}`);
    // a second process takes the write lock and holds it until told to commit
    const child = spawn(process.execPath, ['-e', `
      const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(path)});
      db.exec('BEGIN IMMEDIATE');
      db.prepare("INSERT INTO domains (id, definition) VALUES ('child', '{\\"id\\":\\"child\\"}')").run();
      db.exec('UPDATE config_epoch SET epoch = epoch + 1 WHERE id = 1');
      process.stdout.write('locked\\n');
      process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
    `], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      const mutation = a.registerDomain({ id: 'parent' });
      let settled = false;
      void mutation.finally(() => (settled = true));
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false); // waiting on the other process's lock
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.write('commit\n');
      await exited;
      expect(await mutation).toEqual({ epoch: 2, changed: true, changes: ['upsert domain parent'] });
      expect((await a.snapshot()).catalog.domains.map((d) => d.id)).toEqual(['child', 'parent']);
    } finally {
      child.kill('SIGKILL');
      await a.close();
    }
  });

  it('an unsupported URL is a REGISTRY_URL error naming control_plane.tenant_url', async () => {
    await expect(openRegistry('mysql://u:pw@h/db')).rejects.toMatchObject({ code: 'REGISTRY_URL', where: 'control_plane.tenant_url', message: expect.not.stringContaining('pw') });
  });
});
