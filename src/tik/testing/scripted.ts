import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { emit, readEdn } from '../edn/index.js';
import { type EdnMap, Instant, isInstant, isKeyword, isMap, isSet, isVector, Keyword, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import { parseDurationMillis } from '../kernel/duration.js';
import { lint, parseProcess, resolveRoles, type ProcessDef, type Roles } from '../kernel/index.js';
import { parseInstantText } from '../app/instant-arg.js';
import { SimTicket } from './sim-ticket.js';

/**
 * The scripted test format (`*.tests.edn`, tik-model.md §11.3), as upstream ships it beside its
 * processes:
 *
 * ```clojure
 * {:test/process "support-request.edn"          ; relative to the tests file
 *  :test/roles {:triager {:members ["seb"]}}    ; optional; merged over the definition's roles
 *  :test/cases [{:case/name "triage needs a triager"
 *                :case/steps [[:actor "seb"] [:set [:category] :technical] [:now "+PT49H"]]
 *                :case/expect {:reached #{:received} :includes #{…} :excludes #{…} :current #{…}}}]}
 * ```
 * Steps: `[:actor a]`, `[:now "+<Duration>"|"<inst>"]`, `[:set p v]`, `[:retract p]`,
 * `[:dispute p reason]`, `[:attach p]` (hash `sha256-`+sha256(p)), `[:attest claim-map]`.
 * The create is by `"test"` at 2026-01-01T00:00:00Z with no version or hash; each appended event
 * is at `now + 1 ms` and `now` moves to it. The definition must lint clean.
 */

export type ScriptStep =
  | { readonly op: 'actor'; readonly actor: string }
  | { readonly op: 'now-plus'; readonly ms: number; readonly text: string }
  | { readonly op: 'now-at'; readonly at: number }
  | { readonly op: 'set'; readonly path: readonly Keyword[]; readonly value: EdnValue }
  | { readonly op: 'retract'; readonly path: readonly Keyword[] }
  | { readonly op: 'dispute'; readonly path: readonly Keyword[]; readonly reason: EdnValue }
  | { readonly op: 'attach'; readonly artifactPath: string }
  | { readonly op: 'attest'; readonly body: EdnMap };

export interface ScriptExpect {
  readonly reached?: readonly string[];
  readonly current?: readonly string[];
  readonly includes?: readonly string[];
  readonly excludes?: readonly string[];
}

export interface ScriptCase {
  readonly name: string;
  readonly steps: readonly ScriptStep[];
  readonly expect: ScriptExpect;
}

export interface ScriptFile {
  readonly file: string;
  readonly processFile: string;
  readonly roles: EdnMap | undefined;
  readonly cases: readonly ScriptCase[];
}

export interface CaseResult {
  readonly name: string;
  readonly passed: boolean;
  /** Why it failed (empty when it passed). */
  readonly problems: readonly string[];
}

export interface ScriptResult {
  readonly file: string;
  readonly cases: readonly CaseResult[];
  readonly passed: number;
  readonly failed: number;
}

/** The actor of the create event and of steps before any `[:actor …]`. */
export const SCRIPT_CREATOR = 'test';

const kw = (t: string): Keyword => Keyword.of(t);

function bad(file: string, where: string, message: string, hint: string): TikError {
  return new TikError('test/malformed', `${file}: ${where}: ${message}`, { where: `${file} ${where}`, hint });
}

function asPath(v: EdnValue | undefined, file: string, where: string): readonly Keyword[] {
  if (isKeyword(v)) return [v];
  if (isVector(v) && v.length > 0 && v.every(isKeyword)) return v as readonly Keyword[];
  throw bad(file, where, `${v === undefined ? 'nothing' : emit(v)} is not a fact path`, 'write a path as a vector of keywords, e.g. [:resolution :ref]');
}

function stageList(v: EdnValue | undefined, file: string, where: string): readonly string[] | undefined {
  if (v === undefined) return undefined;
  const items = isSet(v) ? [...v.values()] : isVector(v) ? v : undefined;
  if (!items || !items.every(isKeyword)) {
    throw bad(file, where, `${emit(v)} is not a set of stage keywords`, 'write stages as a set such as #{:received :triaged}');
  }
  return items.map((s) => (s as Keyword).toString()).sort();
}

function parseStepForm(form: EdnValue, file: string, where: string): ScriptStep {
  if (!isVector(form) || form.length === 0 || !isKeyword(form[0])) {
    throw bad(file, where, `${emit(form)} is not a step`, 'a step is a vector such as [:set [:category] :technical]');
  }
  const [op, a, b] = form;
  const arity = (n: number) => {
    if (form.length !== n + 1) throw bad(file, where, `${emit(form)} takes ${n} argument${n === 1 ? '' : 's'}`, 'see the step list in docs/tik.md');
  };
  switch ((op as Keyword).text) {
    case 'actor':
      arity(1);
      if (typeof a !== 'string') throw bad(file, where, `the actor in ${emit(form)} must be a string`, 'write [:actor "seb"]');
      return { op: 'actor', actor: a };
    case 'now': {
      arity(1);
      if (isInstant(a)) return { op: 'now-at', at: a.ms };
      if (typeof a !== 'string') throw bad(file, where, `${emit(form)} needs "+<duration>" or an instant`, 'write [:now "+PT49H"] or [:now "2026-01-03T00:00:00Z"]');
      if (a.startsWith('+')) {
        let ms: number;
        try {
          ms = Number(parseDurationMillis(a.slice(1)));
        } catch (e) {
          throw bad(file, where, `"${a}" is not a duration: ${e instanceof Error ? e.message : String(e)}`, 'durations follow ISO-8601 like PT48H or P2D');
        }
        return { op: 'now-plus', ms, text: a };
      }
      return { op: 'now-at', at: parseInstantText(a, `${file} ${where}`).ms };
    }
    case 'set':
      arity(2);
      return { op: 'set', path: asPath(a, file, where), value: b as EdnValue };
    case 'retract':
      arity(1);
      return { op: 'retract', path: asPath(a, file, where) };
    case 'dispute':
      if (form.length !== 2 && form.length !== 3) arity(2);
      return { op: 'dispute', path: asPath(a, file, where), reason: form.length === 3 ? (b as EdnValue) : 'disputed' };
    case 'attach':
      arity(1);
      if (typeof a !== 'string') throw bad(file, where, `the artifact path in ${emit(form)} must be a string`, 'write [:attach "repro/crash.sh"]');
      return { op: 'attach', artifactPath: a };
    case 'attest':
      arity(1);
      if (!isMap(a)) throw bad(file, where, `the claim in ${emit(form)} must be a map`, 'write [:attest {:claim :sbom}]');
      return { op: 'attest', body: a };
    default:
      throw bad(file, where, `unknown step ${emit(op as Keyword)}`, 'steps are :actor :now :set :retract :dispute :attach :attest');
  }
}

/** Parse a `.tests.edn` text. Throws `test/malformed` naming the file and the key path. */
export function parseScript(text: string, file: string): ScriptFile {
  const doc = readEdn(text, file);
  if (!isMap(doc)) throw bad(file, 'top level', 'a tests file is one map', 'start with {:test/process "…" :test/cases […]}');
  const proc = doc.get(kw('test/process'));
  if (typeof proc !== 'string') {
    throw bad(file, ':test/process', 'must be a string path to the process definition', 'e.g. :test/process "support-request.edn"');
  }
  const roles = doc.get(kw('test/roles'));
  if (roles !== undefined && roles !== null && !isMap(roles)) {
    throw bad(file, ':test/roles', 'must be a map {role {:members [...]}}', 'e.g. :test/roles {:triager {:members ["seb"]}}');
  }
  const casesForm = doc.get(kw('test/cases'));
  if (!isVector(casesForm)) throw bad(file, ':test/cases', 'must be a vector of cases', 'e.g. :test/cases [{:case/name "…" :case/steps [] :case/expect {}}]');
  const cases = casesForm.map((c, i): ScriptCase => {
    const where = `:test/cases ${i}`;
    if (!isMap(c)) throw bad(file, where, 'a case is a map', 'write {:case/name "…" :case/steps […] :case/expect {…}}');
    const name = c.get(kw('case/name'));
    if (typeof name !== 'string' || name === '') throw bad(file, `${where} :case/name`, 'must be a non-empty string', 'name each case');
    const stepsForm = c.get(kw('case/steps')) ?? [];
    if (!isVector(stepsForm)) throw bad(file, `${where} :case/steps`, 'must be a vector of steps', 'write :case/steps [[:actor "seb"] …]');
    const steps = stepsForm.map((s, j) => parseStepForm(s, file, `${where} :case/steps ${j}`));
    const exp = c.get(kw('case/expect'));
    if (!isMap(exp)) throw bad(file, `${where} :case/expect`, 'must be a map', 'write :case/expect {:reached #{…}}');
    for (const [t] of exp.textEntries()) {
      if (![':reached', ':current', ':includes', ':excludes'].includes(t)) {
        throw bad(file, `${where} :case/expect`, `unknown expectation ${t}`, 'expectations are :reached :current :includes :excludes');
      }
    }
    const expect: ScriptExpect = {
      reached: stageList(exp.get(kw('reached')), file, `${where} :case/expect :reached`),
      current: stageList(exp.get(kw('current')), file, `${where} :case/expect :current`),
      includes: stageList(exp.get(kw('includes')), file, `${where} :case/expect :includes`),
      excludes: stageList(exp.get(kw('excludes')), file, `${where} :case/expect :excludes`),
    };
    return { name, steps, expect };
  });
  return { file, processFile: resolve(dirname(file), proc), roles: isMap(roles) ? roles : undefined, cases };
}

const sorted = (s: ReadonlySet<string>): string[] => [...s].sort();
const setText = (xs: readonly string[]): string => `#{${xs.join(' ')}}`;

/** Run one case on a fresh in-memory ticket; returns the problems found (none = passed). */
export function runCase(def: ProcessDef, roles: Roles, c: ScriptCase): CaseResult {
  const t = new SimTicket(def, roles, { creator: SCRIPT_CREATOR, title: c.name });
  let actor = SCRIPT_CREATOR;
  for (const s of c.steps) {
    switch (s.op) {
      case 'actor':
        actor = s.actor;
        break;
      case 'now-plus':
        t.advance(s.ms);
        break;
      case 'now-at':
        t.setNow(new Instant(s.at));
        break;
      case 'set':
        t.assert(actor, s.path, s.value);
        break;
      case 'retract':
        t.retract(actor, s.path);
        break;
      case 'dispute':
        t.dispute(actor, s.path, s.reason);
        break;
      case 'attach':
        t.attach(actor, s.artifactPath, `sha256-${createHash('sha256').update(s.artifactPath, 'utf8').digest('hex')}`);
        break;
      case 'attest':
        t.attest(actor, s.body);
        break;
    }
  }
  const reached = sorted(t.reached());
  const current = sorted(t.current());
  const problems: string[] = [];
  const e = c.expect;
  if (e.reached && setText(e.reached) !== setText(reached)) problems.push(`reached ${setText(reached)}, expected ${setText(e.reached)}`);
  if (e.current && setText(e.current) !== setText(current)) problems.push(`current ${setText(current)}, expected ${setText(e.current)}`);
  for (const s of e.includes ?? []) if (!reached.includes(s)) problems.push(`${s} not reached (reached ${setText(reached)})`);
  for (const s of e.excludes ?? []) if (reached.includes(s)) problems.push(`${s} reached but excluded`);
  return { name: c.name, passed: problems.length === 0, problems };
}

/** Load the process a script names; lint errors make every case fail. */
export function loadScriptProcess(script: ScriptFile): { def: ProcessDef; lintErrors: string[] } {
  let text: string;
  try {
    text = readFileSync(script.processFile, 'utf8');
  } catch {
    throw new TikError('test/no-process', `${script.file}: the process file ${script.processFile} cannot be read`, {
      where: script.file,
      hint: ':test/process is a path relative to the tests file',
    });
  }
  const def = parseProcess(readEdn(text, script.processFile), script.processFile);
  const { errors } = lint(def);
  return { def, lintErrors: errors.map((f) => `${f.code}: ${f.message}`) };
}

/** Run a whole tests file (already read as text). */
export function runScript(text: string, file: string): ScriptResult {
  const script = parseScript(text, file);
  const { def, lintErrors } = loadScriptProcess(script);
  const roles = resolveRoles(def, script.roles);
  const cases = script.cases.map((c) =>
    lintErrors.length > 0
      ? { name: c.name, passed: false, problems: [`the definition fails lint: ${lintErrors.join('; ')}`] }
      : runCase(def, roles, c),
  );
  const passed = cases.filter((c) => c.passed).length;
  return { file, cases, passed, failed: cases.length - passed };
}
