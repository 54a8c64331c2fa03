import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { initStore } from '../../../src/tik/store/file/open-file-store.js';
import { MemoryStore } from '../../../src/tik/store/memory/memory-store.js';
import type { EventStore } from '../../../src/tik/store/store.js';
import { SyncResponder, decodeBundle, encodeIdList, indexStore, type StoreIndex } from '../../../src/tik/sync/index.js';
import { chainEvents } from './chain-events.js';

const temps: string[] = [];
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

// Every test mints events no other test has seen (a fresh ticket uuid each), so the index's
// process-wide cache of event times starts cold for them.
const chain = (ticket: string, n: number, t0?: number): { id: string; bytes: Buffer }[] => chainEvents(ticket, n, t0 === undefined ? {} : { t0 });

interface Counts {
  events: number;
  eventBytes: number;
}

/** The store, counting the calls that read event bytes; `listing: false` hides the id listings. */
function observed(inner: EventStore, listing: boolean): { store: EventStore; counts: Counts } {
  const counts: Counts = { events: 0, eventBytes: 0 };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (!listing && (prop === 'allEventIds' || prop === 'allSidecarNames')) return undefined;
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (prop === 'events' || prop === 'eventBytes') counts[prop]++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, counts };
}

/** An index as comparable text: every item, and where each id lives. */
function shape(i: StoreIndex): string {
  const items = [...i.set.items].map((it) => `${it.ts}:${Buffer.from(it.id).toString('hex')}`);
  return JSON.stringify({ items, tickets: [...i.ticketOf].sort(), sidecars: [...i.sidecarOf].sort((a, b) => (a[0] < b[0] ? -1 : 1)) });
}

describe('the sync index lists ids and reads only bytes it has not seen', () => {
  it('law: the index is the same with and without the id listings (events, sidecars, tickets)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ticket: fc.nat({ max: 2 }), length: fc.integer({ min: 1, max: 12 }), signed: fc.nat({ max: 3 }) }), { maxLength: 4 }),
        async (specs) => {
          const store = new MemoryStore();
          for (const spec of specs) {
            const ticket = randomUUID();
            const events = chain(ticket, spec.length, Date.parse('2026-07-01T00:00:00Z') + spec.ticket * 500);
            for (const e of events) await store.append(ticket, e.id, e.bytes);
            for (const e of events.slice(0, spec.signed)) await store.putSidecar(ticket, `${e.id}.sig.e8290a63236755f2`, Buffer.from(`sig ${e.id}`));
          }
          const withListing = await indexStore(observed(store, true).store);
          const without = await indexStore(observed(store, false).store);
          expect(shape(withListing)).toBe(shape(without));
          expect(withListing.set.items.length).toBe(specs.reduce((n, s) => n + s.length + Math.min(s.signed, s.length), 0));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a second round over an unchanged store reads no event bytes', async () => {
    const store = new MemoryStore();
    for (const t of [randomUUID(), randomUUID()]) for (const e of chain(t, 20)) await store.append(t, e.id, e.bytes);
    const first = observed(store, true);
    const a = await indexStore(first.store);
    expect(first.counts.events).toBe(2); // cold: each ticket read once, whole
    const second = observed(store, true);
    const b = await indexStore(second.store);
    expect(second.counts).toEqual({ events: 0, eventBytes: 0 });
    expect(shape(b)).toBe(shape(a));
  });

  it('an unchanged store gives back the same sorted set; an event or a changed sidecar gives a new one', async () => {
    const store = new MemoryStore();
    const t = randomUUID();
    const events = chain(t, 5);
    for (const e of events.slice(0, 4)) await store.append(t, e.id, e.bytes);
    const name = `${events[0]!.id}.sig.e8290a63236755f2`;
    await store.putSidecar(t, name, Buffer.from('sig b'));
    const a = await indexStore(store);
    expect(await indexStore(store)).toBe(a);
    await store.append(t, events[4]!.id, events[4]!.bytes);
    const b = await indexStore(store);
    expect(b).not.toBe(a);
    expect(b.set.items.length).toBe(6);
    await store.putSidecar(t, name, Buffer.from('sig a')); // replaced by smaller bytes
    const c = await indexStore(store);
    expect(c).not.toBe(b);
    expect([...c.sidecarOf.keys()]).not.toEqual([...b.sidecarOf.keys()]);
    expect(c.set.items.length).toBe(6);
    // another handle on the same contents builds its own, equal index
    expect(shape(await indexStore(store.handle()))).toBe(shape(c));
  });

  it('new events are read one by one when few, by whole ticket when many', async () => {
    const store = new MemoryStore();
    const t = randomUUID();
    const events = chain(t, 30);
    for (const e of events.slice(0, 10)) await store.append(t, e.id, e.bytes);
    await indexStore(store);
    for (const e of events.slice(10, 13)) await store.append(t, e.id, e.bytes);
    const few = observed(store, true);
    expect((await indexStore(few.store)).set.items.length).toBe(13);
    expect(few.counts).toEqual({ events: 0, eventBytes: 3 });
    for (const e of events.slice(13)) await store.append(t, e.id, e.bytes);
    const many = observed(store, true);
    expect((await indexStore(many.store)).set.items.length).toBe(30);
    expect(many.counts).toEqual({ events: 1, eventBytes: 0 });
  });

  it('an event file whose bytes do not hash to its name, or do not parse, is left out on every round', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tik-store-index-'));
    temps.push(root);
    const store = await initStore(root);
    const t = randomUUID();
    const events = chain(t, 3);
    for (const e of events) await store.append(t, e.id, e.bytes);
    const dir = join(root, 'tickets', t, 'events');
    const forged = chain(t, 4)[3]!; // a real event's id, with other bytes under its name
    writeFileSync(join(dir, `${forged.id}.edn`), events[0]!.bytes);
    const garbage = Buffer.from('not edn {');
    const garbageId = `sha256-${createHash('sha256').update(garbage).digest('hex')}`;
    writeFileSync(join(dir, `${garbageId}.edn`), garbage);
    for (let round = 0; round < 2; round++) {
      const i = await indexStore(store);
      expect(i.set.items.length).toBe(3);
      expect([...i.ticketOf.keys()].sort()).toEqual(events.map((e) => e.id).sort());
    }
  });
});

describe('an event file damaged after the index read it', () => {
  it('is not sent: the fetch answer leaves it out instead of carrying bytes the peer would refuse', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tik-store-index-'));
    temps.push(root);
    const store = await initStore(root);
    const t = randomUUID();
    const events = chain(t, 3);
    for (const e of events) await store.append(t, e.id, e.bytes);
    const responder = new SyncResponder(store);
    const all = events.map((e) => e.id);
    expect(decodeBundle(await responder.fetch(encodeIdList(all))).events.map((e) => e.id)).toEqual(all);
    writeFileSync(join(root, 'tickets', t, 'events', `${events[2]!.id}.edn`), events[1]!.bytes); // damaged in place
    writeFileSync(join(root, 'tickets', t, 'events', `${events[1]!.id}.edn`), Buffer.from('{:not "an event"'));
    const sent = decodeBundle(await responder.fetch(encodeIdList(all)));
    expect(sent.events.map((e) => e.id)).toEqual([events[0]!.id]);
  });
});
