/**
 * Lint for process definitions (tik-model.md §4.5, §5.2): errors make a definition unusable for
 * `new`/`reprocess`/`test`; warnings are advice, each with an opt-out under `:lint`.
 */
import { didYouMean } from '../../core/did-you-mean.js';
import { EdnMap, Keyword, type EdnValue } from '../edn/value.js';
import { ednEquals, emit, keywordPath, pathKey } from './edn-access.js';
import { isDuration, schemaProblem } from './checks.js';
import { VOCAB_1, VOCAB_2 } from './guard.js';
import type { ProcessDef, Roles, StageDef } from './process.js';

/** One lint finding. `code` is stable; `stage` is the stage keyword text; `path` a key path. */
export interface Finding {
  readonly code: string;
  readonly message: string;
  readonly stage?: string;
  readonly path?: string;
}

export interface LintResult {
  readonly errors: readonly Finding[];
  readonly warnings: readonly Finding[];
}

export interface LintOptions {
  /** The store's roles register (parsed `roles.edn`), when lint runs inside a store. */
  readonly register?: Roles;
}

// The keys each map of a definition may carry: those tik reads, plus those upstream hashes but
// never interprets (`:process/purpose`, `:probe`, stage `:purpose`). Anything else is hashed and
// ignored, so a typo such as `:gaurds` silently drops the guards: lint names it.
export const PROCESS_KEYS: readonly string[] = Object.freeze([
  ':process/id', ':process/version', ':process/guard-vocab', ':process/roles', ':process/facts', ':process/stages', ':lint',
  ':process/purpose', ':probe',
]);
export const STAGE_KEYS: readonly string[] = Object.freeze([':stage/id', ':after', ':guards', ':stage/sticky?', ':hint', ':effort', ':sla', ':purpose']);
export const ROLE_KEYS: readonly string[] = Object.freeze([':members']);
/** The rules `:lint {rule :off}` can turn off. */
export const LINT_RULES: readonly string[] = Object.freeze([':boolean-facts', ':runbooks', ':complexity', ':unknown-keys']);

const COMBINATORS = new Set([':and', ':or', ':not']);
const FACT_OPS = new Set([':fact', ':fact=', ':signed-by', ':different-person']);

/** Stage depth for stratification (§5.2): 0 without `:after`, else 1 + max depth of `:after`; none in a cycle. */
export function stageDepths(def: ProcessDef): ReadonlyMap<string, number> {
  const depth = new Map<string, number>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of def.stages) {
      if (depth.has(s.key)) continue;
      if (s.afterKeys.length === 0) {
        depth.set(s.key, 0);
        changed = true;
        continue;
      }
      const ds = s.afterKeys.map((a) => depth.get(a));
      if (ds.every((d) => d !== undefined)) {
        depth.set(s.key, 1 + Math.max(...(ds as number[])));
        changed = true;
      }
    }
  }
  return depth;
}

/** Visits every guard form, descending only into `:and`/`:or`/`:not`; `depth` counts enclosing combinators. */
function walkGuards(guards: readonly EdnValue[], visit: (g: readonly EdnValue[], op: string, depth: number, at: string) => void): void {
  const walk = (g: EdnValue, depth: number, at: string): void => {
    if (!Array.isArray(g) || !(g[0] instanceof Keyword)) return;
    const form = g as readonly EdnValue[];
    const op = (form[0] as Keyword).toString();
    visit(form, op, depth, at);
    if (COMBINATORS.has(op)) form.slice(1).forEach((c, i) => walk(c, depth + 1, `${at} ${i + 1}`));
  };
  guards.forEach((g, i) => walk(g, 0, `:guards ${i}`));
}

function off(def: ProcessDef, rule: string): boolean {
  return def.lintOptions.get(rule) === ':off';
}

/** A suggestion for an unknown key: the nearest known spelling, else the known key of the same name. */
function suggestKey(key: EdnValue, known: readonly string[]): string | undefined {
  if (!(key instanceof Keyword)) return undefined;
  return didYouMean(key.toString(), known) ?? known.find((k) => Keyword.of(k).name === key.name);
}

/** `lint/unknown-key` warnings for the keys of `map` outside `known`; `at` is the map's key path. */
function unknownKeys(map: EdnValue | undefined, known: readonly string[], at: string, where: string, stage: string | undefined, out: Finding[]): void {
  if (!(map instanceof EdnMap)) return;
  for (const [text, key] of map.textEntries()) {
    if (known.includes(text)) continue;
    const guess = suggestKey(key, known);
    out.push({
      code: 'lint/unknown-key',
      message: `${where}: unknown key ${text}, hashed but never read${guess ? `; did you mean ${guess}?` : ''} (or set {:lint {:unknown-keys :off}})`,
      ...(stage !== undefined ? { stage } : {}),
      path: `${at} ${text}`.trimStart(),
    });
  }
}

function lintKeys(def: ProcessDef, warnings: Finding[]): void {
  const raw = def.raw;
  unknownKeys(raw, PROCESS_KEYS, '', 'the definition', undefined, warnings);
  unknownKeys(raw.get(Keyword.of('lint')), LINT_RULES, ':lint', ':lint', undefined, warnings);
  const roles = raw.get(Keyword.of('process/roles'));
  if (roles instanceof EdnMap) {
    for (const [t, , spec] of roles.textEntries()) unknownKeys(spec, ROLE_KEYS, `:process/roles ${t}`, `role ${t}`, undefined, warnings);
  }
  for (const s of def.stages) unknownKeys(s.raw, STAGE_KEYS, `:process/stages ${s.index}`, `stage ${s.key}`, s.key, warnings);
}

/** Lints a parsed definition; `options.register` adds the store's roles to those the definition declares. */
export function lint(def: ProcessDef, options: LintOptions = {}): LintResult {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const vocab = def.guardVocab >= 2n ? VOCAB_2 : VOCAB_1;
  const depths = stageDepths(def);
  if (!off(def, ':unknown-keys')) lintKeys(def, warnings);

  for (const [key, decl] of def.facts) {
    const problem = schemaProblem(decl.schema);
    if (problem === 'unsupported') {
      errors.push({ code: 'lint/schema-unsupported', message: `fact ${key} uses a non-data schema (:fn and :multi are not supported): ${emit(decl.schema)}`, path: `:process/facts ${key}` });
    } else if (problem !== undefined) {
      errors.push({ code: 'lint/schema-invalid', message: `fact ${key} has an invalid schema ${emit(decl.schema)}: ${problem}`, path: `:process/facts ${key}` });
    }
    if (decl.schema instanceof Keyword && decl.schema.toString() === ':boolean' && !off(def, ':boolean-facts')) {
      warnings.push({
        code: 'lint/boolean-fact',
        message: `fact ${key} is a bare :boolean; prefer a fact that records what happened (an enum, a reference), or set {:lint {:boolean-facts :off}}`,
        path: `:process/facts ${key}`,
      });
    }
  }

  // Reachability by graph shape: every :after stage must exist and be reachable; cycles never are.
  const reachable = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of def.stages) {
      if (!reachable.has(s.key) && s.afterKeys.every((a) => reachable.has(a))) {
        reachable.add(s.key);
        changed = true;
      }
    }
  }

  for (const s of def.stages) {
    const at = `:process/stages ${s.index}`;
    for (const a of s.afterKeys) {
      if (!def.stageByKey.has(a)) errors.push({ code: 'lint/unknown-stage', message: `stage ${s.key} comes :after unknown stage ${a}`, stage: s.key, path: `${at} :after` });
    }
    if (!reachable.has(s.key)) {
      errors.push({ code: 'lint/unreachable-stage', message: `stage ${s.key} can never be reached: its :after chain has a cycle or an unknown stage`, stage: s.key, path: `${at} :after` });
    }
    if (s.hint === undefined && !off(def, ':runbooks')) {
      warnings.push({ code: 'lint/missing-hint', message: `stage ${s.key} has no :hint (a runbook pointer); or set {:lint {:runbooks :off}}`, stage: s.key, path: at });
    }
    lintStageGuards(def, s, vocab, depths, options.register, errors, warnings, at);
  }
  return { errors, warnings };
}

function lintStageGuards(
  def: ProcessDef,
  s: StageDef,
  vocab: readonly string[],
  depths: ReadonlyMap<string, number>,
  register: Roles | undefined,
  errors: Finding[],
  warnings: Finding[],
  stageAt: string,
): void {
  let maxDepth = 0;
  const err = (code: string, message: string, at: string): void => {
    errors.push({ code, message: `stage ${s.key}: ${message}`, stage: s.key, path: `${stageAt} ${at}` });
  };
  const warn = (code: string, message: string, at: string): void => {
    warnings.push({ code, message: `stage ${s.key}: ${message}`, stage: s.key, path: `${stageAt} ${at}` });
  };
  const undeclared = new Set<string>();
  const checkPath = (v: EdnValue | undefined, at: string): void => {
    const p = Array.isArray(v) ? keywordPath(v) : undefined;
    if (!p) return;
    const key = pathKey(p);
    if (!def.facts.has(key) && !undeclared.has(key)) {
      undeclared.add(key);
      warn('lint/undeclared-fact', `guard reads fact ${key}, which :process/facts does not declare`, at);
    }
  };
  const checkAndConflicts = (children: readonly EdnValue[], at: string): void => {
    const seen = new Map<string, EdnValue>();
    for (const c of children) {
      if (!Array.isArray(c) || !(c[0] instanceof Keyword) || c[0].toString() !== ':fact=' || !Array.isArray(c[1]) || c.length !== 3) continue;
      const key = pathKey(c[1] as EdnValue[]);
      const v = c[2] as EdnValue;
      const prev = seen.get(key);
      if (prev !== undefined && !ednEquals(prev, v)) {
        err('lint/contradictory-fact=', `[:and …] requires ${key} to equal both ${emit(prev)} and ${emit(v)}; it can never hold`, at);
      } else seen.set(key, v);
    }
  };
  checkAndConflicts(s.guards, ':guards');

  walkGuards(s.guards, (g, op, depth, at) => {
    maxDepth = Math.max(maxDepth, depth + (COMBINATORS.has(op) ? 1 : 0));
    if (!vocab.includes(op)) {
      const known = VOCAB_2.includes(op);
      err(
        'lint/operator-not-in-vocab',
        known
          ? `operator ${op} needs :process/guard-vocab 2 (this definition declares ${def.guardVocab})`
          : `unknown guard operator ${op} (vocab ${def.guardVocab}: ${vocab.join(' ')})`,
        at,
      );
    }
    if (FACT_OPS.has(op)) {
      if (op === ':signed-by') checkPath(g[2], at);
      else if (op === ':different-person') {
        checkPath(g[1], at);
        checkPath(g[2], at);
      } else checkPath(g[1], at);
    }
    switch (op) {
      case ':stage-reached': {
        const t = g[1];
        if (!(t instanceof Keyword) || !def.stageByKey.has(t.toString())) {
          err('lint/unknown-stage', `[:stage-reached ${t === undefined ? '' : emit(t)}] names an unknown stage`, at);
        }
        break;
      }
      case ':signed-by': {
        if (g.length < 3) err('lint/signed-by-arity', `[:signed-by role path] needs a role and a path: ${emit(g)}`, at);
        const role = g[1];
        if (role instanceof Keyword && !def.roles.has(role.toString()) && !register?.has(role.toString())) {
          const guess = didYouMean(role.toString(), [...def.roles.keys(), ...(register?.keys() ?? [])]);
          const declares = register ? 'neither :process/roles nor the roles register declares' : ':process/roles does not declare (and no roles register was consulted: run tik lint inside the store)';
          warn('lint/undeclared-role', `[:signed-by ${role.toString()} …] names role ${role.toString()}, which ${declares}, so no one can satisfy it${guess ? `; did you mean ${guess}?` : ''}`, at);
        }
        break;
      }
      case ':elapsed-since': {
        const ref = g[1];
        if (!(ref instanceof Keyword) || ref.toString() !== ':ticket/create') {
          err('lint/elapsed-since-ref', `:elapsed-since can only measure from :ticket/create, got ${ref === undefined ? 'nothing' : emit(ref)}`, at);
        }
        const d = g[2];
        if (typeof d !== 'string' || !isDuration(d)) err('lint/invalid-duration', `${d === undefined ? 'missing duration' : emit(d)} is not a java.time.Duration (e.g. "PT48H", "P2D")`, at);
        break;
      }
      case ':attested-within': {
        const d = g[2];
        if (typeof d !== 'string' || !isDuration(d)) err('lint/invalid-duration', `${d === undefined ? 'missing duration' : emit(d)} is not a java.time.Duration (e.g. "PT48H", "P2D")`, at);
        break;
      }
      case ':artifact': {
        const p = g[1];
        if (typeof p === 'string' && !p.endsWith('/')) {
          warn('lint/artifact-prefix', `[:artifact ${emit(p)}] is a prefix match; without a trailing "/" it also matches ${JSON.stringify(`${p}-notes.txt`)}`, at);
        }
        break;
      }
      case ':malli': {
        const problem = g[1] === undefined ? 'missing schema' : schemaProblem(g[1]);
        if (problem === 'unsupported') err('lint/schema-unsupported', `[:malli …] uses a non-data schema: ${emit(g[1] ?? null)}`, at);
        else if (problem !== undefined) err('lint/schema-invalid', `[:malli …] has an invalid schema: ${problem}`, at);
        break;
      }
      case ':and':
        checkAndConflicts(g.slice(1), at);
        break;
      case ':not': {
        const inner = g[1];
        if (Array.isArray(inner) && inner[0] instanceof Keyword && inner[0].toString() === ':stage-reached' && inner[1] instanceof Keyword) {
          const t = inner[1].toString();
          const dt = depths.get(t);
          const ds = depths.get(s.key);
          if (dt !== undefined && ds !== undefined && dt >= ds) {
            err(
              'lint/stratified-negation',
              `[:not [:stage-reached ${t}]] negates a stage of depth ${dt} from depth ${ds}; negation must look strictly down (ADR 0005) — negate a fact instead`,
              at,
            );
          }
        }
        break;
      }
    }
  });

  if (!off(def, ':complexity')) {
    if (maxDepth > 4) warn('lint/complexity', `guards nest combinators ${maxDepth} deep (more than 4)`, ':guards');
    if (s.guards.length > 6) warn('lint/complexity', `${s.guards.length} guards on one stage (more than 6)`, ':guards');
  }
}
