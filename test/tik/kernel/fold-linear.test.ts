import { describe, expect, it } from 'vitest';
import { ednMap } from '../../../src/tik/edn/index.js';
import { Instant, Keyword, Uuid } from '../../../src/tik/edn/value.js';
import { factMap, factStatus, mintEvent, reduce, type TikEvent } from '../../../src/tik/kernel/index.js';
import { V8_FULL_HASH, withBucketProbes } from '../edn/bucket-probes.js';

// Issue 13: the fold keys facts, writes and attestations by the text of a path or claim, which
// comes from events. Many distinct long paths of one length (V8 hashes those by length alone)
// made every derivation of the ticket quadratic; the fold's tables now file long texts by digest.

const ticket = new Uuid('018f2f6e-7c1a-7000-8000-00000000f01d');
const kw = (t: string): Keyword => Keyword.of(t);
const LENGTH = V8_FULL_HASH + 17;
const longName = (i: number): string => 'p'.repeat(LENGTH - 6) + String(i).padStart(6, '0');

function events(n: number): TikEvent[] {
  const out: TikEvent[] = [];
  const create = mintEvent({ ticket, type: kw('ticket/create'), actor: 'a', at: new Instant(0), parents: [], body: ednMap([[kw('ticket/title'), 't'], [kw('ticket/process'), kw('p')]]) }).event;
  out.push(create);
  let parent = create.id;
  for (let i = 0; i < n; i++) {
    const assert = mintEvent({
      ticket,
      type: kw('fact/assert'),
      actor: 'a',
      at: new Instant(i + 1),
      parents: [parent],
      body: ednMap([[kw('fact/path'), [kw(longName(i))]], [kw('fact/value'), BigInt(i)]]),
    }).event;
    const attest = mintEvent({ ticket, type: kw('attestation/add'), actor: 'a', at: new Instant(i + 1), parents: [assert.id], body: ednMap([[kw('claim'), longName(i)]]) }).event;
    out.push(assert, attest);
    parent = attest.id;
  }
  return out;
}

describe('the fold is linear in many distinct long paths and claims of one length', () => {
  it('work per path stays bounded as the count doubles, and every fact is found', () => {
    const perPath: number[] = [];
    for (const n of [16, 32, 64, 128]) {
      const log = events(n);
      const { value, probes } = withBucketProbes(() => reduce(log));
      if (value instanceof Error) throw value;
      expect(factMap(value).size).toBe(n);
      expect(factStatus(value, [kw(longName(n - 1))])).toMatchObject({ status: 'present', value: BigInt(n - 1) });
      expect(factStatus(value, [kw(longName(n))]).status).toBe('absent');
      perPath.push(probes / (n * LENGTH));
    }
    // quadratic work would double per doubling; linear stays flat
    for (let i = 1; i < perPath.length; i++) expect(perPath[i]!).toBeLessThan(perPath[0]! * 1.5 + 0.5);
  }, 60_000);
});
