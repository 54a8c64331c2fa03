import { describe, expect, it } from 'vitest';
import { emit } from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { decodeBundle, encodeBundle, localTransport, receiveBundle, syncWith, type Bundle } from '../../../src/tik/sync/index.js';
import { Instant, Uuid, ednMapOf, kw } from './edn-helpers.js';
import { TestMemoryStore } from './memory-store.js';
import { keyFpr, signatureSidecar, testKey, witnessSidecar } from './test-keys.js';
import { signSshSignature } from '../../../src/core/sshsig.js';

const KEY = testKey('seb');

const TICKET = '018f2f6e-7c1a-7000-8000-0000000000aa';

function chain(n: number): { id: string; text: string }[] {
  const out: { id: string; text: string }[] = [];
  for (let i = 0; i < n; i++) {
    const isCreate = i === 0;
    const m = mintEvent({
      ticket: new Uuid(TICKET),
      type: kw(isCreate ? 'ticket/create' : 'fact/assert'),
      actor: 'seb',
      // children deliberately claim EARLIER times than parents: transfer order must follow parents, not time
      at: new Instant(Date.parse('2026-07-01T00:00:00Z') - i * 1000),
      parents: isCreate ? [] : [out[i - 1]!.id],
      body: isCreate ? ednMapOf({ 'ticket/title': 't', 'ticket/process': kw('p') }) : ednMapOf({ 'fact/path': [kw('n')], 'fact/value': BigInt(i) }),
    });
    out.push({ id: m.event.id, text: m.text });
  }
  return out;
}

async function storeWith(events: { id: string; text: string }[]): Promise<TestMemoryStore> {
  const s = new TestMemoryStore();
  for (const e of events) await s.append(TICKET, e.id, Buffer.from(e.text));
  return s;
}

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return e instanceof TikError ? `${e.code}: ${e.message}` : `not a TikError: ${String(e)}`;
  }
  return 'no error';
};

describe('sync transfer', () => {
  it('sends parents before children, with sidecars and blobs, and is idempotent', async () => {
    const events = chain(5);
    const a = await storeWith(events);
    const { name: sig, bytes: sigBytes } = signatureSidecar(KEY, events[2]!.id, Buffer.from(events[2]!.text));
    await a.putSidecar(TICKET, sig, sigBytes);
    const blobHash = await a.putBlob(TICKET, Buffer.from('blob bytes'));
    const attach = mintEvent({
      ticket: new Uuid(TICKET),
      type: kw('artifact/attach'),
      actor: 'seb',
      at: new Instant(Date.parse('2026-07-02T00:00:00Z')),
      parents: [events[4]!.id],
      body: ednMapOf({ 'artifact/path': 'a.txt', 'artifact/hash': blobHash }),
    });
    await a.append(TICKET, attach.event.id, Buffer.from(attach.text));
    const b = new TestMemoryStore();
    const order: string[] = [];
    const origAppend = b.append.bind(b);
    b.append = async (t, id, bytes) => (order.push(id), origAppend(t, id, bytes));
    const r = await syncWith(b, localTransport(a));
    expect(r.pulled).toBe(6);
    expect(order).toEqual([...events.map((e) => e.id), attach.event.id]);
    expect(await b.readSidecar(TICKET, sig)).toEqual(Uint8Array.from(sigBytes));
    expect(await b.readBlob(TICKET, blobHash)).toEqual(Uint8Array.from(Buffer.from('blob bytes')));
    const again = await syncWith(b, localTransport(a));
    expect([again.rounds, again.pulled, again.pushed, b.appends]).toEqual([1, 0, 0, 6]);
  });

  it('a responder caps its fetch answers in bytes; the initiator asks again for the rest', async () => {
    const events = chain(40);
    const a = await storeWith(events);
    const b = new TestMemoryStore();
    const sizes: number[] = [];
    const t = localTransport(a, { limits: { bundleBytes: (1 << 20) + 2000 } });
    const r = await syncWith(b, { ...t, fetch: async (m) => { const out = await t.fetch(m); sizes.push(out.length); return out; } });
    expect(r.pulled).toBe(40);
    expect(r.undelivered).toBe(0);
    expect(sizes.length).toBeGreaterThan(1); // 40 events do not fit one 2000-byte answer
    expect(Math.max(...sizes)).toBeLessThan(2000 + 600);
    expect((await b.events(TICKET)).length).toBe(40);
  });

  it('pull only fetches, push only sends', async () => {
    const [e0, e1, e2] = chain(3);
    const a = await storeWith([e0!, e1!]);
    const b = await storeWith([e0!, e2!].map((e) => e)); // e2's parent e1 is missing on b: a partial log
    await syncWith(a, localTransport(b), { direction: 'pull' });
    expect(a.allIds().length).toBe(3);
    expect(b.allIds().length).toBe(2);
    await syncWith(a, localTransport(b), { direction: 'push' });
    expect(b.allIds().length).toBe(3);
  });

  it('an interrupted pull resumes without loss or duplicates', async () => {
    const events = chain(40);
    const a = await storeWith(events);
    const b = new TestMemoryStore();
    b.failAfter = 17;
    expect(await code(syncWith(b, localTransport(a), { batch: 5 }))).toMatch(/simulated crash/);
    expect(b.allIds().length).toBe(17);
    b.failAfter = undefined;
    const r = await syncWith(b, localTransport(a), { batch: 5 });
    expect(r.pulled).toBe(23);
    expect(b.allIds()).toEqual(a.allIds());
    expect(b.appends).toBe(40);
  });
});

describe('bad input from a peer is refused and nothing stored is touched', () => {
  const events = chain(3);
  const good: Bundle = { processes: [], blobs: [], sidecars: [], events: events.map((e) => ({ ticket: TICKET, id: e.id, bytes: Buffer.from(e.text) })) };

  async function refused(body: Uint8Array, pattern: RegExp): Promise<void> {
    const s = await storeWith(events.slice(0, 1));
    const before = s.allIds();
    expect(await code(receiveBundle(s, body))).toMatch(pattern);
    expect(s.allIds()).toEqual(before);
    expect(s.appends).toBe(1);
  }

  it('bytes that do not hash to their id', async () => {
    const bad = { ...good, events: good.events.map((e, i) => (i === 2 ? { ...e, bytes: Buffer.from(events[2]!.text.replace('seb', 'eve')) } : e)) };
    await refused(encodeBundle(bad), /^sync\/refused: event sha256-[0-9a-f]+: its bytes hash to sha256-[0-9a-f]+, not to its id/);
  });

  it('a malformed event (bytes that hash to their id but do not parse)', async () => {
    const text = '{:event/ticket #uuid "018f2f6e-7c1a-7000-8000-0000000000aa" :event/at';
    const bad = { ...good, events: [...good.events, { ticket: TICKET, id: sha256Id(Buffer.from(text)), bytes: Buffer.from(text) }] };
    await refused(encodeBundle(bad), /^sync\/refused: event sha256-\w+ is malformed/);
  });

  it('an event that violates the schema', async () => {
    const text = emit(ednMapOf({ 'event/ticket': new Uuid(TICKET), 'event/type': kw('fact/explode'), 'event/actor': 'x', 'event/at': new Instant(0) }));
    const bad = { ...good, events: [...good.events, { ticket: TICKET, id: sha256Id(Buffer.from(text)), bytes: Buffer.from(text) }] };
    await refused(encodeBundle(bad), /^sync\/refused: .*does not match the event schema/);
  });

  it('an event sent under another ticket', async () => {
    const other = '018f2f6e-7c1a-7000-8000-0000000000bb';
    const bad = { ...good, events: good.events.map((e) => ({ ...e, ticket: other })) };
    await refused(encodeBundle(bad), /belongs to ticket 018f2f6e-7c1a-7000-8000-0000000000aa, not 018f2f6e-7c1a-7000-8000-0000000000bb/);
  });

  it('a truncated body, at every cut point', async () => {
    const body = encodeBundle(good);
    for (const cut of [0, 3, 5, 6, 40, body.length - 1]) {
      await refused(body.subarray(0, cut), /^sync\/truncated: sync bundle is truncated/);
    }
  });

  it('a sidecar for an event that is neither sent nor stored, trailing garbage, not a bundle', async () => {
    const orphan = { ...good, sidecars: [{ ticket: TICKET, name: `${'sha256-' + 'ab'.repeat(32)}.sig.0123456789abcdef`, bytes: Buffer.from('x') }] };
    await refused(encodeBundle(orphan), /names an event that is neither sent nor stored/);
    await refused(Buffer.concat([encodeBundle(good), Buffer.from('zz')]), /^sync\/bad-bundle: .*after its end record/);
    await refused(Buffer.from('GET / HTTP/1.1'), /^sync\/bad-bundle: the body is not a tik sync bundle/);
  });

  it('a good bundle round-trips through the codec', () => {
    const back = decodeBundle(encodeBundle(good));
    expect(back.events.map((e) => [e.ticket, e.id, Buffer.from(e.bytes).toString()])).toEqual(events.map((e) => [TICKET, e.id, e.text]));
  });
});

describe('sidecars are members of the reconciled set', () => {
  it('a signature added after its event was synced still reaches the peer, in either direction', async () => {
    const events = chain(3);
    const a = await storeWith(events);
    const b = new TestMemoryStore();
    await syncWith(b, localTransport(a));
    const { name: late, bytes: lateBytes } = signatureSidecar(KEY, events[1]!.id, Buffer.from(events[1]!.text));
    await a.putSidecar(TICKET, late, lateBytes);
    const pull = await syncWith(b, localTransport(a));
    expect([pull.need, pull.pulled]).toEqual([1, 0]); // the event was already there; only the sidecar is new
    expect(await b.readSidecar(TICKET, late)).toEqual(Uint8Array.from(lateBytes));
    const { name: other, bytes: otherBytes } = witnessSidecar(KEY, events[2]!.id, Buffer.from(events[2]!.text));
    await b.putSidecar(TICKET, other, otherBytes);
    await syncWith(b, localTransport(a));
    expect(await a.readSidecar(TICKET, other)).toEqual(Uint8Array.from(otherBytes));
    expect((await syncWith(b, localTransport(a))).rounds).toBe(1);
  });

  it('two different valid signatures under one name converge to the bytewise smaller one', async () => {
    const events = chain(2);
    const a = await storeWith(events);
    const b = await storeWith(events);
    const name = `${events[1]!.id}.sig.${keyFpr(KEY)}`;
    // one key, two hash algorithms: two different signatures, both valid
    const [s1, s2] = [signSshSignature(KEY, Buffer.from(events[1]!.text), 'tik-event', 'sha256'), signSshSignature(KEY, Buffer.from(events[1]!.text), 'tik-event', 'sha512')].sort();
    await a.putSidecar(TICKET, name, Buffer.from(s2!));
    await b.putSidecar(TICKET, name, Buffer.from(s1!));
    await syncWith(a, localTransport(b));
    await syncWith(b, localTransport(a));
    expect(Buffer.from((await a.readSidecar(TICKET, name))!).toString()).toBe(s1);
    expect(Buffer.from((await b.readSidecar(TICKET, name))!).toString()).toBe(s1);
    expect((await syncWith(a, localTransport(b))).rounds).toBe(1);
  });
});

describe('a peer cannot make a replica store files no event names', () => {
  it('refuses a blob or a definition that no event of the transfer names', async () => {
    const events = chain(2);
    const s = await storeWith(events.slice(0, 1));
    const base: Bundle = { processes: [], blobs: [], sidecars: [], events: [{ ticket: TICKET, id: events[1]!.id, bytes: Buffer.from(events[1]!.text) }] };
    expect(await code(receiveBundle(s, encodeBundle({ ...base, blobs: [{ ticket: TICKET, bytes: Buffer.from('junk') }] })))).toMatch(/^sync\/refused: blob sha256-\w+ is not named by any :artifact\/attach/);
    expect(await code(receiveBundle(s, encodeBundle({ ...base, processes: ['{:process/id :x}'] })))).toMatch(/^sync\/refused: process definition sha256-\w+ is not pinned by any event/);
    expect(s.allIds().length).toBe(1);
    expect(s.blobs.size + s.processes.size).toBe(0);
  });
});
