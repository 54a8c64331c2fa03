import { factStatus, isSettled, planSummary, type PlanSummary } from '../kernel/index.js';
import { Keyword } from '../edn/value.js';
import { htmlText } from './board-html.js';
import { linkTarget } from './depends-on.js';
import type { Json } from './json-value.js';
import { titleOf } from './lenses.js';
import type { LoadedTicket } from './ticket-set.js';

const LINK_DEPENDS_ON = [Keyword.of('link'), Keyword.of('depends-on')];

export interface PlanView {
  readonly summary: PlanSummary;
  /** node → a label: the ticket's title, or the raw target for a dangling prerequisite. */
  readonly titles: ReadonlyMap<string, string>;
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The plan over a store's tickets: edges from each ticket's present `[:link :depends-on]` fact,
 * the target resolved to a ticket id (exactly, or as a unique prefix); a target that names no
 * ticket stays as its text — a node that is never settled, so it blocks (as `next` holds back).
 */
export function planOf(tickets: readonly LoadedTicket[]): PlanView {
  const ids = tickets.map((t) => t.ticket).sort();
  const resolve = (target: string): string => {
    if (ids.includes(target)) return target;
    const matches = ids.filter((id) => id.startsWith(target));
    return matches.length === 1 ? matches[0]! : target;
  };
  const edges = new Map<string, Set<string>>();
  const settled = new Set<string>();
  const titles = new Map<string, string>();
  for (const t of tickets) {
    const link = factStatus(t.derived.state, LINK_DEPENDS_ON);
    const target = link.status === 'present' ? linkTarget(link.value) : undefined;
    edges.set(t.ticket, new Set(target !== undefined && target !== '' ? [resolve(target)] : []));
    if (isSettled(t.def, t.derived.reached)) settled.add(t.ticket);
    titles.set(t.ticket, titleOf(t.derived.state) ?? '');
  }
  return { summary: planSummary(edges, settled), titles, edges };
}

/** `plan --json`. */
export function planJson(p: PlanView): Record<string, Json> {
  const s = p.summary;
  return {
    nodes: [...s.nodes],
    status: Object.fromEntries(s.nodes.map((n) => [n, s.status.get(n)!])),
    done: [...s.done],
    ready: [...s.ready],
    blocked: [...s.blocked],
    cyclic: [...s.cyclic],
    criticalPath: [...s.criticalPath],
    unlocks: Object.fromEntries(s.nodes.map((n) => [n, s.unlocks.get(n)!])),
    titles: Object.fromEntries(s.nodes.map((n) => [n, p.titles.get(n) ?? null])),
  };
}

/** One line's label: an 8-character id and the first 32 characters of the title. */
export function shortTitle(p: PlanView, n: string): string {
  const t = p.titles.get(n);
  const id = /^[0-9a-f-]{8,}$/.test(n) ? n.slice(0, 8) : n;
  return t && t !== n ? `${id} ${t.slice(0, 32)}` : id;
}

/** The plan as text, as upstream prints it (without colour). */
export function planText(p: PlanView): string {
  const s = p.summary;
  const lines = [`PLAN  ${s.ready.length} ready · ${s.blocked.length} blocked · ${s.done.length} done${s.cyclic.length > 0 ? ` · ${s.cyclic.length} in a cycle` : ''}`];
  if (s.cyclic.length > 0) lines.push('', `⚠ dependency cycle (deadlock — break an edge): ${s.cyclic.map((n) => p.titles.get(n) || n).join(', ')}`);
  if (s.criticalPath.length > 0) lines.push('', `critical path (${s.criticalPath.length} step(s) remaining):`, `  ${s.criticalPath.map((n) => shortTitle(p, n)).join(' → ')}`);
  if (s.ready.length > 0) {
    lines.push('', 'ready now:');
    const byImpact = [...s.ready].sort((a, b) => s.unlocks.get(b)! - s.unlocks.get(a)! || (a < b ? -1 : 1));
    for (const n of byImpact) lines.push(`  ▸ ${shortTitle(p, n)}${s.unlocks.get(n)! > 0 ? `   unlocks ${s.unlocks.get(n)}` : ''}`);
  }
  if (s.blocked.length > 0) {
    lines.push('', 'blocked:');
    for (const n of s.blocked) {
      const waiting = [...(p.edges.get(n) ?? [])].filter((d) => s.status.get(d) !== 'done');
      lines.push(`  ⏳ ${shortTitle(p, n)}   waiting on ${waiting.map((d) => shortTitle(p, d)).join(', ')}`);
    }
  }
  if (s.ready.length === 0 && s.blocked.length === 0 && s.cyclic.length === 0) lines.push('', 'no dependency links yet — `tik set <id> link.depends-on=<other>`');
  return lines.join('\n');
}

/** The plan as one self-contained HTML page: the critical path, then ready / blocked / done / cyclic columns. */
export function planHtml(p: PlanView): string {
  const s = p.summary;
  const card = (n: string): string => {
    const waiting = [...(p.edges.get(n) ?? [])].filter((d) => s.status.get(d) !== 'done');
    const u = s.unlocks.get(n) ?? 0;
    return (
      `<div class="card ${s.status.get(n)}"><div class="t">${htmlText(p.titles.get(n) || n)}</div><div class="id">${htmlText(n.slice(0, 8))}</div>` +
      (u > 0 ? `<div class="u">unlocks ${u}</div>` : '') +
      (s.status.get(n) === 'blocked' ? `<div class="w">waiting on ${waiting.map((d) => htmlText(shortTitle(p, d))).join(', ')}</div>` : '') +
      '</div>'
    );
  };
  const column = (name: string, ns: readonly string[]): string => `<section><h2>${name} <span class="n">${ns.length}</span></h2>${ns.map(card).join('')}</section>`;
  return (
    '<!doctype html><html><head><meta charset="utf-8"><title>tik plan</title><style>' +
    'body{font:15px/1.5 system-ui,sans-serif;margin:1.5rem;color:#1a1a1a}h1{font-size:1.3rem;margin:0}' +
    '.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:1.2rem;margin-top:1rem}' +
    'section h2{font-size:.85rem;text-transform:uppercase;letter-spacing:.05em;opacity:.7}' +
    '.card{border:1px solid #ddd;border-left:4px solid #15803d;border-radius:8px;padding:.5rem .7rem;margin-bottom:.6rem}' +
    '.card.ready{border-left-color:#0e7490}.card.blocked{border-left-color:#b45309}.card.cyclic{border-left-color:#b91c1c}' +
    '.t{font-weight:600}.id{opacity:.55;font-family:monospace;font-size:.8rem}.u{color:#0e7490;font-size:.8rem}.w{color:#b45309;font-size:.8rem}' +
    '.cyc{background:#fee2e2;color:#991b1b;padding:.5rem .8rem;border-radius:6px;margin-top:.8rem}.step{font-weight:600}' +
    '</style></head><body>' +
    `<h1>tik plan</h1><div>${s.ready.length} ready · ${s.blocked.length} blocked · ${s.done.length} done · ${s.cyclic.length > 0 ? `${s.cyclic.length} in a cycle` : 'no cycles'}</div>` +
    (s.cyclic.length > 0 ? `<div class="cyc">⚠ dependency cycle — ${s.cyclic.map((n) => htmlText(p.titles.get(n) || n)).join(', ')} can never proceed; break an edge</div>` : '') +
    (s.criticalPath.length > 0
      ? `<h2>critical path — ${s.criticalPath.length} step(s) remaining</h2><div>${s.criticalPath.map((n) => `<span class="step">${htmlText(shortTitle(p, n))}</span>`).join(' → ')}</div>`
      : '') +
    `<div class="cols">${column('Ready', s.ready)}${column('Blocked', s.blocked)}${column('Done', s.done)}${s.cyclic.length > 0 ? column('Cyclic', s.cyclic) : ''}</div>` +
    '</body></html>\n'
  );
}
