import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emit, readEdnBytes } from '../../../../src/tik/edn/index.js';
import { Instant, Uuid, kw } from '../../../../src/tik/edn/value.js';
import { ednMap } from '../../../../src/tik/edn/index.js';
import { TikError } from '../../../../src/tik/errors.js';
import { mintEvent } from '../../../../src/tik/kernel/index.js';
import { admitEventBytes } from '../../../../src/tik/store/admission/index.js';
import { MemoryStore } from '../../../../src/tik/store/memory/memory-store.js';
import { sha256Id } from '../../../../src/tik/store/store-names.js';
import { encodeBundle, receiveBundle } from '../../../../src/tik/sync/index.js';

// Bounded fuzz runs (fixed count and seed): malformed input to the reader and to admission ends
// in a typed refusal or a value, never a crash, and a refused bundle stores not one byte.

const TICKET = '018f2f6e-7c1a-7000-8000-0000000000aa';
const create = mintEvent({ ticket: new Uuid(TICKET), type: kw('ticket/create'), actor: 'seb', at: new Instant(Date.parse('2026-07-08T10:00:00Z')), parents: [], body: ednMap([[kw('ticket/title'), 't'], [kw('ticket/process'), kw('p')]]) });
const SEED = Buffer.from(create.text, 'utf8');

/** Canonical bytes with a few bytes overwritten, inserted or cut. */
const mutated = fc.array(fc.tuple(fc.nat({ max: SEED.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'cut')), { minLength: 1, maxLength: 4 }).map((edits) => {
  let b = Buffer.from(SEED);
  for (const [at, byte, how] of edits) {
    const i = Math.min(at, b.length - 1);
    if (how === 'set') b[i] = byte;
    else if (how === 'insert') b = Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i)]);
    else b = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
  }
  return b;
});
const input = fc.oneof(mutated, fc.uint8Array({ maxLength: 200 }).map((u) => Buffer.from(u)), fc.string({ maxLength: 120 }).map((s) => Buffer.from(s, 'utf8')));

const typed = (f: () => unknown, prefix: RegExp): void => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TikError);
    expect((e as TikError).code).toMatch(prefix);
  }
};

describe('bounded fuzz of the reader and of admission', () => {
  it('the reader returns a value or throws edn/malformed, for any bytes', () => {
    fc.assert(fc.property(input, (b) => typed(() => readEdnBytes(b), /^edn\/malformed$/)), { numRuns: 1000, seed: 13 });
  });

  it('admission admits exactly the canonical event, and refuses every mutation with an admission code', () => {
    fc.assert(
      fc.property(input, (b) => {
        let admitted = false;
        typed(() => {
          admitEventBytes(TICKET, sha256Id(b), b);
          admitted = true;
        }, /^admission\//);
        // whatever is admitted (the seed, or a mutation that is still a canonical event) re-emits to its bytes
        if (admitted) expect(emit(readEdnBytes(b))).toBe(b.toString('utf8'));
      }),
      { numRuns: 1000, seed: 13 },
    );
  });

  it('a pushed bundle of mutated events is refused or held back, and nothing malformed is stored', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutated, { minLength: 1, maxLength: 3 }), async (events) => {
        const store = new MemoryStore();
        try {
          await receiveBundle(store, encodeBundle({ processes: [], blobs: [], sidecars: [], events: events.map((b) => ({ ticket: TICKET, id: sha256Id(b), bytes: b })) }));
        } catch (e) {
          expect(e).toBeInstanceOf(TikError);
          expect((e as TikError).code).toBe('sync/refused');
          expect(await store.ticketIds()).toEqual([]);
          return;
        }
        for (const t of await store.ticketIds()) for (const e of await store.events(t)) expect(() => admitEventBytes(t, e.id, e.bytes)).not.toThrow();
      }),
      { numRuns: 300, seed: 13 },
    );
  });
});
