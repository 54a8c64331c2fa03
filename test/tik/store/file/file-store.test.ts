import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../../../src/tik/store/file/file-store.js';
import { initStore, openFileStore } from '../../../../src/tik/store/file/open-file-store.js';
import { describeEventStoreContract, eventBytesFor, idOf } from '../event-store-contract.js';

const CORPUS = join(process.cwd(), '..', 'shared', 'tik-conformance', 'corpus');
const T = '018f2f6e-7c1a-7000-8000-000000000001';

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tik-file-store-'));
  temps.push(d);
  return d;
}
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

/** Every file under `dir`, as sorted relative paths. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

describeEventStoreContract('file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-contract-'));
  return { store: await initStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }), second: async () => openFileStore(dir) };
});

describeEventStoreContract('file (hidden .tik/)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-contract-hidden-'));
  return { store: await initStore(dir, { hidden: true }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describeEventStoreContract('file (non-durable, for bulk copies)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-contract-fast-'));
  return { store: await initStore(dir, { durable: false }), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe('file store layout', () => {
  it("writes upstream's exact paths", async () => {
    const root = tempDir();
    const s = await initStore(root);
    const b = eventBytesFor(1);
    const id = idOf(b);
    await s.append(T, id, b);
    await s.putSidecar(T, `${id}.sig.0123456789abcdef`, Buffer.from('sig'));
    const blob = await s.putBlob(T, Buffer.from('blob'));
    const text = '{:process/id :p :process/version 1}';
    const hash = await s.archiveProcess(text);
    await s.writeNamedProcess('p', text);
    expect(tree(root)).toEqual(
      [
        `tickets/${T}/events/${id}.edn`,
        `tickets/${T}/events/${id}.sig.0123456789abcdef`,
        `tickets/${T}/blobs/${blob}`,
        `processes/by-hash/${hash}.edn`,
        'processes/p.edn',
      ].sort(),
    );
    expect(readFileSync(join(root, 'processes', 'by-hash', `${hash}.edn`), 'utf8')).toBe(text);
  });

  it('a hidden store lives under .tik/ and is found from the root', async () => {
    const root = tempDir();
    await initStore(root, { hidden: true });
    expect(existsSync(join(root, '.tik', 'tickets'))).toBe(true);
    expect(existsSync(join(root, 'tickets'))).toBe(false);
    const s = openFileStore(root);
    expect(s.base).toBe(join(root, '.tik'));
    const b = eventBytesFor(2);
    await s.append(T, idOf(b), b);
    expect(existsSync(join(root, '.tik', 'tickets', T, 'events', `${idOf(b)}.edn`))).toBe(true);
  });

  it('init is idempotent and refuses a second layout beside the first', async () => {
    const root = tempDir();
    await initStore(root);
    await initStore(root);
    await expect(initStore(root, { hidden: true })).rejects.toMatchObject({ code: 'store/exists' });
    writeFileSync(join(root, 'tik.db'), '');
    expect(() => openFileStore(root)).toThrow(expect.objectContaining({ code: 'store/ambiguous-layout' }));
  });

  it('opening a directory without a store says how to make one', () => {
    const root = tempDir();
    expect(() => openFileStore(root)).toThrow(expect.objectContaining({ code: 'store/not-found', hint: expect.stringMatching(/tik init/) }));
    writeFileSync(join(root, 'tik.db'), '');
    expect(() => openFileStore(root)).toThrow(expect.objectContaining({ code: 'store/not-file' }));
  });

  it('only uuid directories are tickets; other names and files are skipped', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const b = eventBytesFor(3);
    await s.append(T, idOf(b), b);
    mkdirSync(join(root, 'tickets', 'notes'));
    mkdirSync(join(root, 'tickets', T.toUpperCase().replace('018F', '118F')));
    mkdirSync(join(root, 'tickets', '018f2f6e-7c1a-7000-8000-00000000000'));
    writeFileSync(join(root, 'tickets', '018f2f6e-7c1a-7000-8000-000000000009'), 'a file, not a directory');
    writeFileSync(join(root, 'tickets', 'README'), 'x');
    expect(await s.ticketIds()).toEqual([T]);
  });

  it('files that are not events or sidecars are ignored in an events directory', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const b = eventBytesFor(4);
    const id = idOf(b);
    await s.append(T, id, b);
    const dir = join(root, 'tickets', T, 'events');
    writeFileSync(join(dir, `.tmp-${id}.edn.123.abc`), 'partial');
    writeFileSync(join(dir, 'notes.txt'), 'x');
    writeFileSync(join(dir, `${id}.EDN`), 'x');
    writeFileSync(join(dir, `${id}.sig.short`), 'x');
    expect((await s.events(T)).map((e) => e.id)).toEqual([id]);
    expect(await s.sidecarNames(T)).toEqual([]);
  });

  it('allEventIds lists events from file names without reading their bytes', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const b = eventBytesFor(n);
      ids.push(idOf(b));
      await s.append(T, idOf(b), b);
    }
    // an event file replaced by a directory cannot be read, yet it is listed: the listing is
    // names only (readers of bytes — events, sync — are the ones that see the damage)
    rmSync(join(root, 'tickets', T, 'events', `${ids[1]}.edn`));
    mkdirSync(join(root, 'tickets', T, 'events', `${ids[1]}.edn`));
    expect((await s.allEventIds()).map((r) => r.id).sort()).toEqual([...ids].sort());
    await expect(s.events(T)).rejects.toMatchObject({ code: 'store/io' });
  });

  it('a write that fails before its rename leaves no event file and no temporary file', async () => {
    const root = tempDir();
    await initStore(root);
    const failing = new FileStore(root, {
      writeHooks: {
        beforeRename: () => {
          throw new Error('disk full');
        },
      },
    });
    const b = eventBytesFor(5);
    const id = idOf(b);
    await expect(failing.append(T, id, b)).rejects.toMatchObject({ code: 'store/io', message: expect.stringContaining('disk full') });
    expect(await failing.hasEvent(T, id)).toBe(false);
    expect(tree(root)).toEqual([]);
    await expect(failing.putSidecar(T, `${id}.sig.0123456789abcdef`, Buffer.from('s'))).rejects.toMatchObject({ code: 'store/io', message: expect.stringContaining('disk full') });
    await expect(failing.putBlob(T, Buffer.from('blob'))).rejects.toMatchObject({ code: 'store/io', message: expect.stringContaining('disk full') });
    await expect(failing.addActor('seb', `ssh-ed25519 ${'A'.repeat(4)}`)).rejects.toMatchObject({ code: 'store/bad-public-key' });
    expect(tree(root)).toEqual([]);
    // the same store, healthy, writes normally afterwards
    const healthy = new FileStore(root);
    expect(await healthy.append(T, id, b)).toBe(true);
    expect(tree(root)).toEqual([`tickets/${T}/events/${id}.edn`]);
  });

  it('a write the file system refuses is a store/io error naming the path, and leaves nothing behind', async () => {
    const root = tempDir();
    await initStore(root);
    mkdirSync(join(root, 'tickets', T));
    writeFileSync(join(root, 'tickets', T, 'events'), 'a file where a directory should be');
    const s = openFileStore(root);
    const b = eventBytesFor(6);
    const err = await s.append(T, idOf(b), b).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'store/io' });
    expect(String((err as Error).message)).toContain(join('tickets', T, 'events'));
    expect(tree(root)).toEqual([`tickets/${T}/events`]);
  });

  it('of many concurrent appends of one event exactly one writes it, and no temporary file remains', async () => {
    const root = tempDir();
    await initStore(root);
    const b = eventBytesFor(8);
    const id = idOf(b);
    const stores = Array.from({ length: 8 }, () => new FileStore(root));
    const results = await Promise.all(stores.map((s) => s.append(T, id, b)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(tree(root)).toEqual([`tickets/${T}/events/${id}.edn`]);
  });

  it('append never overwrites an existing event file, even a damaged one (verify reports it)', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const b = eventBytesFor(9);
    const id = idOf(b);
    mkdirSync(join(root, 'tickets', T, 'events'), { recursive: true });
    writeFileSync(join(root, 'tickets', T, 'events', `${id}.edn`), 'damaged');
    expect(await s.append(T, id, b)).toBe(false);
    expect(readFileSync(join(root, 'tickets', T, 'events', `${id}.edn`), 'utf8')).toBe('damaged');
  });

  it('a reader never sees a partial event while a writer is mid-write', async () => {
    const root = tempDir();
    await initStore(root);
    const b = eventBytesFor(7);
    const id = idOf(b);
    const seen: number[] = [];
    const s = new FileStore(root, {
      writeHooks: {
        beforeRename: async () => {
          // the bytes are complete on disk under a temporary name, and invisible to readers
          seen.push((await new FileStore(root).events(T)).length);
        },
      },
    });
    await s.append(T, id, b);
    expect(seen).toEqual([0]);
    expect((await s.events(T)).length).toBe(1);
  });
});

describe('the conformance corpus in a file store', () => {
  const cases = readdirSync(CORPUS);

  it('has the three upstream cases', () => {
    expect(cases.sort()).toEqual(['concurrent-conflict', 'support-closed-sticky', 'sweep-order-negation']);
  });

  for (const c of cases) {
    it(`${c}: read in place, every event's bytes hash to its name`, async () => {
      const s = openFileStore(join(CORPUS, c));
      const [ticket, ...others] = await s.ticketIds();
      expect(others).toEqual([]);
      const events = await s.events(ticket!);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(idOf(e.bytes)).toBe(e.id);
      expect(await s.listProcesses()).toEqual(readdirSync(join(CORPUS, c, 'processes')).map((n) => n.replace(/\.edn$/, '')));
    });

    it(`${c}: copied into a fresh store, reads back byte-exactly at the same paths`, async () => {
      const src = openFileStore(join(CORPUS, c));
      const root = tempDir();
      const dst = await initStore(root);
      for (const t of await src.ticketIds()) {
        for (const e of await src.events(t)) expect(await dst.append(t, e.id, e.bytes)).toBe(true);
      }
      for (const p of await src.listProcesses()) await dst.writeNamedProcess(p, (await src.readNamedProcess(p))!);
      for (const t of await src.ticketIds()) {
        const a = new Map((await src.events(t)).map((e) => [e.id, Buffer.from(e.bytes)]));
        const b = new Map((await dst.events(t)).map((e) => [e.id, Buffer.from(e.bytes)]));
        expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
        for (const [id, bytes] of a) expect(b.get(id)!.equals(bytes)).toBe(true);
      }
      const theirs = tree(join(CORPUS, c)).filter((p) => p !== 'expected.edn');
      expect(tree(root)).toEqual(theirs);
      // byte-identical files: the same tree a `cp -r` would give
      execFileSync('diff', ['-r', '-x', 'expected.edn', '-x', 'by-hash', join(CORPUS, c), root]);
    });
  }
});

describe('actors', () => {
  const key = 'AAAAC3NzaC1lZDI1NTE5AAAAII0gP9F5BHjq7Mq4j0A6uecdje9BQmvbmCrX706/bthA';

  it('adds allowed-signers lines, once per name and key', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const entry = await s.addActor('seb', `ssh-ed25519 ${key} seb@laptop\n`);
    expect(entry.line).toBe(`seb namespaces="tik-*" ssh-ed25519 ${key} seb@laptop`);
    expect(entry.fpr16).toMatch(/^[0-9a-f]{16}$/);
    await s.addActor('seb', `ssh-ed25519 ${key} seb@laptop`);
    await s.addActor('ops', `ssh-ed25519 ${key}`);
    expect(readFileSync(join(root, 'actors'), 'utf8')).toBe(
      `seb namespaces="tik-*" ssh-ed25519 ${key} seb@laptop\nops namespaces="tik-*" ssh-ed25519 ${key}\n`,
    );
    const actors = await s.readActors();
    expect(actors.map((a) => a.principals)).toEqual([['seb'], ['ops']]);
  });

  it('refuses bad names and keys without writing', async () => {
    const root = tempDir();
    const s = await initStore(root);
    await expect(s.addActor('two words', `ssh-ed25519 ${key}`)).rejects.toMatchObject({ code: 'store/bad-actor-name' });
    await expect(s.addActor('a,b', `ssh-ed25519 ${key}`)).rejects.toMatchObject({ code: 'store/bad-actor-name' });
    await expect(s.addActor('seb', `ssh-rsa ${key}`)).rejects.toMatchObject({
      code: 'store/bad-public-key',
      message: expect.stringContaining('the key line says ssh-rsa but the key is ssh-ed25519'),
    });
    await expect(s.addActor('seb', 'ssh-ed25519 AAAA!!!!')).rejects.toMatchObject({ code: 'store/bad-public-key' });
    await expect(s.addActor('seb', 'not a key')).rejects.toMatchObject({ code: 'store/bad-public-key' });
    expect(existsSync(join(root, 'actors'))).toBe(false);
  });

  it('a broken actors file is reported with its line, and is not extended', async () => {
    const root = tempDir();
    const s = await initStore(root);
    writeFileSync(join(root, 'actors'), `seb ssh-ed25519 ${key}\nbroken\n`);
    await expect(s.readActors()).rejects.toMatchObject({ code: 'store/bad-actors', where: `${join(root, 'actors')}:2` });
    await expect(s.addActor('ops', `ssh-ed25519 ${key}`)).rejects.toMatchObject({ code: 'store/bad-actors' });
    expect(readFileSync(join(root, 'actors'), 'utf8')).toBe(`seb ssh-ed25519 ${key}\nbroken\n`);
  });

  it('no actors file reads as no actors; roles.edn is read verbatim', async () => {
    const root = tempDir();
    const s = await initStore(root);
    expect(await s.readActors()).toEqual([]);
    expect(await s.readRolesRegister()).toBeUndefined();
    writeFileSync(join(root, 'roles.edn'), '{:triager {:members ["seb"]}}\n');
    expect(await s.readRolesRegister()).toBe('{:triager {:members ["seb"]}}\n');
  });

  it('processes/*.tests.edn are not definitions', async () => {
    const root = tempDir();
    const s = await initStore(root);
    await s.writeNamedProcess('track', '{}');
    writeFileSync(join(root, 'processes', 'track.tests.edn'), '{}');
    writeFileSync(join(root, 'processes', 'README.md'), '');
    expect(await s.listProcesses()).toEqual(['track']);
    await expect(s.writeNamedProcess('track.tests', '{}')).rejects.toMatchObject({ code: 'store/bad-process-name' });
  });
});

describe('batched appends and reads by id (the sync bulk path)', () => {
  const events = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ id: idOf(eventBytesFor(from + i, T)), bytes: eventBytesFor(from + i, T) }));

  it('a new ticket appears whole, with every event of the batch, and nothing is left aside', async () => {
    const root = tempDir();
    const s = await initStore(root);
    const batch = events(0, 20);
    expect(await s.appendBatch(T, batch)).toEqual(batch.map(() => true));
    expect((await s.events(T)).map((e) => e.id).sort()).toEqual(batch.map((e) => e.id).sort());
    expect(readdirSync(join(root, 'tickets')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(readdirSync(join(root, 'tickets', T, 'events')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('an existing ticket gets only what is new; a repeated id counts once, large and small batches alike', async () => {
    const s = await initStore(tempDir());
    await s.appendBatch(T, events(0, 10));
    const large = [...events(5, 30), ...events(12, 13)];
    expect(await s.appendBatch(T, large)).toEqual([...events(5, 30).map((_, i) => i >= 5), false]);
    const small = [...events(29, 33), ...events(31, 32)];
    expect(await s.appendBatch(T, small)).toEqual([false, true, true, true, false]);
    expect((await s.events(T)).length).toBe(33);
  });

  it('a batch with one event that does not hash to its id writes nothing', async () => {
    const root = tempDir();
    const s = await initStore(root);
    await s.appendBatch(T, events(0, 3));
    const before = tree(root);
    const bad = [...events(3, 12), { id: idOf(eventBytesFor(40, T)), bytes: eventBytesFor(41, T) }];
    await expect(s.appendBatch(T, bad)).rejects.toMatchObject({ code: 'store/hash-mismatch' });
    await expect(s.appendBatch('018f2f6e-7c1a-7000-8000-00000000000b', bad)).rejects.toMatchObject({ code: 'store/hash-mismatch' });
    expect(tree(root)).toEqual(before);
  });

  it('eventsById reads the asked-for events that are stored, and nothing else', async () => {
    const s = await initStore(tempDir());
    const stored = events(0, 12);
    await s.appendBatch(T, stored);
    const asked = [stored[3]!.id, stored[9]!.id, idOf(eventBytesFor(77, T))];
    const got = await s.eventsById(T, asked);
    expect(got.map((e) => e.id).sort()).toEqual([stored[3]!.id, stored[9]!.id].sort());
    for (const e of got) expect(Buffer.from(e.bytes).equals(Buffer.from(stored.find((x) => x.id === e.id)!.bytes))).toBe(true);
    expect(await s.eventsById('018f2f6e-7c1a-7000-8000-00000000000c', asked)).toEqual([]);
  });
});
