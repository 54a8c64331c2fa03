import { describe, expect, it } from 'vitest';
import { readEdn } from '../../../src/tik/edn/index.js';
import { Instant, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { evaluateGuard, reduce, type GuardContext, type ProcessDef, type Reason, type Roles } from '../../../src/tik/kernel/index.js';
import { HOUR, T0, Ticket, defFromText, path } from './builders.js';

const DEF = defFromText(`{:process/id :g :process/version 1 :process/guard-vocab 2
  :process/roles {:triager {:members ["seb"]} :nobody {:members []}}
  :process/facts {[:category] [:enum :billing :technical] [:ref] [:string {:min 8}] [:ack] :boolean}
  :process/stages [{:stage/id :a :guards []} {:stage/id :b :after [:a] :guards []}]}`);

function ctx(t: Ticket, opts: { now?: number; reached?: string[]; def?: ProcessDef; roles?: Roles } = {}): GuardContext {
  const def = opts.def ?? DEF;
  return { state: reduce(t.events), def, now: new Instant(opts.now ?? t.now), reached: new Set(opts.reached ?? []), roles: opts.roles ?? def.roles };
}
const g = (text: string): EdnValue => readEdn(text);
const reasons = (text: string, c: GuardContext): readonly Reason[] => {
  const r = evaluateGuard(g(text), c);
  expect(r.satisfied).toBe(r.reasons.length === 0);
  return r.reasons;
};

function ticket(): Ticket {
  const t = new Ticket('g');
  t.create('creator');
  return t;
}

describe('[:fact p]', () => {
  it('holds when present and valid against the declared schema', () => {
    const t = ticket();
    t.assert('seb', 'category', kw('technical'));
    expect(reasons('[:fact [:category]]', ctx(t))).toEqual([]);
  });

  it('reports :fact/missing with the declared schema, or nil when undeclared', () => {
    const t = ticket();
    expect(reasons('[:fact [:category]]', ctx(t))).toEqual([{ kind: 'fact/missing', path: path('category'), schema: g('[:enum :billing :technical]') }]);
    expect(reasons('[:fact [:other]]', ctx(t))).toEqual([{ kind: 'fact/missing', path: path('other'), schema: null }]);
  });

  it('reports :fact/invalid with the humanised errors', () => {
    const t = ticket();
    t.assert('seb', 'ref', 'short');
    const r = reasons('[:fact [:ref]]', ctx(t));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ kind: 'fact/invalid', path: path('ref'), value: 'short', schema: g('[:string {:min 8}]') });
    expect(r[0]?.kind === 'fact/invalid' && r[0].errors).toEqual(['should be at least 8 characters']);
  });

  it('reports retracted, disputed and conflicted with their payloads', () => {
    const t = ticket();
    t.assert('seb', 'ack', true);
    t.retract('customer', 'ack', {}, 'misclick');
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'no');
    expect(reasons('[:fact [:ack]]', ctx(t))).toEqual([{ kind: 'fact/retracted', path: path('ack'), by: 'customer', note: 'misclick' }]);
    expect(reasons('[:fact [:category]]', ctx(t))).toEqual([{ kind: 'fact/disputed', path: path('category'), by: 'billing', note: 'no' }]);
    const c = new Ticket('g');
    const root = c.create();
    c.assert('a', 'category', kw('technical'), { parents: [root.id] });
    c.assert('b', 'category', kw('billing'), { parents: [root.id] });
    expect(reasons('[:fact [:category]]', ctx(c))[0]).toMatchObject({ kind: 'fact/conflicted', path: path('category') });
  });

  it('reports :schema/unsupported for a :fn schema', () => {
    const def = defFromText(`{:process/id :g :process/version 1 :process/facts {[:x] [:fn odd?]} :process/stages [{:stage/id :a}]}`);
    const t = ticket();
    t.assert('seb', 'x', 1n);
    expect(reasons('[:fact [:x]]', ctx(t, { def }))).toEqual([{ kind: 'schema/unsupported', path: path('x'), schema: g('[:fn odd?]') }]);
  });
});

describe('[:fact= p v]', () => {
  it('holds on an equal value without checking the schema', () => {
    const t = ticket();
    t.assert('seb', 'ref', 'x');
    expect(reasons('[:fact= [:ref] "x"]', ctx(t))).toEqual([]);
  });

  it('reports :fact/missing with :expected for any non-present status', () => {
    const t = ticket();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('x', 'category', 'no');
    expect(reasons('[:fact= [:category] :technical]', ctx(t))).toEqual([{ kind: 'fact/missing', path: path('category'), expected: kw('technical') }]);
  });

  it('reports :fact/mismatch with expected and actual', () => {
    const t = ticket();
    t.assert('seb', 'category', kw('billing'));
    expect(reasons('[:fact= [:category] :technical]', ctx(t))).toEqual([
      { kind: 'fact/mismatch', path: path('category'), expected: kw('technical'), actual: kw('billing') },
    ]);
  });

  it('a vector and a list with equal elements are equal (Clojure =)', () => {
    const t = ticket();
    t.assert('seb', 'xs', readEdn('(1 2)'));
    expect(reasons('[:fact= [:xs] [1 2]]', ctx(t))).toEqual([]);
  });
});

describe('[:artifact prefix]', () => {
  it('matches by string prefix, so "review" matches review-notes.txt', () => {
    const t = ticket();
    t.attach('seb', 'review-notes.txt');
    expect(reasons('[:artifact "review"]', ctx(t))).toEqual([]);
    expect(reasons('[:artifact "repro/"]', ctx(t))).toEqual([{ kind: 'artifact/missing', prefix: 'repro/' }]);
  });
});

describe('[:signed-by role p]', () => {
  it('holds when the current asserter is a member', () => {
    const t = ticket();
    t.assert('seb', 'category', kw('technical'));
    expect(reasons('[:signed-by :triager [:category]]', ctx(t))).toEqual([]);
  });

  it('reports :role/unsatisfied naming the role, path and asserter', () => {
    const t = ticket();
    t.assert('rando', 'category', kw('technical'));
    expect(reasons('[:signed-by :triager [:category]]', ctx(t))).toEqual([{ kind: 'role/unsatisfied', role: kw('triager'), path: path('category'), by: 'rando' }]);
  });

  it('gives the :fact reasons first when the fact does not hold', () => {
    const t = ticket();
    expect(reasons('[:signed-by :triager [:category]]', ctx(t))[0]).toMatchObject({ kind: 'fact/missing' });
  });

  it('reads membership from the resolved roles, not the definition', () => {
    const t = ticket();
    t.assert('rando', 'category', kw('technical'));
    expect(reasons('[:signed-by :triager [:category]]', ctx(t, { roles: new Map([[':triager', ['rando']]]) }))).toEqual([]);
  });
});

describe('[:stage-reached s]', () => {
  it('reads the sweep-start snapshot', () => {
    const t = ticket();
    expect(reasons('[:stage-reached :a]', ctx(t, { reached: [':a'] }))).toEqual([]);
    expect(reasons('[:stage-reached :b]', ctx(t, { reached: [':a'] }))).toEqual([{ kind: 'stage/not-reached', stage: kw('b') }]);
  });
});

describe('[:elapsed-since :ticket/create d]', () => {
  it('holds once now ≥ created-at + duration, and reports the due instant before', () => {
    const t = ticket();
    expect(reasons('[:elapsed-since :ticket/create "PT48H"]', ctx(t, { now: T0 + 48 * HOUR }))).toEqual([]);
    expect(reasons('[:elapsed-since :ticket/create "PT48H"]', ctx(t, { now: T0 + 48 * HOUR - 1 }))).toEqual([
      { kind: 'time/not-elapsed', since: kw('ticket/create'), duration: 'PT48H', due: new Instant(T0 + 48 * HOUR) },
    ]);
  });

  it('fails with a nil due when there is no create', () => {
    const t = new Ticket('g');
    expect(reasons('[:elapsed-since :ticket/create "P1D"]', ctx(t))).toEqual([
      { kind: 'time/not-elapsed', since: kw('ticket/create'), duration: 'P1D', due: null },
    ]);
  });

  it('another reference or a bad duration is a malformed guard', () => {
    const t = ticket();
    expect(reasons('[:elapsed-since :fact/assert "P1D"]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
    expect(reasons('[:elapsed-since :ticket/create "P1W"]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
  });
});

describe('[:attested-within claim d] (v2)', () => {
  it('matches the body :claim value within the window', () => {
    const t = ticket();
    const a = t.attest('ci', kw('sbom'));
    expect(reasons('[:attested-within :sbom "P1D"]', ctx(t, { now: a.at.ms + 24 * HOUR }))).toEqual([]);
    expect(reasons('[:attested-within :sbom "P1D"]', ctx(t, { now: a.at.ms + 24 * HOUR + 1 }))).toEqual([
      { kind: 'attestation/stale', claim: kw('sbom'), within: 'P1D', lastAt: a.at },
    ]);
    expect(reasons('[:attested-within :provenance "P1D"]', ctx(t))).toEqual([{ kind: 'attestation/missing', claim: kw('provenance'), within: 'P1D' }]);
  });
});

describe('[:different-person pa pb] (v2)', () => {
  it('needs both facts, from different actors', () => {
    const t = ticket();
    t.assert('ann', 'commit', 'abc1234');
    expect(reasons('[:different-person [:commit] [:approval]]', ctx(t))).toEqual([{ kind: 'fact/missing', path: path('approval') }]);
    t.assert('ann', 'approval', kw('ship'));
    expect(reasons('[:different-person [:commit] [:approval]]', ctx(t))).toEqual([
      { kind: 'role/same-person', paths: [path('commit'), path('approval')], by: 'ann' },
    ]);
    t.assert('bob', 'approval', kw('ship'));
    expect(reasons('[:different-person [:commit] [:approval]]', ctx(t))).toEqual([]);
  });
});

describe('[:malli schema]', () => {
  it('validates the fact-map {[path] value} of present facts', () => {
    const t = ticket();
    t.assert('seb', 'ack', true);
    expect(reasons('[:malli [:map [[:ack] :boolean]]]', ctx(t))).toEqual([]);
    const r = reasons('[:malli [:map [[:ack] :boolean] [[:ref] :string]]]', ctx(t));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ kind: 'schema/unsatisfied', schema: g('[:map [[:ack] :boolean] [[:ref] :string]]') });
  });

  it('reports :schema/unsupported for :fn and :guard/malformed for a non-schema', () => {
    const t = ticket();
    expect(reasons('[:malli [:fn odd?]]', ctx(t))).toEqual([{ kind: 'schema/unsupported', schema: g('[:fn odd?]') }]);
    expect(reasons('[:malli "nope"]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
  });
});

describe('durations are exact (Java Duration)', () => {
  it('a sub-millisecond remainder rounds :elapsed-since up', () => {
    const t = ticket();
    expect(reasons('[:elapsed-since :ticket/create "PT0.0005S"]', ctx(t, { now: T0 }))[0]).toMatchObject({ kind: 'time/not-elapsed' });
    expect(reasons('[:elapsed-since :ticket/create "PT0.0005S"]', ctx(t, { now: T0 + 1 }))).toEqual([]);
  });
});

describe('combinators', () => {
  it(':and concatenates every failing child reason', () => {
    const t = ticket();
    expect(reasons('[:and [:fact [:x]] [:artifact "a/"]]', ctx(t)).map((r) => r.kind)).toEqual(['fact/missing', 'artifact/missing']);
  });

  it(':or reports :alternatives with each option and its reasons', () => {
    const t = ticket();
    expect(reasons('[:or [:fact [:x]] [:stage-reached :b]]', ctx(t))).toEqual([
      {
        kind: 'alternatives',
        options: [
          { guard: g('[:fact [:x]]'), reasons: [{ kind: 'fact/missing', path: path('x'), schema: null }] },
          { guard: g('[:stage-reached :b]'), reasons: [{ kind: 'stage/not-reached', stage: kw('b') }] },
        ],
      },
    ]);
    expect(reasons('[:or [:fact [:x]] [:stage-reached :b]]', ctx(t, { reached: [':b'] }))).toEqual([]);
  });

  it(':not holds when the child fails and reports :must-not-hold otherwise', () => {
    const t = ticket();
    expect(reasons('[:not [:fact [:category]]]', ctx(t))).toEqual([]);
    t.assert('seb', 'category', kw('technical'));
    expect(reasons('[:not [:fact [:category]]]', ctx(t))).toEqual([{ kind: 'must-not-hold', guard: g('[:fact [:category]]') }]);
  });

  it('material implication: [:or [:not A] B]', () => {
    const t = ticket();
    const guard = '[:or [:not [:fact= [:category] :technical]] [:stage-reached :b]]';
    expect(reasons(guard, ctx(t))).toEqual([]);
    t.assert('seb', 'category', kw('technical'));
    expect(reasons(guard, ctx(t))[0]).toMatchObject({ kind: 'alternatives' });
    expect(reasons(guard, ctx(t, { reached: [':b'] }))).toEqual([]);
  });
});

describe('malformed and unknown guards', () => {
  it('an unknown operator throws guard/unknown-operator', () => {
    const t = ticket();
    try {
      evaluateGuard(g('[:if [:fact [:x]] [:fact [:y]]]'), ctx(t));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TikError);
      expect((e as TikError).code).toBe('guard/unknown-operator');
      expect((e as TikError).message).toContain(':if');
    }
  });

  it('a wrong arity or a non-path argument is a :guard/malformed reason', () => {
    const t = ticket();
    expect(reasons('[:fact]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
    expect(reasons('[:fact :category]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
    expect(reasons('[:signed-by :triager]', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
    expect(reasons('"not a guard"', ctx(t))[0]).toMatchObject({ kind: 'guard/malformed' });
  });
});
