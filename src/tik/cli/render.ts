import type { ExplainResult, InboxResult, ProcessDef, Roles, TikEvent } from '../kernel/index.js';
import { emit } from '../edn/index.js';
import { isVector, Keyword, type EdnValue } from '../edn/value.js';
import { instantText, type Json } from '../app/json-value.js';
import type { StatusView } from '../app/lenses.js';
import type { ReprocessResult } from '../app/tik-service.js';
import { pathText, reasonText } from '../app/reason-text.js';
import type { OpenTicket } from './store-access.js';

/**
 * Human renderings of the read verbs: readable at a glance (what stage, what is missing, who can
 * supply it). Not a contract — scripts use `--json`.
 */

const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length));
const list = (x: Json | undefined): string => (Array.isArray(x) && x.length > 0 ? x.join(' ') : '(none)');

export function renderStatus(view: StatusView, t: OpenTicket): string {
  const j = view.json;
  const p = j.process as { id: string | null; version: number | null; hash: string | null };
  const lines: string[] = [];
  lines.push(`ticket   ${t.ticket}  ${j.title ?? ''}`.trimEnd());
  lines.push(`process  ${p.id ?? '?'} v${p.version ?? '?'}  ${p.hash ?? ''}`.trimEnd());
  lines.push(`stage    ${list(j.current)}`);
  lines.push(`reached  ${list(j.reached)}`);
  if (t.missingParents.length > 0) lines.push(`log: INCOMPLETE, ${t.missingParents.length} parent event(s) missing: ${t.missingParents.join(' ')}`);
  const facts = j.facts as Record<string, Record<string, Json>>;
  const names = Object.keys(facts);
  lines.push('facts');
  if (names.length === 0) lines.push('  (none)');
  const width = Math.max(0, ...names.map((n) => n.length)) + 2;
  for (const name of names) {
    const f = facts[name]!;
    const status = String(f.status);
    const value = f.value === null || f.value === undefined ? '' : String(f.value);
    const by = f.by ? ` by ${String(f.by)}` : '';
    const note = f.note !== undefined && f.note !== null ? ` (${String(f.note)})` : '';
    lines.push(`  ${pad(name, width)}${status === 'present' ? value + by : `${status.toUpperCase()}${value ? ` ${value}` : ''}${by}${note}`}`);
  }
  const blocks = view.explained.blocks;
  if (blocks.length > 0) {
    lines.push('missing');
    for (const b of blocks) {
      lines.push(`  to reach ${b.stage}${b.impossible ? ' (impossible)' : ''}${b.hint ? ` — ${b.hint}` : ''}:`);
      const stage = t.def?.stageByKey.get(b.stage);
      for (const r of b.missing) lines.push(`    ✗ ${reasonText(r, t.roles, stage)}`);
    }
  }
  return lines.join('\n');
}

export function renderExplain(r: ExplainResult, roles: Roles, forActor: string | undefined, def?: ProcessDef): string {
  const lines: string[] = [];
  lines.push(`current  ${r.current.length > 0 ? [...r.current].join(' ') : '(none)'}`);
  if (r.blocks.length === 0) lines.push(forActor ? `nothing ${forActor} can act on` : 'nothing is blocked on the frontier');
  for (const b of r.blocks) {
    lines.push(`To reach ${b.stage}:${b.impossible ? ' (impossible)' : ''}`);
    if (b.hint) lines.push(`  hint: ${b.hint}`);
    for (const g of b.satisfied) lines.push(`  ✓ ${emit(g)}`);
    for (const m of b.missing) lines.push(`  ✗ ${reasonText(m, roles, def?.stageByKey.get(b.stage))}`);
    if (b.blocks.length > 0) lines.push(`  blocks: ${b.blocks.join(' ')}`);
    if (b.hidden > 0) lines.push(`  (${b.hidden} reason${b.hidden === 1 ? '' : 's'} hidden: not actionable by ${forActor ?? 'this actor'})`);
  }
  return lines.join('\n');
}

export function renderLog(entries: Json[], t: OpenTicket): string {
  const byId = new Map(t.events.map((e) => [e.id, e] as const));
  const lines: string[] = [];
  for (const e of entries as Record<string, Json>[]) {
    const event = byId.get(String(e.id));
    const derived = (e.derived as string[]).length > 0 ? `  → ${(e.derived as string[]).join(' ')}` : '';
    const lost = (e.lost as string[]).length > 0 ? `  ✗ ${(e.lost as string[]).join(' ')}` : '';
    lines.push(`${pad(String(e.at), 25)}${pad(String(e.actor), 10)}${pad(String(e.type), 18)}${event ? summarise(event) : ''}${derived}${lost}`);
  }
  if (t.missingParents.length > 0) lines.push(`log: INCOMPLETE, ${t.missingParents.length} parent event(s) missing`);
  return lines.join('\n');
}

/** One short line for an event body, values in EDN. */
function summarise(e: TikEvent): string {
  const b = e.body;
  const get = (k: string): EdnValue | undefined => b.get(Keyword.of(k));
  const path = get('fact/path');
  if (path !== undefined) {
    const p = isVector(path) ? pathText(path) : emit(path);
    const value = get('fact/value');
    if (value !== undefined) return `${p} = ${emit(value)}`;
    const reason = get('dispute/reason');
    if (e.type.text === 'fact/dispute') return `${p} ${get('dispute/withdraw?') === true ? 'dispute withdrawn' : 'disputed'}${reason !== undefined && reason !== null ? `: ${emit(reason)}` : ''}`;
    const why = get('retract/reason');
    return `${p}${why !== undefined ? ` (${emit(why)})` : ''}`;
  }
  const artifact = get('artifact/path');
  if (artifact !== undefined) return typeof artifact === 'string' ? artifact : emit(artifact);
  const title = get('ticket/title');
  if (title !== undefined) return `${emit(title)} ${emit(get('ticket/process') ?? null)}`;
  return emit(b);
}

export function renderDiff(d: Record<string, Json>): string {
  const lines: string[] = [];
  const w = d.window as { from: number; to: number };
  lines.push(`last ${w.to - w.from} event(s)`);
  lines.push(`gained   ${list(d.gained)}`);
  lines.push(`lost     ${list(d.lost)}`);
  for (const f of d.facts as Record<string, Json>[]) {
    const show = (x: Json) => (x === null ? 'absent' : `${String((x as Record<string, Json>).status)} ${String((x as Record<string, Json>).value ?? '')}`.trim());
    lines.push(`  ${String(f.path)}: ${show((f.before ?? null) as Json)} → ${show((f.after ?? null) as Json)}`);
  }
  return lines.join('\n');
}

export function renderLs(rows: Record<string, Json>[], hidden: number, selecting = false): string {
  const incomplete = (r: Record<string, Json>): string => (Array.isArray(r.missingParents) && r.missingParents.length > 0 ? '  [INCOMPLETE log]' : '');
  const lines = rows.map((r) => `${String(r.ticket).slice(0, 8)}  ${pad(String(r.process), 20)}${pad(list(r.current), 24)}${String(r.title ?? '')}${incomplete(r)}`);
  if (rows.length === 0) lines.push(selecting ? '(no matching tickets)' : '(no open tickets)');
  if (hidden > 0) lines.push(`(${hidden} settled ticket${hidden === 1 ? '' : 's'} hidden; --all shows them)`);
  return lines.join('\n');
}

export function renderNext(r: InboxResult, heldBack = 0): string {
  const lines: string[] = [];
  for (const i of r.items) {
    const who = i.who === 'anyone' ? 'anyone' : i.who.length > 0 ? i.who.join(', ') : `nobody (role ${i.role ?? '?'} has no members)`;
    lines.push(`${emit([...i.action] as EdnValue)}  — ${who}${i.notActor ? ` (not ${i.notActor})` : ''}`);
    for (const u of i.unlocks) lines.push(`    unlocks ${u.stage} on ${u.ticket.slice(0, 8)}${u.hint ? ` — ${u.hint}` : ''}`);
  }
  if (r.items.length === 0) lines.push('nothing to do');
  if (r.waiting.length > 0) lines.push(`(${r.waiting.length} stage(s) waiting on time or other stages)`);
  if (heldBack > 0) lines.push(`(${heldBack} ticket${heldBack === 1 ? '' : 's'} held back: depends on an unsettled ticket)`);
  if (r.settled > 0) lines.push(`(${r.settled} settled ticket${r.settled === 1 ? '' : 's'} hidden; --all shows them)`);
  return lines.join('\n');
}

/** `causal`, as upstream prints it: each stage, each guard, and the events (or note) behind it. */
export function renderCausal(entries: Json[], events: readonly TikEvent[]): string {
  const byId = new Map(events.map((e) => [e.id, e] as const));
  const lines: string[] = [];
  for (const entry of entries as { stage: string; support: { via: string; events?: string[]; note?: string }[] }[]) {
    lines.push(`${entry.stage} is supported by:`);
    if (entry.support.length === 0) lines.push('  nothing — no guards, reachable by structure alone');
    for (const s of entry.support) {
      lines.push(`  ${s.via}`);
      for (const id of s.events ?? []) {
        const e = byId.get(id);
        lines.push(`    ← ${id.slice(0, 15)}… ${e ? `${e.type.name} by ${e.actor} @ ${instantText(e.at)}` : ''}`.trimEnd());
      }
      if (s.note !== undefined) lines.push(`    ← ${s.note}`);
    }
  }
  if (entries.length === 0) lines.push('no stage is reached yet');
  return lines.join('\n');
}

/** `whatif`, as upstream prints it. */
export function renderWhatif(r: { steps: readonly string[]; gained: readonly string[]; lost: readonly string[] }): string {
  const lines = [`whatif ${r.steps.join(' ')}  (nothing recorded)`];
  for (const g of r.gained) lines.push(`  + ${g} would become derivable`);
  for (const l of r.lost) lines.push(`  - ${l} would no longer derive`);
  if (r.gained.length === 0 && r.lost.length === 0) lines.push('  no derived change');
  return lines.join('\n');
}

/** `reprocess`, as upstream prints it. */
export function renderReprocess(r: ReprocessResult): string {
  const short = (h: string): string => h.slice(0, 15);
  const lines = [`pinned:   v${r.pinned.version} @ ${short(r.pinned.hash)}…`, `proposed: v${r.proposed.version} @ ${short(r.proposed.hash)}…`];
  for (const s of r.lost) lines.push(`  - stage ${s} would REGRESS (no longer derivable)`);
  for (const s of r.gained) lines.push(`  + stage ${s} would become derivable`);
  if (r.lost.length === 0 && r.gained.length === 0) lines.push('  derived stages unchanged');
  for (const b of r.blockers) {
    lines.push(`  new blockers for ${b.stage}:`);
    for (const m of b.missing) lines.push(`    ✗ ${m}`);
  }
  lines.push(r.applied ? `migrated — ticket now pins ${short(r.proposed.hash)}… (event ${r.event})` : 'dry run — nothing recorded. Re-run with --apply to migrate.');
  return lines.join('\n');
}
