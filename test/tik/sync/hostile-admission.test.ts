import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { EdnMap, Instant, Uuid, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { mintEvent, parseEvent } from '../../../src/tik/kernel/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { ADMISSION_LIMITS } from '../../../src/tik/store/admission/index.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { LIMITS, decodeBundle, encodeBundle, localTransport, syncWith, type Bundle, type SyncTransport } from '../../../src/tik/sync/index.js';
import { SyncResponder } from '../../../src/tik/sync/responder.js';
import { cleanup, json, supportStore, tik } from '../cli/harness.js';
import { ednMapOf } from './edn-helpers.js';
import { signatureSidecar, testKey } from './test-keys.js';

// Issue 13, the admission findings: a fake peer that speaks the wire format (bundles, fetch
// answers) pushes or answers with hostile records; each is refused or held back, nothing hostile
// is stored, and `ls` keeps working for the whole store.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

const KEY = testKey('seb');
const OTHER = '018f2f6e-7c1a-7000-8000-00000000beef';

interface Replica {
  readonly dir: string;
  readonly store: FileStore;
  readonly ticket: string;
  readonly createId: string;
  readonly createBytes: Buffer;
}

/** A file store with the support-request process and one ticket made by `tik new`. */
async function replica(): Promise<Replica> {
  const dir = await supportStore();
  dirs.push(dir);
  const made = await tik(dir, ['new', 'support-request', '--title', 'printer', '--json']);
  expect(made.code).toBe(0);
  const { ticket, event } = json<{ ticket: string; event: string }>(made);
  const store = new FileStore(dir);
  return { dir, store, ticket, createId: event, createBytes: Buffer.from((await store.eventBytes(ticket, event))!) };
}

const empty: Bundle = { processes: [], blobs: [], events: [], sidecars: [] };

/** A pushed bundle's outcome: the error code and message, or the summary. */
async function push(r: Replica, bundle: Bundle): Promise<{ code?: string; message?: string; stored?: number; deferred?: number }> {
  try {
    const s = await new SyncResponder(r.store).push(encodeBundle(bundle));
    return { stored: s.stored, deferred: s.deferred ?? 0 };
  } catch (e) {
    if (!(e instanceof TikError)) throw e;
    return { code: e.code, message: e.message };
  }
}

function eventsOnDisk(dir: string): string[] {
  const out: string[] = [];
  for (const t of readdirSync(join(dir, 'tickets'))) for (const f of readdirSync(join(dir, 'tickets', t, 'events'))) out.push(`${t}/${f}`);
  return out.sort();
}

/** `ls --all --json` must answer for the whole store after any push. */
async function lsWorks(r: Replica): Promise<unknown> {
  const ls = await tik(r.dir, ['ls', '--all', '--json']);
  expect(ls.stderr).toBe('');
  expect(ls.code).toBe(0);
  return JSON.parse(ls.stdout);
}

function mint(ticket: string, type: string, parents: readonly string[], body: EdnMap, at = Date.parse('2026-07-08T11:00:00Z')): { id: string; bytes: Buffer } {
  const m = mintEvent({ ticket: new Uuid(ticket), type: kw(type), actor: 'mallory', at: new Instant(at), parents, body });
  return { id: m.event.id, bytes: Buffer.from(m.text, 'utf8') };
}


describe('a hostile peer cannot damage a replica through admission', () => {
  it('a one-byte sidecar never replaces a real signature, and the real one is what spreads', async () => {
    const r = await replica();
    const sig = signatureSidecar(KEY, r.createId, r.createBytes);
    await r.store.putSidecar(r.ticket, sig.name, sig.bytes);
    const res = await push(r, { ...empty, sidecars: [{ ticket: r.ticket, name: sig.name, bytes: Buffer.from('x') }] });
    expect(res.code).toBe('sync/refused');
    expect(res.message).toMatch(/admission\/bad-sidecar/);
    expect(Buffer.from((await r.store.readSidecar(r.ticket, sig.name))!)).toEqual(sig.bytes);
    // an honest replica that syncs gets the real signature
    const honest = await replica();
    await syncWith(honest.store, localTransport(r.store));
    expect(Buffer.from((await honest.store.readSidecar(r.ticket, sig.name))!)).toEqual(sig.bytes);
  });

  it('a forged signature (valid armour, other bytes) is refused even where none is stored', async () => {
    const r = await replica();
    const forged = signatureSidecar(KEY, r.createId, Buffer.from('other bytes'));
    const res = await push(r, { ...empty, sidecars: [{ ticket: r.ticket, name: forged.name, bytes: forged.bytes }] });
    expect(res.message).toMatch(/does not verify over the event's bytes.*admission\/bad-sidecar/);
    expect(await r.store.sidecarNames(r.ticket)).toEqual([]);
  });

  it('non-canonical bytes that hash to their own name are refused', async () => {
    const r = await replica();
    const good = mint(r.ticket, 'fact/assert', [r.createId], ednMapOf({ 'fact/path': [kw('category')], 'fact/value': kw('technical') }));
    const text = good.bytes.toString('utf8');
    for (const bad of [text + '\n', text.replace(' ', '  '), `{:event/type :fact/assert ${text.slice(1).replace(' :event/type :fact/assert}', '}')}`]) {
      const bytes = Buffer.from(bad, 'utf8');
      expect(() => parseEvent(bad, sha256Id(bytes))).not.toThrow(); // it reads: only re-emission tells
      const res = await push(r, { ...empty, events: [{ ticket: r.ticket, id: sha256Id(bytes), bytes }] });
      expect(res.message).toMatch(/admission\/not-canonical/);
    }
    expect(eventsOnDisk(r.dir)).toEqual([`${r.ticket}/${r.createId}.edn`]);
  });

  it('invalid UTF-8 is refused', async () => {
    const r = await replica();
    const good = mint(r.ticket, 'fact/assert', [r.createId], ednMapOf({ 'fact/path': [kw('category')], 'fact/value': 'caf\u00e9' }));
    const bytes = Buffer.from(good.bytes);
    bytes[bytes.indexOf(0xc3)] = 0xff;
    const res = await push(r, { ...empty, events: [{ ticket: r.ticket, id: sha256Id(bytes), bytes }] });
    expect(res.message).toMatch(/admission\/not-utf8/);
    expect(eventsOnDisk(r.dir)).toEqual([`${r.ticket}/${r.createId}.edn`]);
  });

  it('an event of a ticket with no create is held back, and listings keep working', async () => {
    const r = await replica();
    const orphan = mint(OTHER, 'fact/assert', [sha256Id('no such parent')], ednMapOf({ 'fact/path': [kw('category')], 'fact/value': kw('technical') }));
    const res = await push(r, { ...empty, events: [{ ticket: OTHER, id: orphan.id, bytes: orphan.bytes }] });
    expect(res).toEqual({ stored: 0, deferred: 1 });
    expect(await r.store.ticketIds()).toEqual([r.ticket]);
    expect(await lsWorks(r)).toHaveLength(1);
    expect((await tik(r.dir, ['next', '--json'])).code).toBe(0);
  });

  it('a create pinned to an unknown definition is held back, and listings keep working', async () => {
    const r = await replica();
    const c = mint(OTHER, 'ticket/create', [], ednMapOf({ 'ticket/title': 'x', 'ticket/process': kw('support-request'), 'ticket/process-version': 1n, 'ticket/process-hash': sha256Id('unknown definition') }));
    const res = await push(r, { ...empty, events: [{ ticket: OTHER, id: c.id, bytes: c.bytes }] });
    expect(res).toEqual({ stored: 0, deferred: 1 });
    expect(await r.store.ticketIds()).toEqual([r.ticket]);
    expect(await lsWorks(r)).toHaveLength(1);
  });

  it('a blob for a ticket with no events is refused (an attach of another ticket does not name it)', async () => {
    const r = await replica();
    const blob = Buffer.from('payload');
    const attach = mint(r.ticket, 'artifact/attach', [r.createId], ednMapOf({ 'artifact/path': 'repro/x', 'artifact/hash': sha256Id(blob) }));
    const res = await push(r, { ...empty, events: [{ ticket: r.ticket, id: attach.id, bytes: attach.bytes }], blobs: [{ ticket: OTHER, bytes: blob }] });
    expect(res.message).toMatch(/admission\/unnamed-blob/);
    expect(await r.store.ticketIds()).toEqual([r.ticket]);
    expect(await lsWorks(r)).toHaveLength(1);
  });

  it('a fetch answer with an event nobody asked for is refused, and nothing of it is stored', async () => {
    const honest = await replica();
    const puller = await replica();
    const extra = mint(OTHER, 'ticket/create', [], ednMapOf({ 'ticket/title': 'smuggled', 'ticket/process': kw('p') }));
    const real = localTransport(honest.store);
    const hostile: SyncTransport = {
      reconcile: real.reconcile,
      push: real.push,
      fetch: async (req) => {
        const b = decodeBundle(await real.fetch(req));
        return encodeBundle({ ...b, events: [...b.events, { ticket: OTHER, id: extra.id, bytes: extra.bytes }] });
      },
    };
    await expect(syncWith(puller.store, hostile, { direction: 'pull' })).rejects.toMatchObject({ code: 'sync/refused', message: expect.stringMatching(/was not asked for.*admission\/unrequested/) });
    expect(await puller.store.hasEvent(OTHER, extra.id)).toBe(false);
    expect(await puller.store.ticketIds()).not.toContain(OTHER);
  });

  it('a definition is admitted only when its text hashes to the pin of an event in the same bundle', async () => {
    const r = await replica();
    const def = readEdn(readFileSync(join(r.dir, 'processes/support-request.edn'), 'utf8')) as EdnMap;
    const mine = EdnMap.fromKeyed([...def.textEntries()].map(([t, k, v]): readonly [string, EdnValue, EdnValue] => [t, k, t === ':process/version' ? 99n : v]));
    const text = emit(mine);
    const pinned = sha256Id(Buffer.from(emit(def), 'utf8'));
    const c = mint(OTHER, 'ticket/create', [], ednMapOf({ 'ticket/title': 'x', 'ticket/process': kw('support-request'), 'ticket/process-version': 1n, 'ticket/process-hash': pinned }));
    const res = await push(r, { processes: [text], blobs: [], sidecars: [], events: [{ ticket: OTHER, id: c.id, bytes: c.bytes }] });
    expect(res.message).toMatch(/is not pinned by any event.*admission\/unpinned-definition/);
    expect(await r.store.readProcessByHash(sha256Id(Buffer.from(text, 'utf8')))).toBeUndefined();
  });

  it('the write API refuses a value larger than any bundle may carry, so every write replicates', async () => {
    const r = await replica();
    const before = eventsOnDisk(r.dir);
    const big = 'x'.repeat(ADMISSION_LIMITS.event + 1);
    const res = await tik(r.dir, ['set', r.ticket, `note=${big}`]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/admission\/too-large/);
    expect(eventsOnDisk(r.dir)).toEqual(before);
    expect(LIMITS).toBe(ADMISSION_LIMITS); // one set of limits for writes and bundles
  });

  it('an honest chain split over fetch batches still arrives whole (held back, then asked again)', async () => {
    const a = await replica();
    // children claim EARLIER times than their parents, so the time-ordered batches bring them first
    let parent = a.createId;
    for (let i = 1; i <= 4; i++) {
      const e = mint(a.ticket, 'fact/assert', [parent], ednMapOf({ 'fact/path': [kw('n')], 'fact/value': BigInt(i) }), Date.parse('2026-07-08T09:00:00Z') - i * 1000);
      await a.store.append(a.ticket, e.id, e.bytes);
      parent = e.id;
    }
    const b = await replica();
    await syncWith(b.store, localTransport(a.store), { batch: 1 });
    expect((await b.store.events(a.ticket)).map((e) => e.id).sort()).toEqual((await a.store.events(a.ticket)).map((e) => e.id).sort());
  });
});
