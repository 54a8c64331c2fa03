import { emit } from '../edn/index.js';
import { isVector, Keyword, type EdnValue } from '../edn/value.js';
import type { Reason, Roles, StageDef } from '../kernel/index.js';
import { instantText } from './json-value.js';

/** A fact path for people: `[:resolution :ref]` → `resolution.ref`. */
export function pathText(path: readonly EdnValue[] | undefined): string {
  if (!path) return '?';
  return path.every((s) => s instanceof Keyword) ? (path as Keyword[]).map((k) => k.text).join('.') : emit([...path]);
}

const v = (x: EdnValue): string => emit(x);

const membersOf = (roles: Roles, role: Keyword): readonly string[] => roles.get(role.toString()) ?? [];

/** The role a stage's `[:signed-by role path]` guards require for a path (anywhere under :and/:or/:not). */
export function gatingRole(stage: StageDef | undefined, path: readonly EdnValue[]): Keyword | undefined {
  if (!stage) return undefined;
  const want = emit([...path]);
  let found: Keyword | undefined;
  const walk = (g: EdnValue): void => {
    if (found || !isVector(g) || !(g[0] instanceof Keyword)) return;
    const op = g[0].text;
    if (op === 'signed-by' && g[1] instanceof Keyword && isVector(g[2]) && emit([...g[2]]) === want) found = g[1];
    if (op === 'and' || op === 'or' || op === 'not') g.slice(1).forEach(walk);
  };
  stage.guards.forEach(walk);
  return found;
}

/** Who may supply a fact: the gating role's members, or anyone. */
function whoSets(roles: Roles, role: Keyword | undefined): string {
  if (!role) return 'anyone can set it';
  const m = membersOf(roles, role);
  return `${role.toString()} (${m.length > 0 ? m.join(', ') : 'no members'}) must set it`;
}

/**
 * One line saying what is missing, and who can supply it (human output; not a contract).
 * `stage` (the blocked stage) lets fact reasons name the role a `:signed-by` guard requires.
 */
export function reasonText(r: Reason, roles: Roles, stage?: StageDef): string {
  const perm = r.permanent ? ' [can never be met]' : '';
  switch (r.kind) {
    case 'fact/missing':
      return `${pathText(r.path)} is missing${r.expected !== undefined ? ` (needs ${v(r.expected)})` : ''}; ${whoSets(roles, gatingRole(stage, r.path))}${perm}`;
    case 'fact/retracted':
      return `${pathText(r.path)} was retracted by ${r.by}${r.note !== null && r.note !== undefined ? ` (${v(r.note)})` : ''}${perm}`;
    case 'fact/disputed':
      return `${pathText(r.path)} is disputed by ${r.by}${r.note !== null ? ` (${v(r.note)})` : ''}${perm}`;
    case 'fact/conflicted':
      return `${pathText(r.path)} is conflicted: ${r.claims.map((c) => `${c.by} ${c.kind === 'assert' ? v(c.value ?? null) : 'retracted'}`).join(' vs ')}${perm}`;
    case 'fact/invalid':
      return `${pathText(r.path)} = ${v(r.value)} is invalid: ${r.errors.join(', ')}${perm}`;
    case 'fact/mismatch':
      return `${pathText(r.path)} is ${v(r.actual)}, needs ${v(r.expected)}${perm}`;
    case 'schema/unsupported':
      return `the schema ${v(r.schema)} is not supported${perm}`;
    case 'schema/unsatisfied':
      return `the facts do not satisfy ${v(r.schema)}: ${r.errors.join(', ')}${perm}`;
    case 'artifact/missing':
      return `no artifact under "${r.prefix}"; anyone can attach one${perm}`;
    case 'role/unsatisfied': {
      const m = membersOf(roles, r.role);
      return `${pathText(r.path)} must come from ${r.role.toString()} (${m.length > 0 ? m.join(', ') : 'no members'}), not ${r.by}${perm}`;
    }
    case 'role/same-person':
      return `${r.paths.map((p) => pathText(p)).join(' and ')} must come from different people (both by ${r.by})${perm}`;
    case 'stage/not-reached':
      return `waits for ${r.stage.toString()}${perm}`;
    case 'time/not-elapsed':
      return `waits ${r.duration} since ${isVector(r.since) ? v(r.since) : v(r.since)}${r.due ? ` (due ${instantText(r.due)})` : ''}${perm}`;
    case 'attestation/stale':
      return `the attestation ${v(r.claim)} is older than ${r.within} (last ${instantText(r.lastAt)})${perm}`;
    case 'attestation/missing':
      return `needs an attestation ${v(r.claim)} within ${r.within}${perm}`;
    case 'alternatives':
      return `one of: ${r.options.map((o) => o.reasons.map((c) => reasonText(c, roles, stage)).join(' and ') || v(o.guard)).join(' | ')}${perm}`;
    case 'must-not-hold':
      return `${v(r.guard)} must not hold${perm}`;
    case 'guard/malformed':
      return `malformed guard ${v(r.guard)}: ${r.message}${perm}`;
  }
}
