import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, encodeVarint } from '../../../src/tik/sync/byte-io.js';
import { MAX_BOUND, TimestampCodec, minimalBound, type Bound } from '../../../src/tik/sync/bound.js';
import { ItemSet, Reconciler, decodeBundle, decodeIdList, encodeBundle, encodeIdList } from '../../../src/tik/sync/index.js';

// Pins the byte layouts docs/tik-sync.md specifies, so a second implementation can rely on them.

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('wire format', () => {
  it('varints are big-endian base 128 with continuation bits (the documented examples)', () => {
    expect([0, 127, 128, 300, 16384].map((n) => hex(encodeVarint(n)))).toEqual(['00', '7f', '8100', '822c', '818000']);
  });

  it('varints round-trip (law)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: Number.MAX_SAFE_INTEGER }), { maxLength: 20 }), (ns) => {
        const w = new ByteWriter();
        ns.forEach((n) => w.varint(n));
        const r = new ByteReader(w.finish(), 'test');
        expect(ns.map(() => r.varint('n'))).toEqual(ns);
        expect(r.done).toBe(true);
      }),
    );
  });

  it('bounds delta-encode timestamps within a message and round-trip (law)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 1_000_000 }), fc.uint8Array({ maxLength: 32 })), { maxLength: 20 }),
        fc.boolean(),
        (raw, withInfinity) => {
          let ts = 0;
          const bounds: Bound[] = raw.map(([d, prefix]) => ({ ts: (ts += d), prefix }));
          if (withInfinity) bounds.push(MAX_BOUND);
          const w = new ByteWriter();
          const out = new TimestampCodec();
          bounds.forEach((b) => out.write(w, b));
          const r = new ByteReader(w.finish(), 'test');
          const back = new TimestampCodec();
          expect(bounds.map(() => back.read(r))).toEqual(bounds.map((b) => ({ ts: b.ts, prefix: Uint8Array.from(b.prefix) })));
        },
      ),
    );
    const w = new ByteWriter();
    const c = new TimestampCodec();
    c.write(w, { ts: 1000, prefix: new Uint8Array(0) });
    c.write(w, { ts: 1005, prefix: Uint8Array.of(0xab) });
    c.write(w, MAX_BOUND);
    expect(hex(w.finish())).toBe('8769' + '00' + '06' + '01ab' + '00' + '00'); // 1+1000, len 0; 1+5, len 1, ab; ∞, len 0
  });

  it('the shortest separating bound: time alone, else one byte past the common id prefix', () => {
    const id = (...b: number[]): Uint8Array => Uint8Array.from([...b, ...new Array<number>(32 - b.length).fill(0)]);
    expect(minimalBound({ ts: 1, id: id(9) }, { ts: 2, id: id(1) })).toEqual({ ts: 2, prefix: new Uint8Array(0) });
    expect(minimalBound({ ts: 2, id: id(1, 2, 3) }, { ts: 2, id: id(1, 2, 4) })).toEqual({ ts: 2, prefix: Uint8Array.of(1, 2, 4) });
  });

  it('the first message is 0x61, the infinite bound, mode 1 and the 16-byte fingerprint of everything', () => {
    const set = ItemSet.of([{ ts: 5, id: new Uint8Array(32).fill(7) }]);
    const m = new Reconciler(set).initiate();
    expect(m.length).toBe(20);
    expect(hex(m.subarray(0, 4))).toBe('61000001');
    expect(hex(m.subarray(4))).toBe(hex(set.fingerprint(0, 1)));
    expect(hex(new Reconciler(set).respond(m))).toBe('61'); // equal sets: nothing to say
  });

  it('fetch requests are varint(count) then 32-byte ids, nothing else', () => {
    const ids = [`sha256-${'ab'.repeat(32)}`, `sha256-${'01'.repeat(32)}`];
    const body = encodeIdList(ids);
    expect(hex(body)).toBe(`02${'ab'.repeat(32)}${'01'.repeat(32)}`);
    expect(decodeIdList(body)).toEqual(ids);
    expect(() => decodeIdList(Buffer.concat([body, Buffer.from([0])]))).toThrow(/trailing byte/);
  });

  it("a definition's signature is record kind 5: length-prefixed name, length-prefixed bytes", () => {
    const name = `sha256-${'cd'.repeat(32)}.sig.${'0f'.repeat(8)}`;
    const body = encodeBundle({ processes: [], blobs: [], events: [], sidecars: [], processSidecars: [{ name, bytes: Uint8Array.of(1, 2, 3) }] });
    expect(hex(body)).toBe(`${hex(Buffer.from('TIKB'))}01` + `05${(name.length).toString(16)}${hex(Buffer.from(name))}03010203` + '00');
    expect(decodeBundle(body)).toEqual({ processes: [], blobs: [], events: [], sidecars: [], processSidecars: [{ name, bytes: Uint8Array.of(1, 2, 3) }] });
  });
});
