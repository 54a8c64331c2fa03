/**
 * The EventStore contract suite (tik-model.md §8.1). Every backend runs it with a factory for a
 * fresh, empty store; part 2's SQLite, PostgreSQL and memory stores reuse it unchanged.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../../src/tik/store/store.js';

export interface ContractFixture {
  readonly store: EventStore;
  /** Removes whatever the store created. */
  readonly cleanup: () => Promise<void>;
  /**
   * Opens a second, independent handle onto the same store (as a second process would); the
   * suite closes it. Without it, the concurrency test runs two appends on the one handle.
   */
  readonly second?: () => Promise<EventStore>;
}

const T1 = '018f2f6e-7c1a-7000-8000-000000000001';
const T2 = '018f2f6e-7c1a-7000-8000-000000000002';

export const idOf = (bytes: Uint8Array | string): string => `sha256-${createHash('sha256').update(bytes).digest('hex')}`;

export function eventBytesFor(n: number, ticket = T1): Uint8Array {
  return Buffer.from(`{:event/actor "a" :event/at #inst "2026-07-08T10:00:0${n % 10}Z" :event/body {:n ${n}} :event/parents #{} :event/ticket #uuid "${ticket}" :event/type :fact/assert}`, 'utf8');
}

const FPR = 'e8290a63236755f2';

async function withStore(make: () => Promise<ContractFixture>, body: (s: EventStore) => Promise<void>): Promise<void> {
  const fx = await make();
  try {
    await body(fx.store);
  } finally {
    await fx.cleanup();
  }
}

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ code });
}

export function describeEventStoreContract(name: string, make: () => Promise<ContractFixture>): void {
  describe(`EventStore contract: ${name}`, () => {
    it('an appended event reads back with exactly its bytes', () =>
      withStore(make, async (s) => {
        const b = eventBytesFor(1);
        const id = idOf(b);
        expect(await s.append(T1, id, b)).toBe(true);
        expect(Buffer.from((await s.eventBytes(T1, id))!).equals(Buffer.from(b))).toBe(true);
        expect(await s.hasEvent(T1, id)).toBe(true);
        expect(await s.ticketIds()).toEqual([T1]);
      }));

    it('append is idempotent by id', () =>
      withStore(make, async (s) => {
        const b = eventBytesFor(2);
        const id = idOf(b);
        expect(await s.append(T1, id, b)).toBe(true);
        expect(await s.append(T1, id, b)).toBe(false);
        expect((await s.events(T1)).map((e) => e.id)).toEqual([id]);
      }));

    it('append refuses bytes that do not hash to the id, and writes nothing', () =>
      withStore(make, async (s) => {
        const b = eventBytesFor(3);
        await expectCode(s.append(T1, idOf(eventBytesFor(4)), b), 'store/hash-mismatch');
        expect(await s.ticketIds()).toEqual([]);
        expect(await s.hasEvent(T1, idOf(eventBytesFor(4)))).toBe(false);
      }));

    it('malformed ids and tickets are refused before anything is written', () =>
      withStore(make, async (s) => {
        const b = eventBytesFor(5);
        await expectCode(s.append(T1, idOf(b).toUpperCase(), b), 'store/bad-id');
        await expectCode(s.append(T1, 'sha1-abc', b), 'store/bad-id');
        await expectCode(s.append('../../etc', idOf(b), b), 'store/bad-ticket');
        await expectCode(s.append(T1.toUpperCase(), idOf(b), b), 'store/bad-ticket');
        await expectCode(s.putSidecar(T1, '../x', b), 'store/bad-sidecar-name');
        await expectCode(s.putSidecar(T1, `${idOf(b)}.edn`, b), 'store/bad-sidecar-name');
        await expectCode(s.eventBytes(T1, 'nope'), 'store/bad-id');
        await expectCode(s.readBlob(T1, '../../actors'), 'store/bad-id');
        await expectCode(s.readNamedProcess('../actors'), 'store/bad-process-name');
        await expectCode(s.readProcessByHash('sha256-xyz'), 'store/bad-id');
        expect(await s.ticketIds()).toEqual([]);
      }));

    it('bytes are kept verbatim, whatever they are (no text decoding)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), async (raw) => {
          await withStore(make, async (s) => {
            const id = idOf(raw);
            expect(await s.append(T1, id, raw)).toBe(true);
            const back = await s.eventBytes(T1, id);
            expect(back).toBeInstanceOf(Uint8Array);
            expect(Buffer.from(back!).equals(Buffer.from(raw))).toBe(true);
            const listed = await s.events(T1);
            expect(listed).toHaveLength(1);
            expect(Buffer.from(listed[0]!.bytes).equals(Buffer.from(raw))).toBe(true);
          });
        }),
        { numRuns: 10 },
      );
    });

    it('concurrent appends of the same events from two handles store each event once', async () => {
      const fx = await make();
      const other = fx.second ? await fx.second() : fx.store;
      try {
        const all = Array.from({ length: 8 }, (_, n) => eventBytesFor(n));
        const results = await Promise.all(
          all.flatMap((b) => [fx.store.append(T1, idOf(b), b), other.append(T1, idOf(b), b)]),
        );
        for (let i = 0; i < all.length; i++) {
          // exactly one of the two appends of an event reports it as new
          expect([results[2 * i], results[2 * i + 1]].filter((x) => x === true)).toHaveLength(1);
        }
        const want = all.map((b) => idOf(b)).sort();
        for (const h of [fx.store, other]) {
          const got = await h.events(T1);
          expect(got.map((e) => e.id).sort()).toEqual(want);
          for (const e of got) expect(idOf(e.bytes)).toBe(e.id);
        }
      } finally {
        if (other !== fx.store) await (other as { close?: () => Promise<void> }).close?.();
        await fx.cleanup();
      }
    });

    it('a bad append between good ones leaves the good ones and nothing else', () =>
      withStore(make, async (s) => {
        const a = eventBytesFor(1);
        const b = eventBytesFor(2);
        await s.append(T1, idOf(a), a);
        await expectCode(s.append(T1, idOf(a), b), 'store/hash-mismatch');
        await expectCode(s.append(T2, idOf(b), a), 'store/hash-mismatch');
        await s.append(T1, idOf(b), b);
        expect((await s.events(T1)).map((e) => e.id).sort()).toEqual([idOf(a), idOf(b)].sort());
        expect(Buffer.from((await s.eventBytes(T1, idOf(a)))!).equals(Buffer.from(a))).toBe(true);
        expect(await s.ticketIds()).toEqual([T1]);
      }));

    it('events are per ticket and unknown tickets read empty', () =>
      withStore(make, async (s) => {
        const a = eventBytesFor(6, T1);
        const b = eventBytesFor(7, T2);
        await s.append(T1, idOf(a), a);
        await s.append(T2, idOf(b), b);
        expect((await s.events(T1)).map((e) => e.id)).toEqual([idOf(a)]);
        expect((await s.events(T2)).map((e) => e.id)).toEqual([idOf(b)]);
        expect(await s.events('018f2f6e-7c1a-7000-8000-0000000000ff')).toEqual([]);
        expect(await s.hasEvent(T2, idOf(a))).toBe(false);
        expect(await s.eventBytes(T2, idOf(a))).toBeUndefined();
        expect(await s.ticketIds()).toEqual([T1, T2]);
      }));

    it('law: the stored set is the union of appends, whatever their order and repetition', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat({ max: 7 }), { minLength: 1, maxLength: 12 }), async (ns) => {
          await withStore(make, async (s) => {
            for (const n of ns) await s.append(T1, idOf(eventBytesFor(n)), eventBytesFor(n));
            const got = await s.events(T1);
            const want = [...new Set(ns)].map((n) => idOf(eventBytesFor(n))).sort();
            expect(got.map((e) => e.id).sort()).toEqual(want);
            for (const e of got) expect(idOf(e.bytes)).toBe(e.id);
          });
        }),
        { numRuns: 15 },
      );
    });

    it('sidecars are stored, listed and read back; putting the same bytes twice is a no-op', () =>
      withStore(make, async (s) => {
        const b = eventBytesFor(8);
        const id = idOf(b);
        await s.append(T1, id, b);
        const name = `${id}.sig.${FPR}`;
        const sig = Buffer.from('-----BEGIN SSH SIGNATURE-----\nabc\n-----END SSH SIGNATURE-----\n');
        expect(await s.putSidecar(T1, name, sig)).toBe(true);
        expect(await s.putSidecar(T1, name, sig)).toBe(false);
        expect(await s.sidecarNames(T1)).toEqual([name]);
        expect(Buffer.from((await s.readSidecar(T1, name))!).equals(sig)).toBe(true);
        expect(await s.readSidecar(T1, `${id}.witness.${FPR}`)).toBeUndefined();
        // sidecars are not events
        expect((await s.events(T1)).map((e) => e.id)).toEqual([id]);
      }));

    it('law: allEventIds and allSidecarNames list exactly what events and sidecarNames hold, across tickets', async () => {
      const tickets = [T1, T2];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ n: fc.nat({ max: 9 }), t: fc.nat({ max: 1 }), signed: fc.boolean() }), { maxLength: 10 }),
          async (writes) => {
            await withStore(make, async (s) => {
              for (const { n, t, signed } of writes) {
                const b = eventBytesFor(n, tickets[t]);
                await s.append(tickets[t]!, idOf(b), b);
                if (signed) await s.putSidecar(tickets[t]!, `${idOf(b)}.sig.${FPR}`, Buffer.from(`sig ${n}`));
              }
              // every backend implements the listings (they are optional only for wrapping stores)
              expect(s.allEventIds).toBeTypeOf('function');
              expect(s.allSidecarNames).toBeTypeOf('function');
              const wantEvents: string[] = [];
              const wantSidecars: string[] = [];
              for (const t of await s.ticketIds()) {
                for (const e of await s.events(t)) wantEvents.push(`${t} ${e.id}`);
                for (const name of await s.sidecarNames(t)) wantSidecars.push(`${t} ${name}`);
              }
              const gotEvents = (await s.allEventIds!()).map((r) => `${r.ticket} ${r.id}`).sort();
              const gotSidecars = (await s.allSidecarNames!()).map((r) => `${r.ticket} ${r.name}`).sort();
              expect(gotEvents).toEqual(wantEvents.sort());
              expect(gotSidecars).toEqual(wantSidecars.sort());
              expect(new Set(gotEvents).size).toBe(gotEvents.length); // each event once
              expect(gotEvents.length).toBe(new Set(writes.map((w) => `${w.t} ${w.n}`)).size);
              if (s.eventIdsByTicket) {
                // the grouped listing: every ticket, in ticketIds order, with the same ids
                const grouped = await s.eventIdsByTicket();
                expect([...grouped.keys()]).toEqual([...(await s.ticketIds())]);
                expect([...grouped].flatMap(([t, ids]) => ids.map((id) => `${t} ${id}`)).sort()).toEqual(gotEvents);
              }
            });
          },
        ),
        { numRuns: 10 },
      );
    });

    it('blobs are addressed by the hash of their raw bytes', () =>
      withStore(make, async (s) => {
        const bytes = Buffer.from('#!/bin/sh\necho crash\n');
        const hash = await s.putBlob(T1, bytes);
        expect(hash).toBe(idOf(bytes));
        expect(await s.putBlob(T1, bytes)).toBe(hash);
        expect(Buffer.from((await s.readBlob(T1, hash))!).equals(bytes)).toBe(true);
        expect(await s.readBlob(T1, idOf('other'))).toBeUndefined();
      }));

    it('archives canonical definitions by hash and refuses non-canonical text', () =>
      withStore(make, async (s) => {
        const text = '{:process/id :p :process/stages [{:stage/id :a}] :process/version 1}';
        const hash = await s.archiveProcess(text);
        expect(hash).toBe(idOf(text));
        expect(await s.archiveProcess(text)).toBe(hash);
        expect(await s.readProcessByHash(hash)).toBe(text);
        expect(await s.archivedProcessHashes()).toEqual([hash]);
        await expectCode(s.archiveProcess(`${text}\n`), 'store/not-canonical');
        await expectCode(s.archiveProcess('{:process/version 1 :process/id :p}'), 'store/not-canonical');
        await expectCode(s.archiveProcess('{:a'), 'store/not-canonical');
        expect(await s.archivedProcessHashes()).toEqual([hash]);
      }));

    it('root witnesses are stored, listed and read back; names are checked', () =>
      withStore(make, async (s) => {
        const name = `${idOf('root doc')}.witness.${FPR}`;
        expect(await s.rootWitnessNames()).toEqual([]);
        expect(await s.putRootWitness(name, Buffer.from('w'))).toBe(true);
        expect(await s.putRootWitness(name, Buffer.from('w'))).toBe(false);
        expect(await s.rootWitnessNames()).toEqual([name]);
        expect(Buffer.from((await s.readRootWitness(name))!).toString()).toBe('w');
        await expectCode(s.putRootWitness(`${idOf('x')}.sig.${FPR}`, Buffer.from('w')), 'store/bad-sidecar-name');
        await expectCode(s.readRootWitness('../actors'), 'store/bad-sidecar-name');
        // an OpenTimestamps anchor is kept beside them, and is not listed as a witness
        const anchor = `${idOf('root doc')}.ots`;
        expect(await s.putRootWitness(anchor, Buffer.from('proof'))).toBe(true);
        expect(Buffer.from((await s.readRootWitness(anchor))!).toString()).toBe('proof');
        expect(await s.rootWitnessNames()).toEqual([name]);
        await expectCode(s.putRootWitness(`${idOf('x')}.edn.ots`, Buffer.from('w')), 'store/bad-sidecar-name');
      }));

    it('named definitions are listed by stem, tests files excluded', () =>
      withStore(make, async (s) => {
        expect(await s.readNamedProcess('support-request')).toBeUndefined();
        await s.writeNamedProcess('support-request', ';; hand written\n{:process/id :support-request}\n');
        await s.writeNamedProcess('track', '{:process/id :track}');
        expect(await s.readNamedProcess('support-request')).toBe(';; hand written\n{:process/id :support-request}\n');
        expect(await s.listProcesses()).toEqual(['support-request', 'track']);
        await expectCode(s.writeNamedProcess('broken', '{:process/id'), 'store/bad-definition');
        await expectCode(s.writeNamedProcess('vector', '[1 2]'), 'store/bad-definition');
        expect(await s.listProcesses()).toEqual(['support-request', 'track']);
      }));
  });
}
