import { emit } from '../edn/index.js';
import { Instant } from '../edn/value.js';
import { factMap, type ProcessDef } from '../kernel/index.js';
import { boardCard } from './board-card.js';
import { instantText } from './json-value.js';
import type { TicketSet } from './ticket-set.js';

/** Text for HTML: every character that could open markup or end an attribute is a reference. */
export const htmlText = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = [
  'body{font:15px/1.5 system-ui,sans-serif;margin:1.5rem;background:#fff;color:#1a1a1a}',
  '@media(prefers-color-scheme:dark){body{background:#14161a;color:#d5d9de}.card{background:#1b1e24!important;border-color:#2a2e36!important}}',
  'h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}small{opacity:.65}',
  '.cols{display:flex;gap:1rem;align-items:flex-start;overflow-x:auto}',
  '.col{flex:0 0 19rem}.col>h3{font-size:.95rem;margin:.2rem 0}',
  '.card{border:1px solid #ddd;border-radius:8px;padding:.6rem .8rem;margin:.5rem 0;background:#fafafa}',
  '.chip{display:inline-block;border-radius:99px;padding:0 .55rem;font-size:.8rem;margin:0 .3rem .2rem 0;color:#fff}',
  '.live{background:#0e7490}.done{background:#15803d}.conflict{background:#b91c1c}',
  '.id{opacity:.55;font-family:monospace;font-size:.85rem}',
  'ul{margin:.2rem 0 .1rem 1.1rem;padding:0}li{margin:.05rem 0}',
  '.miss{color:#b91c1c}code{font-size:.85em}',
].join('');

interface Card {
  readonly ticket: string;
  readonly current: readonly string[];
  readonly settled: boolean;
  readonly updated: string;
  readonly html: string;
}

function card(t: TicketSet['tickets'][number], now: Instant): Card {
  const c = boardCard(t, now);
  const facts = [...factMap(t.derived.state).values()].map((f) => `<li><code>${htmlText(emit(f.path))} = ${htmlText(emit(f.value))}</code></li>`);
  const missing = (c.blockers ?? []).map(
    (b) => `<div><small>to reach <b>${htmlText(b.stage)}</b>${b.impossible ? ' (impossible)' : ''}:</small><ul>${b.missing.map((m) => `<li class="miss">✗ ${htmlText(m)}</li>`).join('')}</ul></div>`,
  );
  const chips = c.current.map((s) => `<span class="chip ${c.settled ? 'done' : 'live'}">${htmlText(s)}</span>`).join('');
  const html =
    `<div class="card" id="t-${htmlText(t.ticket)}">${chips}${c.conflicted ? '<span class="chip conflict">conflicted</span>' : ''}` +
    `<div><b>${htmlText(c.title ?? '(untitled)')}</b> <span class="id">${htmlText(t.ticket.slice(0, 8))}</span></div>` +
    (facts.length > 0 ? `<ul>${facts.join('')}</ul>` : '') +
    missing.join('') +
    (c.missingParents > 0 ? `<div class="miss"><small>incomplete log: ${c.missingParents} parent event(s) missing</small></div>` : '') +
    '</div>';
  return { ticket: t.ticket, current: c.current, settled: c.settled, updated: c.updated ?? instantText(new Instant(0)), html };
}

/**
 * The whole board as one self-contained HTML page (no script, no external resource): per process,
 * a column per stage in definition order holding the open tickets whose current stages include it
 * (a ticket with two current stages stands in both), each card with its facts and what it still
 * misses; settled tickets listed after. A rendering of the same derivation as every other lens.
 */
export function boardHtml(set: TicketSet, now: Instant): string {
  const byDef = new Map<ProcessDef, Card[]>();
  for (const t of set.tickets) {
    const cards = byDef.get(t.def) ?? [];
    cards.push(card(t, now));
    byDef.set(t.def, cards);
  }
  const sections: string[] = [];
  const defs = [...byDef.keys()].sort((a, b) => a.id.toString().localeCompare(b.id.toString()) || Number(a.version) - Number(b.version));
  for (const def of defs) {
    const cards = byDef.get(def)!.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.ticket.localeCompare(b.ticket)));
    const open = cards.filter((c) => !c.settled);
    const columns = def.stages
      .map((s) => {
        const here = open.filter((c) => c.current.includes(s.key));
        return here.length === 0 ? '' : `<div class="col"><h3>${htmlText(s.key)} <small>${here.length}</small></h3>${here.map((c) => c.html).join('')}</div>`;
      })
      .join('');
    const settled = cards.filter((c) => c.settled);
    sections.push(
      `<h2>${htmlText(def.id.toString())} <small>v${htmlText(String(def.version))} · ${open.length} open · ${settled.length} settled</small></h2>` +
        (open.length > 0 ? `<div class="cols">${columns}</div>` : '') +
        (settled.length > 0 ? `<details><summary>settled (${settled.length})</summary>${settled.map((c) => c.html).join('')}</details>` : ''),
    );
  }
  const skipped =
    set.skipped.length === 0
      ? ''
      : `<h2>Unreadable tickets</h2><ul>${set.skipped.map((s) => `<li><code>${htmlText(s.ticket)}</code> ${htmlText(s.code)}: ${htmlText(s.message)}</li>`).join('')}</ul>`;
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>tik board</title><style>${STYLE}</style></head><body>` +
    `<h1>tik board</h1><small>derived at ${htmlText(instantText(now))} from the events; nothing on this page is stored</small>` +
    (sections.length === 0 ? '<p>no tickets yet</p>' : sections.join('')) +
    skipped +
    '</body></html>\n'
  );
}
