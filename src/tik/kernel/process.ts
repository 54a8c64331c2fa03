/**
 * Process definitions (tik-model.md §4.1–4.2): the parsed, frozen value with its content hash.
 * Unknown keys are hashed and never interpreted; guards are kept as data and compiled lazily.
 */
import { TikError } from '../errors.js';
import { EdnMap, Keyword, kw, type EdnValue } from '../edn/value.js';
import { contentIdOf, emit, keywordPath, pathKey, seqItems } from './edn-access.js';

/** One stage of a definition. */
export interface StageDef {
  readonly id: Keyword;
  /** Keyword text, e.g. `':triaged'`. */
  readonly key: string;
  readonly after: readonly Keyword[];
  /** Keyword texts of `after`. */
  readonly afterKeys: readonly string[];
  /** Guard forms as written (an implicit AND). */
  readonly guards: readonly EdnValue[];
  readonly sticky: boolean;
  readonly hint: string | undefined;
  /** Position in `:process/stages` (renderings only; derivation is order-free). */
  readonly index: number;
  readonly raw: EdnMap;
}

/** A declared fact schema. */
export interface FactDecl {
  readonly path: readonly EdnValue[];
  /** Canonical text of the path vector. */
  readonly key: string;
  readonly schema: EdnValue;
}

/** A parsed process definition. Immutable. */
export interface ProcessDef {
  readonly id: Keyword;
  readonly version: bigint;
  /** `:process/guard-vocab`, default 1. */
  readonly guardVocab: bigint;
  /** Content address of the parsed map (§4.2). */
  readonly hash: string;
  readonly raw: EdnMap;
  readonly stages: readonly StageDef[];
  /** Stage key (`':triaged'`) → stage. */
  readonly stageByKey: ReadonlyMap<string, StageDef>;
  /** Path key → declaration, from `:process/facts`. */
  readonly facts: ReadonlyMap<string, FactDecl>;
  /** The definition's own roles (role keyword text → members). */
  readonly roles: Roles;
  /** `:lint` options: keyword text of the rule (`':runbooks'`) → keyword text (`':off'`). */
  readonly lintOptions: ReadonlyMap<string, string>;
}

/** Role keyword text (`':triager'`) → members. */
export type Roles = ReadonlyMap<string, readonly string[]>;

const P = Object.freeze({
  id: kw('process/id'),
  version: kw('process/version'),
  guardVocab: kw('process/guard-vocab'),
  roles: kw('process/roles'),
  facts: kw('process/facts'),
  stages: kw('process/stages'),
  lint: kw('lint'),
  stageId: kw('stage/id'),
  after: kw('after'),
  guards: kw('guards'),
  sticky: kw('stage/sticky?'),
  hint: kw('hint'),
  effort: kw('effort'),
  sla: kw('sla'),
  members: kw('members'),
});

function invalid(message: string, source: string | undefined, keyPath: string): TikError {
  return new TikError('process/invalid', message, {
    where: source ? `${source} ${keyPath}` : keyPath,
    hint: 'see tik-model.md §4.1 for the definition schema',
  });
}

/** Parses a role map `{role {:members [str …]}}`; used for definitions and `roles.edn`. */
export function parseRoleMap(v: EdnValue | undefined, source: string | undefined, keyPath: string): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  if (v === undefined) return out;
  if (!(v instanceof EdnMap)) throw invalid(`${keyPath} must be a map of role → {:members [...]}`, source, keyPath);
  for (const [t, role, spec] of v.textEntries()) {
    if (!(role instanceof Keyword)) throw invalid(`role ${t} must be a keyword`, source, keyPath);
    if (!(spec instanceof EdnMap)) throw invalid(`role ${t} must be a map with :members`, source, `${keyPath} ${t}`);
    const members = spec.get(P.members);
    const items = members === undefined ? [] : seqItems(members);
    if (!items || items.some((m) => typeof m !== 'string')) {
      throw invalid(`role ${t} :members must be a vector of strings`, source, `${keyPath} ${t} :members`);
    }
    out.set(t, Object.freeze([...(items as string[])]));
  }
  return out;
}

const posInt = (v: EdnValue | undefined): v is bigint => typeof v === 'bigint' && v > 0n;

/**
 * Parses and validates a definition (an already-read EDN value). Throws
 * `TikError('process/invalid')` naming the key path. `hash` is `contentIdOf(value)`.
 */
export function parseProcess(value: EdnValue, source?: string): ProcessDef {
  if (!(value instanceof EdnMap)) throw invalid('a process definition must be a map', source, '');
  const id = value.get(P.id);
  if (!(id instanceof Keyword)) throw invalid(':process/id must be a keyword', source, ':process/id');
  const version = value.get(P.version);
  if (!posInt(version)) throw invalid(':process/version must be a positive integer', source, ':process/version');
  const vocab = value.get(P.guardVocab) ?? 1n;
  if (!posInt(vocab)) throw invalid(':process/guard-vocab must be a positive integer', source, ':process/guard-vocab');

  const lintOptions = new Map<string, string>();
  const lint = value.get(P.lint);
  if (lint !== undefined) {
    if (!(lint instanceof EdnMap)) throw invalid(':lint must be a map of keyword → keyword', source, ':lint');
    for (const [t, k, v] of lint.textEntries()) {
      if (!(k instanceof Keyword) || !(v instanceof Keyword)) throw invalid(':lint must map keywords to keywords', source, `:lint ${t}`);
      lintOptions.set(t, v.toString());
    }
  }

  const roles = parseRoleMap(value.get(P.roles), source, ':process/roles');

  const facts = new Map<string, FactDecl>();
  const factsV = value.get(P.facts);
  if (factsV !== undefined) {
    if (!(factsV instanceof EdnMap)) throw invalid(':process/facts must be a map of [kw …] → schema', source, ':process/facts');
    for (const [t, k, schema] of factsV.textEntries()) {
      const path = keywordPath(k);
      if (!path || !Array.isArray(k)) throw invalid(`fact path ${t} must be a vector of keywords`, source, `:process/facts ${t}`);
      facts.set(pathKey(path), Object.freeze({ path, key: pathKey(path), schema }));
    }
  }

  const stagesV = value.get(P.stages);
  const stageItems = Array.isArray(stagesV) ? (stagesV as readonly EdnValue[]) : undefined;
  if (!stageItems) throw invalid(':process/stages must be a vector of stage maps', source, ':process/stages');
  const stages: StageDef[] = [];
  const stageByKey = new Map<string, StageDef>();
  stageItems.forEach((s, index) => {
    const at = `:process/stages ${index}`;
    if (!(s instanceof EdnMap)) throw invalid(`stage ${index} must be a map`, source, at);
    const sid = s.get(P.stageId);
    if (!(sid instanceof Keyword)) throw invalid(`stage ${index} needs a keyword :stage/id`, source, `${at} :stage/id`);
    const afterV = s.get(P.after);
    const after = afterV === undefined ? [] : keywordPath(afterV);
    if (!after || (afterV !== undefined && !Array.isArray(afterV))) throw invalid(`stage ${sid.toString()} :after must be a vector of stage keywords`, source, `${at} :after`);
    const guardsV = s.get(P.guards);
    const guards = guardsV === undefined ? [] : Array.isArray(guardsV) ? (guardsV as readonly EdnValue[]) : undefined;
    if (!guards) throw invalid(`stage ${sid.toString()} :guards must be a vector of guards`, source, `${at} :guards`);
    guards.forEach((g, gi) => {
      if (!Array.isArray(g) || g.length === 0 || !(g[0] instanceof Keyword)) {
        throw invalid(`stage ${sid.toString()} guard ${gi} must be a vector [:operator & args], got ${emit(g)}`, source, `${at} :guards ${gi}`);
      }
    });
    const sticky = s.get(P.sticky);
    if (sticky !== undefined && typeof sticky !== 'boolean') throw invalid(`stage ${sid.toString()} :stage/sticky? must be a boolean`, source, `${at} :stage/sticky?`);
    const hint = s.get(P.hint);
    if (hint !== undefined && typeof hint !== 'string') throw invalid(`stage ${sid.toString()} :hint must be a string`, source, `${at} :hint`);
    const effort = s.get(P.effort);
    if (effort !== undefined && typeof effort !== 'string') throw invalid(`stage ${sid.toString()} :effort must be a string`, source, `${at} :effort`);
    const sla = s.get(P.sla);
    if (sla !== undefined && !(sla instanceof EdnMap)) throw invalid(`stage ${sid.toString()} :sla must be a map`, source, `${at} :sla`);
    const key = sid.toString();
    if (stageByKey.has(key)) throw invalid(`stage ${key} is defined twice`, source, at);
    const def: StageDef = Object.freeze({
      id: sid,
      key,
      after: Object.freeze([...after]),
      afterKeys: Object.freeze(after.map((a) => a.toString())),
      guards: Object.freeze([...guards]),
      sticky: sticky === true,
      hint: typeof hint === 'string' ? hint : undefined,
      index,
      raw: s,
    });
    stages.push(def);
    stageByKey.set(key, def);
  });

  return Object.freeze({
    id,
    version,
    guardVocab: vocab,
    hash: contentIdOf(value),
    raw: value,
    stages: Object.freeze(stages),
    stageByKey,
    facts,
    roles,
    lintOptions,
  });
}

/**
 * Resolves roles (§4.3): the definition's roles merged with the register (`roles.edn`),
 * the register replacing whole roles. No `now`: membership is present-tense.
 */
export function resolveRoles(def: ProcessDef, register?: EdnMap): Roles {
  const out = new Map(def.roles);
  for (const [k, v] of parseRoleMap(register, 'roles.edn', '')) out.set(k, v);
  return out;
}
