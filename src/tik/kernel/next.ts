/**
 * next, the inbox (tik-model.md §7.2): every ticket's explain reasons flattened into actions
 * (`[:set path]`, `[:attach prefix]`, `[:attest claim]`) with who may act, grouped across
 * tickets and ranked by how much they unlock and how stale the tickets are.
 */
import type { Instant} from '../edn/value.js';
import { Keyword, kw, type EdnValue, type Uuid } from '../edn/value.js';
import { emit, pathKey } from './edn-access.js';
import type { TikEvent } from './event.js';
import { explainDerived } from './explain.js';
import type { ProcessDef, Roles, StageDef } from './process.js';
import type { Reason } from './reason.js';
import { derive, downstream } from './stage.js';

/** An action as EDN: `[:set [:category]]`, `[:attach "repro/"]`, `[:attest :sbom]`. */
export type Action = readonly [Keyword, EdnValue];

export interface Unlock {
  readonly ticket: string;
  readonly stage: string;
  readonly hint?: string;
}

export interface InboxItem {
  readonly action: Action;
  /** Canonical text of the action, e.g. `[:set [:category]]`. */
  readonly actionText: string;
  /** `'anyone'` or the members who may act. */
  readonly who: 'anyone' | readonly string[];
  readonly role?: string;
  /** The one person who must not act (a `:different-person` counterpart). */
  readonly notActor?: string;
  /** now − the ticket's last event, maximum over the unlocked tickets. */
  readonly staleMs: number;
  readonly unlocks: readonly Unlock[];
}

export interface WaitingItem {
  readonly ticket: string;
  readonly stage: string;
  readonly reason: Reason;
}

export interface InboxResult {
  readonly items: readonly InboxItem[];
  readonly waiting: readonly WaitingItem[];
  /** Tickets hidden because they are settled (0 with `all`). */
  readonly settled: number;
}

export interface InboxTicket {
  readonly ticket: Uuid | string;
  readonly def: ProcessDef;
  readonly events: readonly TikEvent[];
}

export interface InboxOptions {
  /** Keep actions this actor may take. */
  readonly actor?: string;
  /** Keep actions gated by this role (keyword text `':triager'` or `triager`). */
  readonly role?: string;
  /** Include settled tickets. */
  readonly all?: boolean;
}

interface Contribution {
  readonly action: Action;
  readonly who: 'anyone' | readonly string[];
  readonly role?: string;
  readonly notActor?: string;
}

/** `[:signed-by role path]` forms anywhere in a stage's guards (conservative, even under `:or`). */
function signedByRoles(stage: StageDef, key: string): Keyword[] {
  const out: Keyword[] = [];
  const walk = (g: EdnValue): void => {
    if (!Array.isArray(g) || !(g[0] instanceof Keyword)) return;
    const op = g[0].toString();
    if (op === ':signed-by' && g[1] instanceof Keyword && Array.isArray(g[2]) && pathKey(g[2] as EdnValue[]) === key) out.push(g[1]);
    if (op === ':and' || op === ':or' || op === ':not') for (const c of g.slice(1)) walk(c as EdnValue);
  };
  for (const g of stage.guards) walk(g);
  return out;
}

/** Whether a ticket is settled: a sticky stage with no downstream is reached. */
export function isSettled(def: ProcessDef, reached: ReadonlySet<string>): boolean {
  return def.stages.some((s) => s.sticky && reached.has(s.key) && downstream(def, s.key).length === 0);
}

function contributions(stage: StageDef, reasons: readonly Reason[], roles: Roles): { actions: Contribution[]; waits: Reason[] } {
  const actions: Contribution[] = [];
  const waits: Reason[] = [];
  const forPath = (path: readonly EdnValue[], r: Reason): void => {
    const key = pathKey(path);
    const action: Action = [kw('set'), Object.freeze([...path])];
    if (r.kind === 'role/unsatisfied') {
      actions.push({ action, who: roles.get(r.role.toString()) ?? [], role: r.role.toString() });
      return;
    }
    const gated = signedByRoles(stage, key)[0];
    if (gated) actions.push({ action, who: roles.get(gated.toString()) ?? [], role: gated.toString() });
    else actions.push({ action, who: 'anyone' });
  };
  const visit = (r: Reason): void => {
    if (r.permanent) return;
    switch (r.kind) {
      case 'fact/missing':
      case 'fact/mismatch':
      case 'fact/invalid':
      case 'fact/retracted':
      case 'fact/disputed':
      case 'fact/conflicted':
      case 'role/unsatisfied':
        forPath(r.path, r);
        return;
      case 'role/same-person': {
        const first = r.paths[0];
        if (first) {
          const before = actions.length;
          forPath(first, r);
          const c = actions[before];
          if (c) actions[before] = { ...c, notActor: r.by };
        }
        return;
      }
      case 'artifact/missing':
        actions.push({ action: [kw('attach'), r.prefix], who: 'anyone' });
        return;
      case 'attestation/missing':
      case 'attestation/stale':
        actions.push({ action: [kw('attest'), r.claim], who: 'anyone' });
        return;
      case 'time/not-elapsed':
      case 'stage/not-reached':
        waits.push(r);
        return;
      case 'alternatives':
        for (const o of r.options) for (const c of o.reasons) visit(c);
        return;
      default:
        return;
    }
  };
  for (const r of reasons) visit(r);
  return { actions, waits };
}

/**
 * The inbox over many tickets at `now`. `rolesFor` resolves each definition's roles (normally
 * `resolveRoles(def, register)`).
 */
export function inbox(
  tickets: readonly InboxTicket[],
  now: Instant,
  rolesFor: (def: ProcessDef) => Roles,
  opts: InboxOptions = {},
): InboxResult {
  const groups = new Map<string, { c: Contribution; text: string; staleMs: number; unlocks: Unlock[]; seen: Set<string> }>();
  const waiting: WaitingItem[] = [];
  let settled = 0;
  const wantRole = opts.role === undefined ? undefined : opts.role.startsWith(':') ? opts.role : `:${opts.role}`;
  for (const t of tickets) {
    const roles = rolesFor(t.def);
    const d = derive(t.def, t.events, now, roles);
    if (!opts.all && isSettled(t.def, d.reached)) {
      settled++;
      continue;
    }
    const ticket = typeof t.ticket === 'string' ? t.ticket : t.ticket.text;
    let last = -Infinity;
    for (const e of t.events) last = Math.max(last, e.at.ms);
    const staleMs = Number.isFinite(last) ? now.ms - last : 0;
    const ex = explainDerived(t.def, d, now, roles);
    for (const b of ex.blocks) {
      const stage = t.def.stageByKey.get(b.stage);
      if (!stage) continue;
      const { actions, waits } = contributions(stage, b.missing, roles);
      for (const r of waits) waiting.push({ ticket, stage: b.stage, reason: r });
      for (const c of actions) {
        if (opts.actor !== undefined) {
          if (c.who !== 'anyone' && !c.who.includes(opts.actor)) continue;
          if (c.notActor === opts.actor) continue;
        }
        if (wantRole !== undefined && c.role !== wantRole) continue;
        const text = emit(Object.freeze([...c.action]));
        const gk = `${text}\u0000${c.who === 'anyone' ? 'anyone' : JSON.stringify(c.who)}\u0000${c.role ?? ''}\u0000${c.notActor ?? ''}`;
        let g = groups.get(gk);
        if (!g) {
          g = { c, text, staleMs, unlocks: [], seen: new Set() };
          groups.set(gk, g);
        }
        g.staleMs = Math.max(g.staleMs, staleMs);
        const uk = `${ticket} ${b.stage}`;
        if (!g.seen.has(uk)) {
          g.seen.add(uk);
          g.unlocks.push({ ticket, stage: b.stage, ...(b.hint !== undefined ? { hint: b.hint } : {}) });
        }
      }
    }
  }
  const items: InboxItem[] = [...groups.values()]
    .map((g) => ({
      action: g.c.action,
      actionText: g.text,
      who: g.c.who,
      ...(g.c.role !== undefined ? { role: g.c.role } : {}),
      ...(g.c.notActor !== undefined ? { notActor: g.c.notActor } : {}),
      staleMs: g.staleMs,
      unlocks: g.unlocks,
    }))
    .sort((a, b) => b.unlocks.length - a.unlocks.length || b.staleMs - a.staleMs || (a.actionText < b.actionText ? -1 : a.actionText > b.actionText ? 1 : 0));
  return { items, waiting, settled };
}
