import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEdn } from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { lint, parseProcess, type LintResult } from '../../../src/tik/kernel/index.js';
import { CONFORMANCE, defFromText, loadDef } from './builders.js';

const codes = (fs: LintResult['errors']): string[] => fs.map((f) => f.code).sort();

/** A one-stage definition around some guards, clean of warnings except what the guards cause. */
function withGuards(guards: string, extra = '', lintOpts = '{:runbooks :off}'): LintResult {
  return lint(
    defFromText(`{:process/id :l :process/version 1 :lint ${lintOpts} ${extra}
      :process/facts {[:a] :string [:b] :string}
      :process/stages [{:stage/id :root} {:stage/id :s :after [:root] :guards [${guards}]}]}`),
  );
}

describe('lint: the shipped definitions', () => {
  const files = ['processes', 'examples'].flatMap((d) =>
    readdirSync(join(CONFORMANCE, d))
      .filter((f) => f.endsWith('.edn'))
      .map((f) => `${d}/${f}`),
  );

  it('covers the thirteen processes and two examples', () => {
    expect(files).toHaveLength(15);
  });

  for (const f of files) {
    it(`${f} parses, hashes and lints clean of errors`, () => {
      const def = loadDef(f);
      expect(def.hash).toMatch(/^sha256-[0-9a-f]{64}$/);
      const r = lint(def);
      expect(r.errors).toEqual([]);
      // Upstream ships one deliberate warning: support-request's bare boolean [:customer :ack].
      if (f === 'processes/support-request.edn') {
        expect(r.warnings.map((w) => [w.code, w.path])).toEqual([['lint/boolean-fact', ':process/facts [:customer :ack]']]);
      } else {
        expect(r.warnings).toEqual([]);
      }
    });
  }

  it('hashes as upstream: track, both corpus support-request copies, the corpus sweep-order', () => {
    expect(loadDef('processes/track.edn').hash).toBe('sha256-5812cdba533c92d934af16c73fe4027fc37bd034e6005f56237358680037d3c3');
    expect(loadDef('corpus/support-closed-sticky/processes/support-request.edn').hash).toBe(
      'sha256-abf62fe594cceed265dbe2374b7f67ed30778ebd66816cbad41c7422e8bb5f59',
    );
    expect(loadDef('corpus/concurrent-conflict/processes/support-request.edn').hash).toBe(
      'sha256-abf62fe594cceed265dbe2374b7f67ed30778ebd66816cbad41c7422e8bb5f59',
    );
    expect(loadDef('corpus/sweep-order-negation/processes/sweep-order.edn').hash).toBe(
      'sha256-c1a7e26c32e6d698514f736328462804b7f7c3a4ee23192eb8672b41bdc2c654',
    );
  });

  it('the hash ignores comments, layout and key order', () => {
    const a = parseProcess(readEdn('{:process/id :x :process/version 1 :process/stages [{:stage/id :a}]}'));
    const b = parseProcess(readEdn(';; hi\n{:process/stages [{:stage/id :a}] , :process/version 1\n :process/id :x}'));
    expect(a.hash).toBe(b.hash);
  });

  it('the support-request bare-boolean warning can be turned off', () => {
    const text = readFileSync(join(CONFORMANCE, 'processes/support-request.edn'), 'utf8').replace(
      ':process/guard-vocab 1',
      ':process/guard-vocab 1 :lint {:boolean-facts :off}',
    );
    expect(lint(defFromText(text)).warnings).toEqual([]);
  });
});

describe('lint errors (§4.5)', () => {
  it('an operator outside the declared vocabulary', () => {
    expect(codes(withGuards('[:attested-within :sbom "P1D"]').errors)).toEqual(['lint/operator-not-in-vocab']);
    expect(withGuards('[:attested-within :sbom "P1D"]', ':process/guard-vocab 2').errors).toEqual([]);
    expect(codes(withGuards('[:if [:fact [:a]] [:fact [:b]]]').errors)).toEqual(['lint/operator-not-in-vocab']);
  });

  it('only :and/:or/:not arguments are descended', () => {
    expect(codes(withGuards('[:or [:not [:different-person [:a] [:b]]] [:fact [:a]]]').errors)).toEqual(['lint/operator-not-in-vocab']);
    expect(withGuards('[:fact= [:a] [:different-person]]').errors).toEqual([]);
  });

  it('an unknown stage in :stage-reached or :after, and the unreachable stage it makes', () => {
    expect(codes(withGuards('[:stage-reached :nope]').errors)).toEqual(['lint/unknown-stage']);
    const r = lint(defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off} :process/stages [{:stage/id :a :after [:ghost]}]}'));
    expect(codes(r.errors)).toEqual(['lint/unknown-stage', 'lint/unreachable-stage']);
  });

  it('stages in an :after cycle are unreachable', () => {
    const r = lint(
      defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off} :process/stages [{:stage/id :a :after [:b]} {:stage/id :b :after [:a]} {:stage/id :c}]}'),
    );
    expect(r.errors.map((e) => [e.code, e.stage])).toEqual([
      ['lint/unreachable-stage', ':a'],
      ['lint/unreachable-stage', ':b'],
    ]);
  });

  it('a duration java.time.Duration.parse rejects', () => {
    expect(codes(withGuards('[:elapsed-since :ticket/create "P1W"]').errors)).toEqual(['lint/invalid-duration']);
    expect(codes(withGuards('[:attested-within :x "P1M"]', ':process/guard-vocab 2').errors)).toEqual(['lint/invalid-duration']);
    expect(withGuards('[:elapsed-since :ticket/create "P2DT3H4M"]').errors).toEqual([]);
  });

  it('an :elapsed-since reference other than :ticket/create', () => {
    expect(codes(withGuards('[:elapsed-since :fact/assert "P1D"]').errors)).toEqual(['lint/elapsed-since-ref']);
  });

  it('a :signed-by with fewer than three elements', () => {
    expect(codes(withGuards('[:signed-by :r]').errors)).toEqual(['lint/signed-by-arity']);
  });

  it('stratified negation: [:not [:stage-reached T]] needs depth(T) < depth(S)', () => {
    const bad = lint(
      defFromText(`{:process/id :l :process/version 1 :lint {:runbooks :off} :process/stages [
        {:stage/id :a} {:stage/id :b :after [:a]} {:stage/id :c :after [:a] :guards [[:not [:stage-reached :b]]]}]}`),
    );
    expect(bad.errors.map((e) => [e.code, e.stage])).toEqual([['lint/stratified-negation', ':c']]);
    // sweep-order is linter-clean: :d (depth 2) negates :c (depth 1).
    expect(lint(loadDef('processes/sweep-order.edn')).errors).toEqual([]);
    // Nested inside :or is still a direct [:not [:stage-reached …]].
    const nested = lint(
      defFromText(`{:process/id :l :process/version 1 :lint {:runbooks :off} :process/stages [
        {:stage/id :a :guards [[:or [:fact [:x]] [:not [:stage-reached :a]]]]}]}`),
    );
    expect(codes(nested.errors)).toEqual(['lint/stratified-negation']);
  });

  it('negating facts is always allowed', () => {
    expect(withGuards('[:not [:fact [:a]]]').errors).toEqual([]);
  });

  it('[:and … [:fact= p v1] … [:fact= p v2]] with v1 ≠ v2', () => {
    expect(codes(withGuards('[:and [:fact= [:a] "x"] [:fact [:b]] [:fact= [:a] "y"]]').errors)).toEqual(['lint/contradictory-fact=']);
    expect(withGuards('[:and [:fact= [:a] "x"] [:fact= [:a] "x"]]').errors).toEqual([]);
  });

  it('an unsupported (non-data) fact schema', () => {
    const r = lint(defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off} :process/facts {[:a] [:fn odd?]} :process/stages [{:stage/id :s}]}'));
    expect(codes(r.errors)).toEqual(['lint/schema-unsupported']);
  });
});

describe('lint warnings (§4.5)', () => {
  it('a stage without a :hint, unless :runbooks is off', () => {
    const text = '{:process/id :l :process/version 1 :process/stages [{:stage/id :s}]}';
    expect(codes(lint(defFromText(text)).warnings)).toEqual(['lint/missing-hint']);
  });

  it('a guard on an undeclared fact path', () => {
    expect(codes(withGuards('[:fact [:zzz]]').warnings)).toEqual(['lint/undeclared-fact']);
    expect(codes(withGuards('[:signed-by :r [:zzz]]', ':process/roles {:r {:members []}}').warnings)).toEqual(['lint/undeclared-fact']);
  });

  it('an :artifact prefix not ending in /', () => {
    expect(codes(withGuards('[:artifact "review"]').warnings)).toEqual(['lint/artifact-prefix']);
    expect(withGuards('[:artifact "review/"]').warnings).toEqual([]);
  });

  it('complexity: combinators deeper than 4, or more than 6 guards on a stage', () => {
    const deep = '[:and [:or [:and [:or [:and [:fact [:a]]]]]]]';
    expect(codes(withGuards(deep).warnings)).toEqual(['lint/complexity']);
    expect(withGuards('[:and [:or [:and [:or [:fact [:a]]]]]]').warnings).toEqual([]);
    const seven = Array.from({ length: 7 }, () => '[:fact [:a]]').join(' ');
    expect(codes(withGuards(seven).warnings)).toEqual(['lint/complexity']);
    expect(withGuards(seven, '', '{:runbooks :off :complexity :off}').warnings).toEqual([]);
  });
});

describe('lint: unknown keys (hashed, never read)', () => {
  const unknown = (r: LintResult): [string | undefined, string][] => r.warnings.filter((w) => w.code === 'lint/unknown-key').map((w) => [w.path, w.message]);

  it('a misspelt stage key is reported with its location and a suggestion', () => {
    const r = lint(
      defFromText(`{:process/id :l :process/version 1 :lint {:runbooks :off} :process/facts {[:a] :string}
        :process/stages [{:stage/id :root} {:stage/id :s :after [:root] :gaurds [[:fact [:a]]]}]}`),
    );
    expect(r.errors).toEqual([]);
    const found = r.warnings.filter((w) => w.code === 'lint/unknown-key');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ stage: ':s', path: ':process/stages 1 :gaurds' });
    expect(found[0]?.message).toMatch(/:gaurds/);
    expect(found[0]?.message).toMatch(/did you mean :guards\?/);
  });

  it('misspelt keys in the definition map, the :lint map and a role map are reported with suggestions', () => {
    const r = lint(
      defFromText(`{:process/id :l :process/version 1 :process/fact {[:a] :string} :process/gaurd-vocab 2
        :lint {:runbook :off} :process/roles {:r {:memebers ["x"]}}
        :process/stages [{:stage/id :s :hint "h" :stage/stickey? true :after []}]}`),
    );
    expect(unknown(r).map(([p]) => p).sort()).toEqual([
      ':lint :runbook',
      ':process/fact',
      ':process/gaurd-vocab',
      ':process/roles :r :memebers',
      ':process/stages 0 :stage/stickey?',
    ]);
    const by = new Map(unknown(r));
    expect(by.get(':process/fact')).toMatch(/did you mean :process\/facts\?/);
    expect(by.get(':process/gaurd-vocab')).toMatch(/did you mean :process\/guard-vocab\?/);
    expect(by.get(':lint :runbook')).toMatch(/did you mean :runbooks\?/);
    expect(by.get(':process/roles :r :memebers')).toMatch(/did you mean :members\?/);
    expect(by.get(':process/stages 0 :stage/stickey?')).toMatch(/did you mean :stage\/sticky\?\?/);
  });

  it('a key in the wrong namespace is matched by its name', () => {
    const r = lint(defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off} :process/stages [{:stage/id :s :sticky? true}]}'));
    expect(unknown(r)).toEqual([[':process/stages 0 :sticky?', expect.stringMatching(/did you mean :stage\/sticky\?\?/)]]);
  });

  it('keys that are hashed but not interpreted are not reported', () => {
    const r = lint(
      defFromText(`{:process/id :l :process/version 1 :process/guard-vocab 1 :process/purpose "why" :probe "probe.sh"
        :lint {:runbooks :off :boolean-facts :off :complexity :off} :process/roles {:r {:members []}} :process/facts {}
        :process/stages [{:stage/id :s :purpose "p" :hint "h" :effort "PT1H" :sla {:due "P1D"} :stage/sticky? false :after [] :guards []}]}`),
    );
    expect(r.warnings).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  it('an unknown key with no near match is reported without a suggestion; {:lint {:unknown-keys :off}} silences it', () => {
    const r = lint(defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off} :owner "team-x" :process/stages [{:stage/id :s}]}'));
    expect(unknown(r)).toEqual([[':owner', expect.not.stringMatching(/did you mean/)]]);
    const off = lint(defFromText('{:process/id :l :process/version 1 :lint {:runbooks :off :unknown-keys :off} :owner "team-x" :process/stages [{:stage/id :s :gaurds []}]}'));
    expect(off.warnings).toEqual([]);
  });
});

describe('lint: roles no definition or register declares', () => {
  const def = (roles: string, guards: string) =>
    defFromText(`{:process/id :l :process/version 1 :lint {:runbooks :off} :process/facts {[:a] :string}
      :process/roles ${roles} :process/stages [{:stage/id :s :guards [${guards}]}]}`);
  const undeclared = (r: LintResult) => r.warnings.filter((w) => w.code === 'lint/undeclared-role');

  it('[:signed-by role p] with a role :process/roles does not declare is a warning naming the role', () => {
    const r = lint(def('{:approver {:members []}}', '[:signed-by :aprover [:a]]'));
    expect(r.errors).toEqual([]);
    const w = undeclared(r);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ stage: ':s', path: ':process/stages 0 :guards 0' });
    expect(w[0]?.message).toMatch(/:aprover/);
    expect(w[0]?.message).toMatch(/did you mean :approver\?/);
  });

  it('finds the role inside :and, :or and :not', () => {
    const r = lint(def('{}', '[:or [:fact [:a]] [:not [:and [:signed-by :x [:a]] [:signed-by :y [:a]]]]]'));
    expect(undeclared(r).map((w) => [w.path, w.message.match(/role (:\w+)/)?.[1]])).toEqual([
      [':process/stages 0 :guards 0 2 1 1', ':x'],
      [':process/stages 0 :guards 0 2 1 2', ':y'],
    ]);
  });

  it('a role the definition or the roles register declares is not reported', () => {
    expect(undeclared(lint(def('{:approver {:members []}}', '[:signed-by :approver [:a]]')))).toEqual([]);
    const register = new Map([[':approver', ['seb']]]);
    expect(undeclared(lint(def('{}', '[:signed-by :approver [:a]]'), { register }))).toEqual([]);
    expect(undeclared(lint(def('{}', '[:signed-by :other [:a]]'), { register }))[0]?.message).toMatch(/roles register/);
  });
});

describe('parseProcess refuses what is not a definition', () => {
  const bad = (text: string): string | undefined => {
    try {
      parseProcess(readEdn(text), 'x.edn');
    } catch (e) {
      if (e instanceof TikError) return `${e.code} ${e.where ?? ''}`;
      throw e;
    }
    return undefined;
  };

  it('names the key path', () => {
    expect(bad('[1]')).toMatch(/^process\/invalid/);
    expect(bad('{:process/id "x" :process/version 1 :process/stages []}')).toBe('process/invalid x.edn :process/id');
    expect(bad('{:process/id :x :process/version 0 :process/stages []}')).toBe('process/invalid x.edn :process/version');
    expect(bad('{:process/id :x :process/version 1}')).toBe('process/invalid x.edn :process/stages');
    expect(bad('{:process/id :x :process/version 1 :process/stages [{:stage/id :a :guards [:fact [:x]]}]}')).toBe(
      'process/invalid x.edn :process/stages 0 :guards 0',
    );
    expect(bad('{:process/id :x :process/version 1 :process/stages [{:stage/id :a} {:stage/id :a}]}')).toBe('process/invalid x.edn :process/stages 1');
  });

  it('keeps unknown keys (hashed, not interpreted) and defaults', () => {
    const def = parseProcess(readEdn('{:process/id :x :process/version 1 :process/purpose "p" :probe "s.sh" :process/stages [{:stage/id :a :purpose "q"}]}'));
    expect(def.guardVocab).toBe(1n);
    expect(def.stages[0]?.sticky).toBe(false);
    expect(def.stages[0]?.guards).toEqual([]);
  });
});
