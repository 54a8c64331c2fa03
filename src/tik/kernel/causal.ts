/**
 * The causal lens (tik-model.md §7.3): for each reached stage, the evidence behind each guard.
 * Fact-like guards cite the current entry's event, `:artifact` the matching attaches,
 * `:attested-within` the matching attestations; `:not`, time, `:malli` and `:stage-reached`
 * give notes. `:and`/`:or` cite what their children cite.
 */
import { Keyword, type EdnValue, type Instant } from '../edn/value.js';
import { emit, keywordPath, pathKey } from './edn-access.js';
import type { TikEvent } from './event.js';
import type { ProcessDef, Roles } from './process.js';
import { factStatusByKey, type TicketState } from './reduce.js';
import { derive } from './stage.js';

/** Support for one guard: the events it rests on, or a note when it rests on none. */
export type Support = { readonly via: EdnValue; readonly events: readonly string[] } | { readonly via: EdnValue; readonly note: string };

export interface CausalEntry {
  /** Stage keyword text. */
  readonly stage: string;
  readonly support: readonly Support[];
}

function eventsFor(g: EdnValue, state: TicketState): string[] | string {
  if (!Array.isArray(g) || !(g[0] instanceof Keyword)) return 'not a guard';
  const op = g[0].toString();
  const factEvent = (p: EdnValue | undefined): string[] => {
    const path = Array.isArray(p) ? keywordPath(p) : undefined;
    if (!path) return [];
    const s = factStatusByKey(state, pathKey(path));
    return s.status === 'present' ? [s.event] : [];
  };
  switch (op) {
    case ':fact':
    case ':fact=':
      return factEvent(g[1]);
    case ':signed-by':
      return factEvent(g[2]);
    case ':different-person':
      return [...factEvent(g[1]), ...factEvent(g[2])];
    case ':artifact': {
      const prefix = g[1];
      if (typeof prefix !== 'string') return [];
      return [...state.artifacts.values()].filter((a) => a.path.startsWith(prefix)).map((a) => a.event);
    }
    case ':attested-within': {
      const claim = emit((g[1] as EdnValue | undefined) ?? null);
      return state.attestations.filter((a) => emit(a.claim) === claim).map((a) => a.event);
    }
    case ':and':
    case ':or': {
      const out: string[] = [];
      for (const c of g.slice(1)) {
        const r = eventsFor(c as EdnValue, state);
        if (Array.isArray(r)) out.push(...r);
      }
      return out.length > 0 ? out : `${op} over guards with no event of their own`;
    }
    case ':not':
      return `${emit((g[1] as EdnValue | undefined) ?? null)} does not hold`;
    case ':elapsed-since':
      return `${emit((g[2] as EdnValue | undefined) ?? null)} elapsed since the ticket was created`;
    case ':stage-reached':
      return `${emit((g[1] as EdnValue | undefined) ?? null)} was reached`;
    case ':malli':
      return 'the facts satisfy the schema';
    default:
      return `${op} holds`;
  }
}

/** causal over a ticket at `now`: reached stages in definition order with their support. */
export function causal(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): CausalEntry[] {
  const d = derive(def, events, now, roles);
  return def.stages
    .filter((s) => d.reached.has(s.key))
    .map((s) => ({
      stage: s.key,
      support: s.guards.map((g): Support => {
        const r = eventsFor(g, d.state);
        if (typeof r === 'string') return { via: g, note: r };
        if (r.length === 0) return { via: g, note: s.sticky ? 'held when the sticky stage was reached' : 'no current evidence' };
        return { via: g, events: [...new Set(r)] };
      }),
    }));
}
