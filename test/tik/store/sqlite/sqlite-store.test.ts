import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closeStore, initSqliteStore, openStore } from '../../../../src/tik/store/open-store.js';
import { SqliteStore } from '../../../../src/tik/store/sqlite/sqlite-store.js';
import { describeEventStoreContract, eventBytesFor, idOf } from '../event-store-contract.js';

const T = '018f2f6e-7c1a-7000-8000-000000000001';

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tik-sqlite-store-'));
  temps.push(d);
  return d;
}
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

describeEventStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-contract-sqlite-'));
  const store = await initSqliteStore(dir);
  return {
    store,
    second: () => SqliteStore.open(dir),
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeEventStoreContract('sqlite (hidden .tik/)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-contract-sqlite-hidden-'));
  const store = await initSqliteStore(dir, { hidden: true });
  return {
    store,
    second: async () => openStore(dir),
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite store layout (tik-model.md §1.9)', () => {
  it('has exactly the events and sidecars tables upstream has, and keeps bytes verbatim in them', async () => {
    const root = tempDir();
    const s = await initSqliteStore(root);
    const b = eventBytesFor(1);
    const id = idOf(b);
    await s.append(T, id, b);
    await s.putSidecar(T, `${id}.sig.0123456789abcdef`, Buffer.from('sig'));
    await s.close();
    const db = new Database(join(root, 'tik.db'), { readonly: true });
    try {
      const cols = (t: string) => db.prepare(`PRAGMA table_info(${t})`).all().map((c) => {
        const r = c as { name: string; type: string; notnull: number; pk: number };
        return [r.name, r.type, r.notnull, r.pk];
      });
      expect(cols('events')).toEqual([['id', 'TEXT', 0, 1], ['ticket', 'TEXT', 1, 0], ['bytes', 'BLOB', 1, 0]]);
      expect(cols('sidecars').map((c) => c[0])).toEqual(['name', 'ticket', 'bytes']);
      const indexed = db.prepare("SELECT name FROM pragma_index_list('events')").all() as { name: string }[];
      expect(indexed.some((i) => (db.prepare(`PRAGMA index_info(${i.name})`).all() as { name: string }[]).some((c) => c.name === 'ticket'))).toBe(true);
      const row = db.prepare('SELECT id, ticket, bytes FROM events').get() as { id: string; ticket: string; bytes: Buffer };
      expect(row.id).toBe(id);
      expect(row.ticket).toBe(T);
      expect(Buffer.isBuffer(row.bytes) && row.bytes.equals(Buffer.from(b))).toBe(true);
    } finally {
      db.close();
    }
    // no tickets/ directory: that would make the layout ambiguous
    expect(existsSync(join(root, 'tickets'))).toBe(false);
  });

  it('reads a tik.db written by another tool with the same tables (upstream)', async () => {
    const root = tempDir();
    const db = new Database(join(root, 'tik.db'));
    db.exec('CREATE TABLE events(id TEXT PRIMARY KEY, ticket TEXT NOT NULL, bytes BLOB NOT NULL); CREATE INDEX events_ticket ON events(ticket); CREATE TABLE sidecars(name TEXT PRIMARY KEY, ticket, bytes)');
    const b = eventBytesFor(3);
    db.prepare('INSERT INTO events VALUES (?, ?, ?)').run(idOf(b), T, Buffer.from(b));
    db.close();
    const s = await openStore(root);
    try {
      expect(s.kind).toBe('sqlite');
      expect((await s.events(T)).map((e) => e.id)).toEqual([idOf(b)]);
    } finally {
      await closeStore(s);
    }
  });

  it('keeps blobs on disk under blobs/<ticket>/ and processes under processes/', async () => {
    const root = tempDir();
    const s = await initSqliteStore(root);
    const hash = await s.putBlob(T, Buffer.from('artifact'));
    const proc = await s.archiveProcess('{:process/id :p :process/stages [{:stage/id :a}] :process/version 1}');
    await s.close();
    expect(readdirSync(join(root, 'blobs', T))).toEqual([hash]);
    expect(readdirSync(join(root, 'processes', 'by-hash'))).toEqual([`${proc}.edn`]);
  });

  it('init refuses a root holding a file store, and opening refuses tik.db beside tickets/', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'tickets'));
    await expect(initSqliteStore(root)).rejects.toMatchObject({ code: 'store/exists' });
    const s = await SqliteStore.open(root);
    await s.close();
    await expect(openStore(root)).rejects.toMatchObject({ code: 'store/ambiguous-layout' });
  });

  it('init is idempotent and opening an empty directory is store/not-found', async () => {
    const root = tempDir();
    await (await initSqliteStore(root)).close();
    await (await initSqliteStore(root)).close();
    await expect(initSqliteStore(root, { hidden: true })).rejects.toMatchObject({ code: 'store/exists' });
    await expect(openStore(tempDir())).rejects.toMatchObject({ code: 'store/not-found' });
  });
});
