/**
 * The status lens (tik-model.md §7.3; the `tik status --json` contract in ARCHITECTURE.md):
 * what stage a ticket is at, its facts with their statuses, and what blocks it.
 */
import type { Instant} from '../edn/value.js';
import { Keyword, kw, type EdnValue } from '../edn/value.js';
import { dottedPath, emit, keywordPath } from './edn-access.js';
import { missingParents } from './dag.js';
import type { TikEvent } from './event.js';
import { explainDerived, type ExplainBlock } from './explain.js';
import type { ProcessDef, Roles } from './process.js';
import { factStatusByKey } from './reduce.js';
import { currentStages, derive, sortedStages } from './stage.js';

/** One fact in `status`. `value` and `note` are canonical EDN text. */
export interface StatusFact {
  readonly status: 'present' | 'disputed' | 'conflicted' | 'retracted';
  /** The current value (present, or the disputed value), canonical EDN text. */
  readonly value?: string;
  readonly by?: string;
  readonly note?: string;
  /** For `conflicted`: the competing claims (`kind`, canonical `value`, `by`, `event`). */
  readonly claims?: readonly { kind: 'assert' | 'retract'; value?: string; by: string; event: string }[];
}

export interface StatusResult {
  /** The ticket uuid text. */
  readonly ticket: string;
  /** The create's title, overridden by a present `[:title]` fact. */
  readonly title: string | null;
  /** The rules the derivation used: keyword text id, version, content hash. */
  readonly process: { readonly id: string; readonly version: number; readonly hash: string };
  /** What the ticket's create/migrate pinned (may differ from `process` when resolution fell back). */
  readonly pin: { readonly process: string | null; readonly version: number | null; readonly hash: string | null };
  readonly current: readonly string[];
  readonly reached: readonly string[];
  /** Dotted path (`"resolution.ref"`) → fact; excludes `[:link …]` and `[:title]`. */
  readonly facts: Readonly<Record<string, StatusFact>>;
  /** `[:link rel]` facts: rel → canonical EDN text of the target. */
  readonly links: Readonly<Record<string, string>>;
  readonly missingParents: readonly string[];
  /** explain's blocks at `now`. */
  readonly blocks: readonly ExplainBlock[];
  /** The instant derived at (ISO text is the caller's job; this is epoch ms). */
  readonly at: Instant;
}

const textOrNull = (v: EdnValue | undefined): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : emit(v));
const numOrNull = (v: EdnValue | undefined): number | null => (typeof v === 'bigint' ? Number(v) : null);

function dotted(path: readonly EdnValue[]): string {
  const kws = keywordPath(path);
  return kws ? dottedPath(kws) : emit(Object.freeze([...path]));
}

/** status of one ticket at `now`. */
export function status(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): StatusResult {
  const d = derive(def, events, now, roles);
  const ex = explainDerived(def, d, now, roles);
  const state = d.state;
  const facts: Record<string, StatusFact> = {};
  const links: Record<string, string> = {};
  let title = textOrNull(state.title);
  const link = kw('link');
  const titleKw = kw('title');
  for (const [key, entry] of state.facts) {
    const s = factStatusByKey(state, key);
    const first = entry.path[0];
    if (first === titleKw && entry.path.length === 1) {
      if (s.status === 'present') title = textOrNull(s.value);
      continue;
    }
    if (first === link) {
      if (s.status === 'present') links[entry.path.slice(1).map((p) => (p instanceof Keyword ? p.text : emit(p))).join('.')] = emit(s.value);
      continue;
    }
    const name = dotted(entry.path);
    switch (s.status) {
      case 'absent':
        break;
      case 'present':
        facts[name] = { status: 'present', value: emit(s.value), by: s.by };
        break;
      case 'disputed':
        facts[name] = {
          status: 'disputed',
          ...(entry.current?.kind === 'value' ? { value: emit(entry.current.value) } : {}),
          by: s.by,
          note: emit(s.note),
        };
        break;
      case 'retracted':
        facts[name] = { status: 'retracted', by: s.by, note: emit(s.note) };
        break;
      case 'conflicted':
        facts[name] = {
          status: 'conflicted',
          claims: s.claims.map((c) => ({ kind: c.kind, ...(c.kind === 'assert' ? { value: emit(c.value ?? null) } : {}), by: c.by, event: c.event })),
        };
        break;
    }
  }
  const ticket = events[0]?.ticket.text ?? '';
  return {
    ticket,
    title,
    process: { id: def.id.toString(), version: Number(def.version), hash: def.hash },
    pin: { process: textOrNull(state.process), version: numOrNull(state.processVersion), hash: textOrNull(state.processHash) },
    current: sortedStages(currentStages(def, d.reached)),
    reached: sortedStages(d.reached),
    facts,
    links,
    missingParents: missingParents(events),
    blocks: ex.blocks,
    at: now,
  };
}
