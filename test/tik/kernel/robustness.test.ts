// Bad input never crashes: every failure is a TikError with a code, never a TypeError.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ednMap, emit } from '../../../src/tik/edn/index.js';
import { Instant, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { effectiveReached, explain, lint, parseEvent, parseProcess, status } from '../../../src/tik/kernel/index.js';
import { build, historyArb } from './arbitrary.js';

function onlyTikErrors(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    if (!(e instanceof TikError)) throw e;
    expect(e.code).toMatch(/^[a-z-]+\/[a-z-]+$/);
  }
}

const OPS = [':fact', ':fact=', ':artifact', ':signed-by', ':stage-reached', ':elapsed-since', ':attested-within', ':different-person', ':malli', ':and', ':or', ':not', ':nope'];
const leaf: fc.Arbitrary<EdnValue> = fc.oneof(
  fc.constantFrom<EdnValue>(kw('a'), kw('s1'), kw('ticket/create'), kw('r'), 'P1D', 'PT2H', 'P1W', 'repro/', null, true, 3n, [kw('x')], [kw('y'), kw('z')], [], [1n]),
);
const guardArb: fc.Arbitrary<EdnValue> = fc.letrec<{ g: EdnValue }>((tie) => ({
  g: fc.oneof(
    { depthSize: 'small' },
    fc.tuple(fc.constantFrom(...OPS), fc.array(fc.oneof(leaf, tie('g')), { maxLength: 3 })).map(([op, args]) => Object.freeze([kw(op), ...args])),
    leaf,
  ),
})).g;
/** A top-level guard: always `[:op & args]` so the definition parses and the kernel runs. */
const topGuardArb: fc.Arbitrary<EdnValue> = fc
  .tuple(fc.constantFrom(...OPS), fc.array(fc.oneof(leaf, guardArb), { maxLength: 3 }))
  .map(([op, args]) => Object.freeze([kw(op), ...args]));

function defOf(guards: EdnValue[][], sticky: boolean[]): EdnValue {
  const stages = guards.map((gs, i) =>
    ednMap([
      [kw('stage/id'), kw(`s${i}`)],
      ...(i > 0 ? [[kw('after'), Object.freeze([kw(`s${i - 1}`)])] as const] : []),
      [kw('guards'), Object.freeze(gs)],
      [kw('stage/sticky?'), sticky[i] ?? false],
    ]),
  );
  return ednMap([
    [kw('process/id'), kw('fuzz')],
    [kw('process/version'), 1n],
    [kw('process/guard-vocab'), 2n],
    [kw('process/roles'), ednMap([[kw('r'), ednMap([[kw('members'), Object.freeze(['seb'])]])]])],
    [kw('process/facts'), ednMap([[Object.freeze([kw('x')]), kw('string')]])],
    [kw('process/stages'), Object.freeze(stages)],
  ]);
}

describe('robustness', () => {
  it('parseEvent on arbitrary text throws only TikError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('{', '{:event/at 1}', '#inst "x"', '{:event/type :a :event/at #inst "2026-01-01T00:00:00Z"}')), (s) =>
        onlyTikErrors(() => parseEvent(s, 'sha256-x')),
      ),
      { numRuns: 300 },
    );
  });

  it('random guard trees: parse, lint, derive, explain and status never crash', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(topGuardArb, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.boolean(), { maxLength: 4 }),
        historyArb(6),
        (guards, sticky, ops) => {
          const value = defOf(guards as EdnValue[][], sticky);
          const def = parseProcess(value);
          lint(def);
          onlyTikErrors(() => {
            const events = build(ops, 'fuzz');
            const now = new Instant(Date.parse('2026-01-03T00:00:00Z'));
            effectiveReached(def, events, now, def.roles);
            explain(def, events, now, def.roles, { forActor: 'seb' });
            status(def, events, now, def.roles);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a derivation only throws for an unknown operator', () => {
    const def = parseProcess(defOf([[Object.freeze([kw('nope'), 1n])]], []));
    try {
      effectiveReached(def, [], new Instant(0), def.roles);
      expect.unreachable();
    } catch (e) {
      expect((e as TikError).code).toBe('guard/unknown-operator');
      expect((e as TikError).hint).toContain(':fact');
    }
    expect(lint(def).errors.map((f) => f.code)).toEqual(['lint/operator-not-in-vocab']);
    expect(emit(def.stages[0]?.guards[0] ?? null)).toBe('[:nope 1]');
  });
});
