import { describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { admitEventBytes } from '../../../src/tik/store/admission/index.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';

// Issue 13: a valid 15 MiB event of 509 nested sets took 49 s to read (each level re-emitted
// everything below it). The reader now computes each element's text at most once, and a
// one-member set or one-entry map needs none at all: the input below reads (and re-emits, as
// admission does) well within the test timeout, where it took most of a minute before.

const DEPTH = 509;
const PAYLOAD = 15 << 20;

function nestedSets(depth: number, payload: string): string {
  return '#{'.repeat(depth) + payload + '}'.repeat(depth);
}

describe('the reader is linear in its input', () => {
  it('509 nested one-member sets around a 15 MiB string read and re-emit at once', () => {
    const text = nestedSets(DEPTH, `"${'x'.repeat(PAYLOAD)}"`);
    const v = readEdn(text);
    expect(emit(v) === text).toBe(true);
  }, 20_000);

  it('a 15 MiB event whose body nests 500 one-entry maps is admitted at once', () => {
    const inner = '{:k '.repeat(500) + `"${'y'.repeat(PAYLOAD)}"` + '}'.repeat(500);
    const text = `{:event/actor "m" :event/at #inst "2026-07-08T10:00:00Z" :event/body {:note/nested ${inner} :ticket/process :p :ticket/title "t"} :event/parents #{} :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000beef" :event/type :ticket/create}`;
    const bytes = Buffer.from(text, 'utf8');
    expect(admitEventBytes('018f2f6e-7c1a-7000-8000-00000000beef', sha256Id(bytes), bytes).type.text).toBe('ticket/create');
  }, 20_000);

  it('sets that repeat a large nested member at every level are refused with a typed error, not worked through', () => {
    // each level is #{:a <the level below>}: a member's text is needed as a key at every level
    const text = '#{:a '.repeat(400) + `"${'z'.repeat(1 << 20)}"` + '}'.repeat(400);
    let err: unknown;
    try {
      readEdn(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TikError);
    expect((err as TikError).code).toBe('edn/malformed');
    expect((err as TikError).message).toMatch(/repeat more text than the reader allows/);
  }, 20_000);

  it('nesting with several members per level still reads, and duplicates inside are still found', () => {
    const once = emit(readEdn('#{:a '.repeat(50) + '"leaf"' + '}'.repeat(50)));
    expect(once.startsWith('#{#{')).toBe(true); // canonical order: the nested set sorts before :a
    expect(emit(readEdn(once))).toBe(once);
    expect(() => readEdn('#{#{:a [1]} #{:a (1)}}')).toThrow(/duplicate set member/);
    expect(() => readEdn('{#{(1)} 1 #{[1]} 2}')).toThrow(/duplicate map key/);
  });
});
