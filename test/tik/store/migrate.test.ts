import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { initStore } from '../../../src/tik/store/file/open-file-store.js';
import { exportStore, importTree } from '../../../src/tik/store/export-import.js';
import { MemoryStore } from '../../../src/tik/store/memory/memory-store.js';
import { blobHashesOf, copyStore, eventKeys, migrateStore } from '../../../src/tik/store/migrate.js';
import { initSqliteStore } from '../../../src/tik/store/open-store.js';
import type { EventStore } from '../../../src/tik/store/store.js';
import { idOf } from './event-store-contract.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { Instant, Uuid, kw } from '../../../src/tik/edn/value.js';
import { ednMap } from '../../../src/tik/edn/index.js';
import { signatureSidecar, testKey } from '../sync/test-keys.js';

const KEY = testKey('seb');
const T0 = Date.parse('2026-07-08T10:00:00Z');

/** A real, canonical event (admission refuses anything else): a create titled by `raw`, or an attach. */
function realEvent(ticket: string, raw: Uint8Array, i: number, attach?: { parent: string; hash: string }): Buffer {
  const m = mintEvent({
    ticket: new Uuid(ticket),
    type: kw(attach ? 'artifact/attach' : 'ticket/create'),
    actor: 'seb',
    at: new Instant(T0 + i),
    parents: attach ? [attach.parent] : [],
    body: attach
      ? ednMap([[kw('artifact/path'), 'x'], [kw('artifact/hash'), attach.hash]])
      : ednMap([[kw('ticket/title'), Buffer.from(raw).toString('hex')], [kw('ticket/process'), kw('p')]]),
  });
  return Buffer.from(m.text, 'utf8');
}

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tik-migrate-'));
  temps.push(d);
  return d;
}
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

const TICKETS = ['018f2f6e-7c1a-7000-8000-000000000001', '018f2f6e-7c1a-7000-8000-000000000002', '018f2f6e-7c1a-7000-8000-000000000003'];

/** A store's whole content as comparable text: events with bytes, sidecars, blobs, side files read through the contract. */
async function content(s: EventStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of await s.ticketIds()) {
    for (const e of await s.events(t)) out[`e ${t} ${e.id}`] = Buffer.from(e.bytes).toString('hex');
    for (const n of await s.sidecarNames(t)) out[`s ${t} ${n}`] = Buffer.from((await s.readSidecar(t, n))!).toString('hex');
    for (const h of await blobHashesOf(s, t)) out[`b ${t} ${h}`] = Buffer.from((await s.readBlob(t, h))!).toString('hex');
  }
  for (const h of await s.archivedProcessHashes()) out[`p ${h}`] = (await s.readProcessByHash(h))!;
  out.roles = (await s.readRolesRegister()) ?? '';
  return out;
}

const storeContent = fc.record({
  events: fc.array(fc.tuple(fc.constantFrom(...TICKETS), fc.uint8Array({ maxLength: 60 }), fc.boolean()), { maxLength: 12 }),
  blobs: fc.array(fc.tuple(fc.constantFrom(...TICKETS), fc.uint8Array({ maxLength: 40 })), { maxLength: 4 }),
  roles: fc.option(fc.constantFrom('{:triager {:members ["seb"]}}', '{}'), { nil: undefined }),
});

interface Content {
  readonly events: readonly (readonly [string, Uint8Array, boolean])[];
  readonly blobs: readonly (readonly [string, Uint8Array])[];
  readonly roles: string | undefined;
}

async function fill(s: MemoryStore, c: Content): Promise<void> {
  let i = 0;
  for (const [t, raw, signed] of c.events) {
    const b = realEvent(t, raw, i++);
    await s.append(t, idOf(b), b);
    if (signed) {
      const sc = signatureSidecar(KEY, idOf(b), b);
      await s.putSidecar(t, sc.name, sc.bytes);
    }
  }
  for (const [t, b] of c.blobs) {
    // a blob belongs to a ticket that names it (admission refuses a blob no attach names)
    const hash = await s.putBlob(t, b);
    const root = realEvent(t, b, i++);
    await s.append(t, idOf(root), root);
    const att = realEvent(t, b, i++, { parent: idOf(root), hash });
    await s.append(t, idOf(att), att);
  }
  await s.archiveProcess('{:process/id :p :process/stages [{:stage/id :a}] :process/version 1}');
  if (c.roles !== undefined) await s.writeSideFile('roles.edn', Buffer.from(c.roles));
}

describe('copying stores', () => {
  it('law: memory → SQLite → file → memory keeps every event byte, sidecar, blob and definition', async () => {
    await fc.assert(
      fc.asyncProperty(storeContent, async (c) => {
        const src = new MemoryStore();
        await fill(src, c);
        const sq = await initSqliteStore(tempDir(), { durable: false });
        const file = await initStore(tempDir(), { durable: false });
        const back = new MemoryStore();
        try {
          await copyStore(src, sq);
          await copyStore(sq, file);
          await copyStore(file, back);
          const want = await content(src);
          expect(await content(sq)).toEqual(want);
          expect(await content(file)).toEqual(want);
          expect(await content(back)).toEqual(want);
        } finally {
          await sq.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('law: importing an exported tree twice equals importing it once', async () => {
    await fc.assert(
      fc.asyncProperty(storeContent, fc.array(fc.tuple(fc.constantFrom(...TICKETS), fc.nat({ max: 50 })), { maxLength: 10 }), async (c, evs) => {
        // import checks that events parse: real event maps, not raw bytes
        const src = new MemoryStore();
        await fill(src, { ...c, events: [] });
        for (const [t, n] of evs) {
          const b = realEvent(t, Buffer.from(String(n)), 1000 + n);
          await src.append(t, idOf(b), b);
          if (n % 2 === 0) {
            const sc = signatureSidecar(KEY, idOf(b), b);
            await src.putSidecar(t, sc.name, sc.bytes);
          }
        }
        const tree = join(tempDir(), 'tree');
        await exportStore(src, tree);
        const target = new MemoryStore();
        const first = await importTree(tree, target);
        const once = await content(target);
        const second = await importTree(tree, target);
        expect(second.newEvents).toBe(0);
        expect(second.sideFiles).toBe(0);
        expect(await content(target)).toEqual(once);
        expect(first.newEvents).toBe((await eventKeys(src)).length);
        expect(once).toEqual(await content(src));
      }),
      { numRuns: 25 },
    );
  });

  it('import never replaces the target\'s roles register or named definitions', async () => {
    const src = new MemoryStore();
    await src.writeSideFile('roles.edn', Buffer.from('{:triager {:members ["mallory"]}}'));
    await src.writeNamedProcess('p', '{:process/id :evil}');
    const tree = join(tempDir(), 'tree');
    await exportStore(src, tree);
    const target = new MemoryStore();
    await target.writeSideFile('roles.edn', Buffer.from('{:triager {:members ["seb"]}}'));
    await target.writeNamedProcess('p', '{:process/id :p}');
    await importTree(tree, target);
    expect(await target.readRolesRegister()).toBe('{:triager {:members ["seb"]}}');
    expect(await target.readNamedProcess('p')).toBe('{:process/id :p}');
  });
});

describe('migrateStore', () => {
  it('refuses when the copy does not hold the same ids, removes nothing and undoes the target', async () => {
    const src = new MemoryStore();
    await fill(src, { events: [[TICKETS[0]!, Buffer.from('a'), false], [TICKETS[1]!, Buffer.from('b'), true]], blobs: [], roles: undefined });
    const before = await content(src);
    // a target that loses one append while reporting success (a broken disk, say)
    const inner = new MemoryStore();
    let dropped = false;
    const lossy = Object.assign(Object.create(inner) as MemoryStore, {
      append: async (t: string, id: string, b: Uint8Array) => {
        if (!dropped) {
          dropped = true;
          return true;
        }
        return inner.append(t, id, b);
      },
    });
    let undone = false;
    await expect(migrateStore(src, lossy, { undoTarget: async () => void (undone = true) })).rejects.toMatchObject({ code: 'store/migrate-mismatch' });
    expect(undone).toBe(true);
    expect(await content(src)).toEqual(before);
  });

  it('refuses a target that already holds tickets before writing anything, and does not undo it', async () => {
    const src = new MemoryStore();
    await fill(src, { events: [[TICKETS[0]!, Buffer.from('a'), false]], blobs: [], roles: undefined });
    const target = new MemoryStore();
    await fill(target, { events: [[TICKETS[2]!, Buffer.from('z'), false]], blobs: [], roles: undefined });
    const held = await content(target);
    let undone = false;
    await expect(migrateStore(src, target, { undoTarget: async () => void (undone = true) })).rejects.toMatchObject({ code: 'store/exists' });
    expect(undone).toBe(false);
    expect(await content(target)).toEqual(held);
  });
});

describe('SQL stores file an event under one ticket', () => {
  it('the same bytes appended under a second ticket are refused, not silently dropped', async () => {
    const s = await initSqliteStore(tempDir());
    try {
      const b = Buffer.from('bytes of one ticket');
      await s.append(TICKETS[0]!, idOf(b), b);
      await expect(s.append(TICKETS[1]!, idOf(b), b)).rejects.toMatchObject({ code: 'store/ticket-mismatch' });
      expect(await s.append(TICKETS[0]!, idOf(b), b)).toBe(false);
      expect(await s.ticketIds()).toEqual([TICKETS[0]]);
    } finally {
      await s.close();
    }
  });
});

// Issue 13: admission runs on every path bytes enter a store — import and migrate included, not
// only sync and writes. A non-canonical spelling of a real event (it hashes to its own name: the
// bytes are hashed, not re-emitted) and bytes that are not UTF-8 are refused, and nothing enters.
describe('import and migrate admit only canonical UTF-8 events', () => {
  const ticket = TICKETS[0]!;
  const good = realEvent(ticket, Buffer.from('ok'), 1);
  const bad: Record<string, Buffer> = {
    'non-canonical (two spaces)': Buffer.from(good.toString('utf8').replace(' ', '  '), 'utf8'),
    'invalid UTF-8': Buffer.concat([good.subarray(0, good.indexOf('"') + 1), Buffer.from([0xc3, 0x28]), good.subarray(good.indexOf('"') + 1)]),
  };
  for (const [what, bytes] of Object.entries(bad)) {
    it(`import refuses an event file that is ${what}, and writes nothing`, async () => {
      const tree = join(tempDir(), 'tree');
      await exportStore(new MemoryStore(), tree); // export admits too: the bad file is put there by hand
      mkdirSync(join(tree, 'tickets', ticket, 'events'), { recursive: true });
      writeFileSync(join(tree, 'tickets', ticket, 'events', `${idOf(bytes)}.edn`), bytes);
      const target = new MemoryStore();
      await expect(importTree(tree, target)).rejects.toMatchObject({ message: expect.stringMatching(/admission\/(not-canonical|not-utf8)/) });
      expect(await target.ticketIds()).toEqual([]);
    });

    it(`migrate refuses a source event that is ${what}, undoes the target and keeps the source`, async () => {
      const src = new MemoryStore();
      await src.append(ticket, idOf(bytes), bytes); // a memory store keeps any bytes verbatim
      const before = await content(src);
      const target = new MemoryStore();
      let undone = false;
      await expect(migrateStore(src, target, { undoTarget: async () => void (undone = true) })).rejects.toMatchObject({ code: expect.stringMatching(/^admission\/(not-canonical|not-utf8)$/) });
      expect(undone).toBe(true);
      expect(await content(src)).toEqual(before);
    });
  }
});
