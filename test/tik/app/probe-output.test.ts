import { describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import type { EdnMap } from '../../../src/tik/edn/value.js';
import { probeFacts } from '../../../src/tik/app/probe-output.js';

/** A probe's standard output read as facts: `key=value` lines, typed as `tik set` types them. */
const shown = (stdout: string, def?: string) =>
  probeFacts(stdout, def === undefined ? undefined : (readEdn(def, 'def') as EdnMap)).map((f) => [f.key, emit(f.value)]);

describe('probe output', () => {
  it('reads key=value lines (value trimmed, EDN if it parses, a bare word a keyword) and skips every other line', () => {
    expect(shown('gate=green\n  count = 3\nnote: checked x=y\nref="abc123"\r\nlist=[1 2]\ntext=two words\n\n=orphan\n')).toEqual([
      ['gate', ':green'],
      ['ref', '"abc123"'],
      ['list', '[1 2]'],
      ['text', '"two words"'],
    ]);
    expect(shown('dependabot.status=absent')).toEqual([['dependabot.status', ':absent']]);
  });

  it('keeps the text of paths the definition declares :string, as set does', () => {
    expect(shown('removal.commit=12345678\nother=12345678', '{:process/facts {[:removal :commit] [:string {:min 1}]}}')).toEqual([
      ['removal.commit', '"12345678"'],
      ['other', '12345678'],
    ]);
  });

  it('refuses the whole output when a key is not a dotted key', () => {
    expect(() => probeFacts('gate=green\n9lives=1\n', undefined)).toThrow(expect.objectContaining({ code: 'probe/bad-output', where: 'probe output line 2' }));
  });
});
