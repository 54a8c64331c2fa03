import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectKey, effectKeyText } from '../../../src/tik/effects/index.js';

const T = '0b0e5d1c-0000-4000-8000-000000000001';

describe('effect key', () => {
  it("hashes upstream's vector [ticket stage type url to command topic chat-id] with nil for the fields a webhook lacks", () => {
    const text = effectKeyText(T, ':resolved', { type: 'webhook', url: 'https://hooks.example/t' });
    expect(text).toBe(`[#uuid "${T}" :resolved :webhook "https://hooks.example/t" nil nil nil nil]`);
    expect(effectKey(T, ':resolved', { type: 'webhook', url: 'https://hooks.example/t' })).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('escapes the URL as an EDN string, so quotes in it cannot fake another vector', () => {
    expect(effectKeyText(T, ':a', { type: 'webhook', url: 'https://h.example/?q="x" nil' })).toBe(`[#uuid "${T}" :a :webhook "https://h.example/?q=\\"x\\" nil" nil nil nil nil]`);
  });

  it('an upper-case ticket id gives the same key as its canonical lower-case form', () => {
    const r = { type: 'webhook' as const, url: 'https://h.example/' };
    expect(effectKey(T.toUpperCase(), ':a', r)).toBe(effectKey(T, ':a', r));
  });

  it('law: distinct (ticket, stage, url) give distinct keys', () => {
    const uuidArb = fc.uuid().map((u) => u.toLowerCase());
    const stage = fc.stringMatching(/^:[a-z][a-z0-9-]{0,8}$/);
    const url = fc.webUrl();
    fc.assert(
      fc.property(fc.tuple(uuidArb, stage, url), fc.tuple(uuidArb, stage, url), ([t1, s1, u1], [t2, s2, u2]) => {
        fc.pre(t1 !== t2 || s1 !== s2 || u1 !== u2);
        expect(effectKey(t1, s1, { type: 'webhook', url: u1 })).not.toBe(effectKey(t2, s2, { type: 'webhook', url: u2 }));
      }),
      { numRuns: 100 },
    );
  });
});
