import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEdn } from '../../src/tik/edn/index.js';
import { Keyword } from '../../src/tik/edn/value.js';
import { parseProcess, resolveRoles } from '../../src/tik/kernel/index.js';
import { parseScript, runScript, SCRIPT_CREATOR } from '../../src/tik/testing/scripted.js';
import { SIM_EPOCH, SimTicket } from '../../src/tik/testing/sim-ticket.js';
import { cleanup, CONFORMANCE, tempDir, tik, tikDist } from '../tik/cli/harness.js';

// `tik test FILE.tests.edn…` (tik-model.md §11.3): scripted cases over a process definition,
// written here beside upstream's support-request definition and run through the real command.

const PASSING = `;; scripted tests for support-request
{:test/process "support-request.edn"
 :test/roles {:triager {:members ["seb"]}}
 :test/cases
 [{:case/name "a fresh ticket is received"
   :case/steps []
   :case/expect {:reached #{:received} :current #{:received}}}
  {:case/name "a triager triages"
   :case/steps [[:actor "seb"] [:set [:category] :technical] [:set [:severity] :high]]
   :case/expect {:reached #{:received :triaged} :current #{:triaged}}}
  {:case/name "someone outside the role cannot"
   :case/steps [[:actor "rando"] [:set [:category] :technical] [:set :severity :high]]
   :case/expect {:excludes #{:triaged}}}
  {:case/name "a dispute regresses triage"
   :case/steps [[:actor "seb"] [:set [:category] :technical] [:set [:severity] :high]
                [:actor "billing"] [:dispute [:category] "not technical"]]
   :case/expect {:reached #{:received}}}
  {:case/name "uncategorised tickets escalate after 48 hours"
   :case/steps [[:now "+PT49H"]]
   :case/expect {:includes #{:escalated}}}
  {:case/name "an absolute instant works too"
   :case/steps [[:now "2026-01-02T23:00:00Z"]]
   :case/expect {:excludes #{:escalated}}}
  {:case/name "repro, resolution and ack close the ticket, and the close is sticky"
   :case/steps [[:actor "seb"] [:set [:category] :technical] [:set [:severity] :high]
                [:attach "repro/crash.sh"] [:set [:resolution :ref] "abcdef123456"]
                [:actor "customer"] [:set [:customer :ack] true] [:retract [:customer :ack]]]
   :case/expect {:includes #{:closed :resolved} :current #{:closed :reproducible}}}]}
`;

const FAILING = `{:test/process "support-request.edn"
 :test/cases
 [{:case/name "passes" :case/steps [] :case/expect {:current #{:received}}}
  {:case/name "claims triage without evidence" :case/steps [] :case/expect {:includes #{:triaged}}}]}
`;

const ATTEST = `{:test/process "attested.edn"
 :test/cases
 [{:case/name "a fresh attestation satisfies attested-within"
   :case/steps [[:attest {:claim :sbom :by "ci"}]]
   :case/expect {:reached #{:built :shipped}}}
  {:case/name "a stale one does not"
   :case/steps [[:attest {:claim :sbom}] [:now "+P2D"]]
   :case/expect {:reached #{:built}}}]}
`;

const ATTESTED_PROCESS = `{:process/id :attested :process/version 1 :process/guard-vocab 2
 :process/stages [{:stage/id :built :hint "h" :guards []}
                  {:stage/id :shipped :hint "h" :after [:built] :guards [[:attested-within :sbom "P1D"]]}]}`;

const LINT_FAILS = `{:process/id :broken :process/version 1
 :process/stages [{:stage/id :a :hint "h" :after [:missing] :guards []}]}`;

let dir: string;
beforeAll(() => {
  dir = tempDir('tik-scripted-');
  copyFileSync(join(CONFORMANCE, 'processes/support-request.edn'), join(dir, 'support-request.edn'));
  writeFileSync(join(dir, 'pass.tests.edn'), PASSING);
  writeFileSync(join(dir, 'fail.tests.edn'), FAILING);
  writeFileSync(join(dir, 'attested.edn'), ATTESTED_PROCESS);
  writeFileSync(join(dir, 'attest.tests.edn'), ATTEST);
  writeFileSync(join(dir, 'broken.edn'), LINT_FAILS);
  writeFileSync(join(dir, 'broken.tests.edn'), '{:test/process "broken.edn" :test/cases [{:case/name "x" :case/steps [] :case/expect {}}]}');
  writeFileSync(join(dir, 'malformed.tests.edn'), '{:test/process "support-request.edn" :test/cases [{:case/name "x" :case/steps [[:teleport]] :case/expect {}}]}');
});
afterAll(() => cleanup(dir));

const lines = (s: string) => s.trimEnd().split('\n');

describe('tik test (the compiled command)', () => {
  it('prints one line per case and exactly "N passed, N failed"; exit 0 when all pass', () => {
    const r = tikDist(dir, ['test', 'pass.tests.edn']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toHaveLength(8);
    expect(out.slice(0, 7).every((l) => l.startsWith('PASS pass.tests.edn: '))).toBe(true);
    expect(out[1]).toBe('PASS pass.tests.edn: a triager triages');
    expect(out.at(-1)).toBe('7 passed, 0 failed');
  });

  it('exits 1 on any failure and says why the case failed', () => {
    const r = tikDist(dir, ['test', 'fail.tests.edn']);
    expect(r.code).toBe(1);
    const out = lines(r.stdout);
    expect(out[0]).toBe('PASS fail.tests.edn: passes');
    expect(out[1]).toMatch(/^FAIL fail.tests.edn: claims triage without evidence: :triaged not reached/);
    expect(out.at(-1)).toBe('1 passed, 1 failed');
  });

  it('sums over several files', () => {
    const r = tikDist(dir, ['test', 'pass.tests.edn', 'fail.tests.edn', 'attest.tests.edn']);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toHaveLength(12);
    expect(lines(r.stdout).at(-1)).toBe('10 passed, 1 failed');
  });
});

describe('tik test edge cases', () => {
  it('attestations are written verbatim and read by :attested-within', async () => {
    const r = await tik(dir, ['test', 'attest.tests.edn']);
    expect(r.stdout).toMatch(/2 passed, 0 failed\n$/);
    expect(r.code).toBe(0);
  });

  it('a definition that fails lint fails every case', async () => {
    const r = await tik(dir, ['test', 'broken.tests.edn']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL broken.tests.edn: x: the definition fails lint/);
    expect(lines(r.stdout).at(-1)).toBe('0 passed, 1 failed');
  });

  it('a malformed tests file or a missing one counts as a failure naming the file, never a crash', async () => {
    const r = await tik(dir, ['test', 'malformed.tests.edn', 'absent.tests.edn']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL malformed.tests.edn: .*unknown step :teleport/);
    expect(r.stdout).toMatch(/FAIL absent.tests.edn: .*cannot read absent.tests.edn/);
    expect(lines(r.stdout).at(-1)).toBe('0 passed, 2 failed');
    expect(r.stderr).toBe('');
  });

  it('--json gives the results as data', async () => {
    const r = await tik(dir, ['test', 'fail.tests.edn', '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as { passed: number; failed: number; files: { cases: { name: string; passed: boolean }[] }[] };
    expect([j.passed, j.failed]).toEqual([1, 1]);
    expect(j.files[0]!.cases.map((c) => c.passed)).toEqual([true, false]);
  });
});

describe('tik test with no files', () => {
  it("runs the store's processes/*.tests.edn", async () => {
    const store = tempDir('tik-scripted-store-');
    try {
      await tik(store, ['init']);
      copyFileSync(join(CONFORMANCE, 'processes/support-request.edn'), join(store, 'processes/support-request.edn'));
      writeFileSync(join(store, 'processes/support-request.tests.edn'), PASSING);
      const r = await tik(store, ['test']);
      expect(r.code).toBe(0);
      expect(lines(r.stdout)[0]).toBe('PASS processes/support-request.tests.edn: a fresh ticket is received');
      expect(lines(r.stdout).at(-1)).toBe('7 passed, 0 failed');
      const empty = tempDir('tik-scripted-empty-');
      try {
        await tik(empty, ['init']);
        const none = await tik(empty, ['test']);
        expect(none.code).toBe(2);
        expect(none.stderr).toMatch(/no tests files given/);
      } finally {
        cleanup(empty);
      }
    } finally {
      cleanup(store);
    }
  });
});

describe('the scripted format', () => {
  it('parses steps and expectations, and names the key path of a mistake', () => {
    const s = parseScript(PASSING, join(dir, 'pass.tests.edn'));
    expect(s.cases).toHaveLength(7);
    expect(s.cases[4]!.steps).toEqual([{ op: 'now-plus', ms: 49 * 3600 * 1000, text: '+PT49H' }]);
    expect(() => parseScript('{:test/process "p.edn" :test/cases [{:case/name "n" :case/steps [[:set "x" 1]] :case/expect {}}]}', 'f.tests.edn')).toThrow(
      /:test\/cases 0 :case\/steps 0/,
    );
    expect(() => parseScript('{:test/process "p.edn" :test/cases [{:case/name "n" :case/expect {:reachd #{}}}]}', 'f.tests.edn')).toThrow(
      /unknown expectation :reachd/,
    );
    expect(() => parseScript('[]', 'f.tests.edn')).toThrow(/a tests file is one map/);
    expect(() => parseScript('{:test/cases []}', 'f.tests.edn')).toThrow(/:test\/process/);
    expect(() => parseScript('{:test/process "p.edn" :test/cases [{:case/name "n" :case/steps [[:now "+P1W"]] :case/expect {}}]}', 'f.tests.edn')).toThrow(
      /not a duration/,
    );
  });

  it('runScript returns per-case results', () => {
    const r = runScript(FAILING, join(dir, 'fail.tests.edn'));
    expect(r.cases.map((c) => [c.name, c.passed])).toEqual([
      ['passes', true],
      ['claims triage without evidence', false],
    ]);
  });

  it('the create is by "test" at 2026-01-01T00:00:00Z; each event is at now + 1 ms with the previous as parent', () => {
    const def = parseProcess(readEdn(readFileSync(join(dir, 'support-request.edn'), 'utf8')));
    const t = new SimTicket(def, resolveRoles(def), { creator: SCRIPT_CREATOR });
    t.assert('seb', [Keyword.of('category')], Keyword.of('technical'));
    t.advance(3_600_000);
    t.retract('seb', [Keyword.of('category')]);
    const [create, assert, retract] = t.events;
    expect(create!.actor).toBe('test');
    expect(create!.at.ms).toBe(SIM_EPOCH.ms);
    expect(create!.body.getByText(':ticket/process-hash')).toBeUndefined();
    expect(assert!.at.ms).toBe(SIM_EPOCH.ms + 1);
    expect(assert!.parents).toEqual([create!.id]);
    expect(retract!.at.ms).toBe(SIM_EPOCH.ms + 1 + 3_600_000 + 1);
    expect(retract!.parents).toEqual([assert!.id]);
    expect(t.now.ms).toBe(retract!.at.ms);
  });
});
