import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownedUuid } from '../../../src/tik/shard/owned-uuid.js';
import { isTicketId, ownsTicket, parseShardSpec, shardOf, shardText } from '../../../src/tik/shard/shard-spec.js';

const uuid = fc.uuid().map((u) => u.toLowerCase());

describe('shard assignment', () => {
  it('every ticket is in exactly one shard, for any shard count (law)', () => {
    fc.assert(
      fc.property(uuid, fc.integer({ min: 1, max: 64 }), (t, m) => {
        const owners = Array.from({ length: m }, (_v, i) => i).filter((i) => ownsTicket({ index: i, count: m }, t));
        expect(owners).toEqual([shardOf(t, m)]);
      }),
    );
  });

  it('is the first 8 bytes of SHA-256 of the uuid text, big-endian, mod M (the documented rule)', () => {
    fc.assert(
      fc.property(uuid, fc.integer({ min: 1, max: 4096 }), (t, m) => {
        const hex = createHash('sha256').update(t).digest('hex').slice(0, 16);
        expect(shardOf(t, m)).toBe(Number(BigInt(`0x${hex}`) % BigInt(m)));
        expect(shardOf(t.toUpperCase(), m)).toBe(shardOf(t, m));
      }),
    );
    // pinned vectors, for a second implementation (docs/tik-sync.md): sha256 prefix b316b0b0fa55c926 and db8055e0e0307d5a
    expect([2, 3, 16].map((m) => shardOf('3b7b65b4-2a5e-374d-83d6-17fef995bbd2', m))).toEqual([0, 2, 6]);
    expect([2, 3, 16].map((m) => shardOf('00000000-0000-4000-8000-000000000000', m))).toEqual([0, 0, 10]);
  });

  it('an unsharded replica (1 shard) owns every ticket', () => {
    fc.assert(fc.property(uuid, (t) => ownsTicket({ index: 0, count: 1 }, t)));
  });

  it('mints new ticket ids only in its own shard', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }).chain((m) => fc.tuple(fc.constant(m), fc.nat(m - 1))), ([m, i]) => {
        const id = ownedUuid({ index: i, count: m });
        expect(isTicketId(id)).toBe(true);
        expect(shardOf(id, m)).toBe(i);
      }),
    );
    expect(() => ownedUuid({ index: 1, count: 2 }, () => '00000000-0000-4000-8000-000000000000')).toThrow(/could not draw/);
  });

  it('parses i/M and refuses anything else with a coded error', () => {
    expect(parseShardSpec('1/4')).toEqual({ index: 1, count: 4 });
    expect(shardText(parseShardSpec(' 0/1 '))).toBe('0/1');
    for (const bad of ['4/4', '1', '-1/2', '0/0', 'a/b', '1/5000', '1/2/3']) {
      expect(() => parseShardSpec(bad), bad).toThrow(expect.objectContaining({ code: 'shard/bad-spec' }));
    }
  });
});
