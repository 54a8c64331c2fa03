import { isMap, isUuid, Keyword, type EdnValue } from '../edn/value.js';
import { factStatus, isSettled } from '../kernel/index.js';
import type { LoadedTicket } from './ticket-set.js';

const LINK_DEPENDS_ON = [Keyword.of('link'), Keyword.of('depends-on')];

/** The ticket a link value names: a uuid, a uuid string, or `{:ticket uuid …}` (ADR 0024). */
export function linkTarget(v: EdnValue): string | undefined {
  if (isUuid(v)) return v.text;
  if (typeof v === 'string') return v.trim().toLowerCase();
  if (isMap(v)) {
    const t = v.get(Keyword.of('ticket'));
    return t === undefined ? undefined : linkTarget(t);
  }
  return undefined;
}

/**
 * `next` porcelain (§7.2): a ticket whose `[:link :depends-on]` target is not settled (or not in
 * this store) is held back from the inbox. Returns the tickets to keep and those held back.
 */
export function holdBackDependents(tickets: readonly LoadedTicket[]): {
  keep: LoadedTicket[];
  held: { ticket: string; dependsOn: string }[];
} {
  const byId = new Map(tickets.map((t) => [t.ticket, t] as const));
  const keep: LoadedTicket[] = [];
  const held: { ticket: string; dependsOn: string }[] = [];
  for (const t of tickets) {
    const link = factStatus(t.derived.state, LINK_DEPENDS_ON);
    const target = link.status === 'present' ? linkTarget(link.value) : undefined;
    if (target === undefined) {
      keep.push(t);
      continue;
    }
    const dep = byId.get(target);
    if (dep && isSettled(dep.def, dep.derived.reached)) keep.push(t);
    else held.push({ ticket: t.ticket, dependsOn: target });
  }
  return { keep, held };
}
