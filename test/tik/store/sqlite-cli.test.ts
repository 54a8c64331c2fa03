/**
 * The CLI on a SQLite store: every verb works on it, derivations equal the file store's, and
 * `store migrate`, `export` and `import` move stores without losing or changing a byte.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, snapshot, T0, tempDir, tik } from '../cli/harness.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { statusView } from '../../../src/tik/app/lenses.js';
import { loadTicketAt } from '../../../src/tik/app/ticket-loader.js';
import { MemoryStore } from '../../../src/tik/store/memory/memory-store.js';
import { importTree } from '../../../src/tik/store/export-import.js';
import { eventKeys } from '../../../src/tik/store/migrate.js';
import { openStore, closeStore } from '../../../src/tik/store/open-store.js';
import { addSupportProcess, derivations, writeScenario } from './backend-scenario.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});
function dir(): string {
  const d = tempDir('tik-sqlite-cli-');
  dirs.push(d);
  return d;
}

async function run(cwd: string, args: readonly string[]): Promise<string> {
  const r = await tik(cwd, args);
  expect(r.stderr, `tik ${args.join(' ')}`).toBe('');
  expect(r.code, `tik ${args.join(' ')}`).toBe(0);
  return r.stdout;
}

/** A file store with the scenario written; returns [root, tickets]. */
async function fileStoreWithScenario(): Promise<[string, string[]]> {
  const root = dir();
  await run(root, ['init']);
  addSupportProcess(root);
  return [root, await writeScenario(root, root)];
}

/** Only the store's files that matter for equality (SQLite's -wal/-shm come and go). */
function storeFiles(root: string): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(root)).filter(([p]) => !p.startsWith('tik.db') && p !== 'crash.sh'));
}

describe('tik on a SQLite store', () => {
  it('tik init --sqlite, then every verb works on it', async () => {
    const root = dir();
    expect(await run(root, ['init', '--sqlite'])).toMatch(/tik\.db/);
    addSupportProcess(root);
    const [a, b] = await writeScenario(root, root);
    expect(existsSync(join(root, 'tickets'))).toBe(false);
    const status = JSON.parse(await run(root, ['status', a!, '--json'])) as { facts: Record<string, { status: string }> };
    expect(status.facts.category?.status).toBe('disputed');
    expect(status.facts.severity?.status).toBe('present');
    expect(JSON.parse(await run(root, ['log', b!, '--json']))).toHaveLength(4);
    expect(await run(root, ['explain', a!])).not.toBe('');
    expect(JSON.parse(await run(root, ['ls', '--all', '--json']))).toHaveLength(2);
    await run(root, ['next', '--json']);
    expect(await run(root, ['verify'])).toMatch(/2 tickets verified, 0 failed/);
    // the attachment's blob lives on disk beside tik.db
    expect(readdirSync(join(root, 'blobs', a!))).toHaveLength(1);
  });

  it('derivations are identical on the file store and on the SQLite and memory stores it was imported into', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const tree = join(dir(), 'tree');
    await run(fileRoot, ['export', tree]);
    const sqliteRoot = dir();
    await run(sqliteRoot, ['init', '--sqlite']);
    expect(await run(sqliteRoot, ['import', tree])).toMatch(/^imported 9 new events/);
    expect(await derivations(sqliteRoot, sqliteRoot, tickets)).toEqual(await derivations(fileRoot, fileRoot, tickets));
    // the memory store holds the same events, byte for byte
    const mem = new MemoryStore();
    await importTree(tree, mem);
    const file = await openStore(fileRoot);
    const sqlite = await openStore(sqliteRoot);
    try {
      const keys = await eventKeys(file);
      expect(await eventKeys(mem)).toEqual(keys);
      expect(await eventKeys(sqlite)).toEqual(keys);
      // the same derivation (status --json) over the memory store
      const fileStatus = (await derivations(fileRoot, fileRoot, tickets)) as Record<string, unknown>;
      for (const t of tickets) {
        expect(statusView(await loadTicketAt(undefined, mem, t), new Instant(Date.parse(T0))).json).toEqual(fileStatus[t]);
      }
      for (const k of keys) {
        const [t, id] = k.split('/') as [string, string];
        const want = Buffer.from((await file.eventBytes(t, id))!);
        expect(Buffer.from((await sqlite.eventBytes(t, id))!).equals(want)).toBe(true);
        expect(Buffer.from((await mem.eventBytes(t, id))!).equals(want)).toBe(true);
      }
    } finally {
      await closeStore(sqlite);
    }
  });

  it('store migrate file → sqlite → file keeps every byte and every derivation', async () => {
    const [root, tickets] = await fileStoreWithScenario();
    const before = storeFiles(root);
    const derived = await derivations(root, root, tickets);
    expect(await run(root, ['store', 'migrate', '--to', 'sqlite'])).toMatch(/^migrated 9 events, 0 sidecars and 2 blobs of 2 tickets/);
    expect(existsSync(join(root, 'tik.db'))).toBe(true);
    expect(existsSync(join(root, 'tickets'))).toBe(false);
    expect(await derivations(root, root, tickets)).toEqual(derived);
    await run(root, ['store', 'migrate', '--to', 'file']);
    expect(existsSync(join(root, 'tik.db'))).toBe(false);
    expect(existsSync(join(root, 'blobs'))).toBe(false);
    expect(storeFiles(root)).toEqual(before);
    expect(await derivations(root, root, tickets)).toEqual(derived);
  });

  it('a hidden store migrates in place under .tik/', async () => {
    const root = dir();
    await run(root, ['init', '--hidden']);
    addSupportProcess(join(root, '.tik'));
    const tickets = await writeScenario(root, root);
    const derived = await derivations(root, root, tickets);
    await run(root, ['store', 'migrate', '--to', 'sqlite']);
    expect(readdirSync(join(root, '.tik')).filter((n) => !n.startsWith('tik.db-')).sort()).toEqual(['blobs', 'processes', 'roles.edn', 'tik.db']);
    expect(await derivations(root, root, tickets)).toEqual(derived);
  });

  it('a migration that fails removes nothing from the source and leaves no half-made target', async () => {
    const [root, tickets] = await fileStoreWithScenario();
    // damage one event file: its bytes no longer hash to its name
    const events = join(root, 'tickets', tickets[1]!, 'events');
    const victim = readdirSync(events).find((n) => n.endsWith('.edn'))!;
    writeFileSync(join(events, victim), `${readFileSync(join(events, victim), 'utf8')} `);
    const before = snapshot(root);
    const r = await tik(root, ['store', 'migrate', '--to', 'sqlite']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/hash/);
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, 'tik.db'))).toBe(false);
  });

  it('migrate refuses a target that already holds a store, and a bad --to', async () => {
    const [root] = await fileStoreWithScenario();
    const other = dir();
    mkdirSync(join(other, 'tickets'));
    const before = snapshot(root);
    const r = await tik(root, ['store', 'migrate', '--to', 'sqlite', '--dir', other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already holds a store/);
    const bad = await tik(root, ['store', 'migrate', '--to', 'mongo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--to/);
    const same = await tik(root, ['store', 'migrate', '--to', 'file']);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/already a file store/);
    expect(snapshot(root)).toEqual(before);
  });

  it('export from SQLite writes the tree the file store had; importing it twice changes nothing', async () => {
    const [fileRoot] = await fileStoreWithScenario();
    const original = storeFiles(fileRoot);
    const sqliteRoot = dir();
    await run(sqliteRoot, ['init', '--sqlite']);
    await run(sqliteRoot, ['import', fileRoot]);
    const tree = join(dir(), 'out');
    await run(sqliteRoot, ['export', tree]);
    expect(snapshot(tree)).toEqual(original);
    // import the export into a file store twice: the second import writes nothing
    const target = dir();
    await run(target, ['init']);
    expect(await run(target, ['import', tree])).toMatch(/^imported 9 new events/);
    const once = snapshot(target);
    expect(await run(target, ['import', tree])).toMatch(/^imported 0 new events/);
    expect(snapshot(target)).toEqual(once);
    expect(once).toEqual(original);
  });

  it('import refuses a tree with a file whose bytes do not hash to its name, and writes nothing', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const tree = join(dir(), 'tree');
    await run(fileRoot, ['export', tree]);
    const events = join(tree, 'tickets', tickets[0]!, 'events');
    const victim = readdirSync(events).find((n) => n.endsWith('.edn'))!;
    writeFileSync(join(events, victim), readFileSync(join(events, victim), 'utf8').replace('seb', 'mallory'));
    const target = dir();
    await run(target, ['init', '--sqlite']);
    const store = await openStore(target);
    const r = await tik(target, ['import', tree]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(victim);
    expect(r.stderr).toMatch(/nothing was written/);
    expect(await store.ticketIds()).toEqual([]);
    await closeStore(store);
  });

  it('import refuses an event filed under the wrong ticket, and a directory that is not a tree', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const tree = join(dir(), 'tree');
    await run(fileRoot, ['export', tree]);
    const [a, b] = tickets as [string, string];
    const from = join(tree, 'tickets', a, 'events');
    const moved = readdirSync(from).find((n) => n.endsWith('.edn'))!;
    writeFileSync(join(tree, 'tickets', b, 'events', moved), readFileSync(join(from, moved)));
    const target = dir();
    await run(target, ['init']);
    const before = snapshot(target);
    const r = await tik(target, ['import', tree]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/belongs to ticket [0-9a-f-]+, not [0-9a-f-]+/);
    expect(snapshot(target)).toEqual(before);
    const none = await tik(target, ['import', dir()]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/not a tik file tree/);
  });

  it('a tik.db that is not a database is a clear error, not a crash', async () => {
    const root = dir();
    writeFileSync(join(root, 'tik.db'), 'this is not a database, just text long enough to have a header and then some more');
    const r = await tik(root, ['ls', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tik: store\/io: .*tik\.db/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('tik init refuses a file store where a SQLite store is, and the other way round', async () => {
    const root = dir();
    await run(root, ['init', '--sqlite']);
    const r = await tik(root, ['init']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already holds a SQLite store/);
    const other = dir();
    await run(other, ['init']);
    const r2 = await tik(other, ['init', '--sqlite']);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/already holds a file store/);
    expect(existsSync(join(other, 'tik.db'))).toBe(false);
  });

  it('tik test with no files runs the scripted tests of a hidden SQLite store (.tik/processes/)', async () => {
    const root = dir();
    await run(root, ['init', '--sqlite', '--hidden']);
    addSupportProcess(join(root, '.tik'));
    writeFileSync(
      join(root, '.tik', 'processes', 'support-request.tests.edn'),
      '{:test/process "support-request.edn" :test/roles {:triager {:members ["seb"]}} :test/cases [{:case/name "a triager triages" :case/steps [[:actor "seb"] [:set [:category] :technical] [:set [:severity] :high]] :case/expect {:includes #{:triaged}}}]}',
    );
    const out = await run(root, ['test']);
    expect(out).toMatch(/a triager triages/);
    expect(out).toMatch(/1 passed, 0 failed/);
  });

  it('import takes a gzipped tar of a tree, checked like a directory', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const tree = join(dir(), 'tree');
    await run(fileRoot, ['export', tree]);
    const tgz = join(dir(), 'store.tgz');
    execFileSync('tar', ['czf', tgz, '-C', tree, '.']);
    const target = dir();
    await run(target, ['init', '--sqlite']);
    expect(await run(target, ['import', tgz])).toMatch(/^imported 9 new events/);
    expect(await derivations(target, target, tickets)).toEqual(await derivations(fileRoot, fileRoot, tickets));
    expect(await run(target, ['import', tgz])).toMatch(/^imported 0 new events/);
    // a damaged event inside the archive: refused, naming the archive, nothing written
    const events = join(tree, 'tickets', tickets[0]!, 'events');
    const victim = readdirSync(events).find((n) => n.endsWith('.edn'))!;
    writeFileSync(join(events, victim), 'tampered');
    const bad = join(dir(), 'bad.tgz');
    execFileSync('tar', ['czf', bad, '-C', tree, '.']);
    const fresh = dir();
    await run(fresh, ['init']);
    const before = snapshot(fresh);
    const r = await tik(fresh, ['import', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(bad);
    expect(r.stderr).toContain(victim);
    expect(r.stderr).not.toMatch(/tik-import-/);
    expect(snapshot(fresh)).toEqual(before);
    // not an archive at all
    const junk = join(dir(), 'junk.tgz');
    writeFileSync(junk, 'not gzip');
    const j = await tik(fresh, ['import', junk]);
    expect(j.code).toBe(1);
    expect(j.stderr).toMatch(/import\/bad-archive/);
  });

  it('a row whose bytes do not hash to its id (written by another tool) fails verify and reads clearly', async () => {
    const root = dir();
    await run(root, ['init', '--sqlite']);
    addSupportProcess(root);
    const [a] = await writeScenario(root, root);
    const db = new Database(join(root, 'tik.db'));
    const row = db.prepare('SELECT id, bytes FROM events WHERE ticket = ? LIMIT 1').get(a) as { id: string; bytes: Buffer };
    db.prepare('UPDATE events SET bytes = ? WHERE id = ?').run(Buffer.concat([row.bytes, Buffer.from(' ')]), row.id);
    db.close();
    const v = await tik(root, ['verify']);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/FAIL/);
    const st = await tik(root, ['status', a!]);
    expect(st.code).toBe(1);
    expect(st.stderr).toContain(row.id);
    expect(st.stderr).not.toMatch(/\n\s+at /);
  });
});
