import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TikError } from '../../../src/tik/errors.js';
import { parseWriteArgs, typedRequest, WRITE_VERBS } from '../../../src/tik/server/write-op.js';

// The strict parser behind the old `POST /api/<verb> {args}` form.

const GLOBAL = ['--root', '--actor', '--remote', '--help', '-h', '--version', '-V', '--json'];
const word = fc.oneof(fc.constantFrom(...GLOBAL, '--title', '--reason', '--withdraw', '--body', '--', '-', '-42', 'k=v', 'x', '/tmp', 'postgresql://h/db'), fc.string({ maxLength: 12 }));

/** Where the strict grammar reads `args[i]` as an option name (not a value, not after `--`). */
function optionPositions(verb: (typeof WRITE_VERBS)[number], args: readonly string[]): number[] {
  const valued = new Set(verb === 'new' ? ['--title'] : verb === 'retract' || verb === 'dispute' ? ['--reason'] : verb === 'attest' ? ['--body'] : []);
  const out: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (!a.startsWith('-') || a === '-') continue;
    out.push(i);
    if (valued.has(a)) i++;
  }
  return out;
}

describe('the {args} adapter', () => {
  it('is total: any argument list gives a typed write or a TikError, never anything else', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WRITE_VERBS), fc.array(word, { maxLength: 8 }), (verb, args) => {
        try {
          parseWriteArgs(verb, args);
        } catch (e) {
          expect(e).toBeInstanceOf(TikError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts a global option where it would be read as an option (the law that closes argv smuggling)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WRITE_VERBS), fc.array(word, { maxLength: 8 }), (verb, args) => {
        const smuggled = optionPositions(verb, args).some((i) => GLOBAL.includes(args[i]!.split('=')[0]!));
        if (!smuggled) return;
        expect(() => parseWriteArgs(verb, args)).toThrow(TikError);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes an option value as text whatever it looks like, and round-trips through the typed route', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (title) => {
        const op = parseWriteArgs('new', ['support-request', '--title', title]);
        expect(op).toEqual({ verb: 'new', process: 'support-request', title });
        expect(typedRequest(op, 'seb')).toEqual({ path: '/api/tickets', body: { process: 'support-request', title, actor: 'seb' } });
      }),
    );
  });

  it('parses each verb into its typed write', () => {
    expect(parseWriteArgs('set', ['t1', 'a=1', 'b.c=x y'])).toEqual({ verb: 'set', ticket: 't1', facts: [{ key: 'a', value: '1' }, { key: 'b.c', value: 'x y' }] });
    expect(parseWriteArgs('dispute', ['t1', 'category', '--withdraw', '--reason=no'])).toEqual({ verb: 'dispute', ticket: 't1', key: 'category', reason: 'no', withdraw: true });
    expect(parseWriteArgs('comment', ['t1', '--', '--root', 'is', 'text'])).toEqual({ verb: 'comment', ticket: 't1', text: '--root is text' });
    expect(parseWriteArgs('attest', ['t1', ':sbom', '--body', '{:run 42}'])).toEqual({ verb: 'attest', ticket: 't1', claim: ':sbom', body: '{:run 42}' });
    expect(() => parseWriteArgs('new', ['p', '--title', 'a', '--title', 'b'])).toThrow(/given twice/);
    expect(() => parseWriteArgs('retract', ['t1'])).toThrow(/expected <ticket> <key>/);
  });
});
