/**
 * The reducer (tik-model.md §3): a fold of one ticket's events, in `(at, id)` order after
 * deduplication by id, into facts (with disputes, retractions and conflicts), artifacts,
 * attestations and the create/migrate pin. Linear in events: per-path write index, parents
 * index, linear-writes flags and a memo of conflict detection.
 */
import type { EdnMap, Instant, Keyword} from '../edn/value.js';
import { type EdnValue } from '../edn/value.js';
import { ednEquals, emit, keywordPath, pathKey, seqItems } from './edn-access.js';
import { TextMap } from '../edn/text-map.js';
import { foldOrder } from './dag.js';
import { K, type TikEvent } from './event.js';

/** The current value of a fact. */
export interface FactValue {
  readonly kind: 'value';
  readonly value: EdnValue;
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
}

/** A retraction (`reason` is `null` when none was given). */
export interface FactRetracted {
  readonly kind: 'retracted';
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
  readonly reason: EdnValue;
}

/** A live dispute. `rejected` is set only when the path held a value when it was raised. */
export interface Dispute {
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
  readonly reason: EdnValue;
  readonly rejected?: { readonly value: EdnValue };
}

/** One path's entry in the fact table. */
export interface FactEntry {
  readonly path: readonly EdnValue[];
  /** `undefined` for an entry that only holds disputes. */
  readonly current: FactValue | FactRetracted | undefined;
  /** Live disputes, oldest first. */
  readonly disputes: readonly Dispute[];
  /** Superseded entries, newest first, as a shared linked list (see `factHistory`). */
  readonly previous: HistoryNode | undefined;
}

/** One superseded entry; `prev` is the one before it. Shared between successive entries. */
export interface HistoryNode {
  readonly entry: FactValue | FactRetracted;
  readonly prev: HistoryNode | undefined;
}

/** A fact's superseded entries, oldest first. */
export function factHistory(entry: FactEntry): (FactValue | FactRetracted)[] {
  const out: (FactValue | FactRetracted)[] = [];
  for (let n = entry.previous; n; n = n.prev) out.push(n.entry);
  return out.reverse();
}

const pushHistory = (old: FactEntry | undefined): HistoryNode | undefined =>
  old?.current ? Object.freeze({ entry: old.current, prev: old.previous }) : old?.previous;

/** An assert or retract on a path: the write index and the claims of a conflict. */
export interface Write {
  readonly kind: 'assert' | 'retract';
  /** Present for asserts. */
  readonly value?: EdnValue;
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
}

export interface Artifact {
  readonly path: string;
  readonly hash: EdnValue;
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
}

export interface Attestation {
  readonly claim: EdnValue;
  readonly body: EdnMap;
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
}

export interface Migration {
  readonly version: EdnValue;
  readonly hash: EdnValue;
  readonly reason: EdnValue;
  readonly by: string;
  readonly at: Instant;
  readonly event: string;
}

/** The reduced state of one ticket. Read-only to callers. */
export interface TicketState {
  /** Path key (canonical text of the path vector, e.g. `[:resolution :ref]`) → entry. */
  readonly facts: ReadonlyMap<string, FactEntry>;
  /** Artifact path → the last attach in fold order. */
  readonly artifacts: ReadonlyMap<string, Artifact>;
  /** Every attestation in fold order. */
  readonly attestations: readonly Attestation[];
  /** Events in fold order (deduped). */
  readonly log: readonly TikEvent[];
  readonly title: EdnValue | undefined;
  readonly process: EdnValue | undefined;
  readonly processVersion: EdnValue | undefined;
  readonly processHash: EdnValue | undefined;
  readonly createdAt: Instant | undefined;
  readonly createdBy: string | undefined;
  readonly migrations: readonly Migration[];
  /** Path key → asserts and retracts in fold order. */
  readonly writes: ReadonlyMap<string, readonly Write[]>;
  /** Event id → parent ids, for every folded event. */
  readonly parents: ReadonlyMap<string, readonly string[]>;
  /** Path key → true while every write on the path descends from the previous one. */
  readonly linearWrites: ReadonlyMap<string, boolean>;
  /** Latest attestation instant per claim (canonical text of the claim). */
  readonly lastAttested: ReadonlyMap<string, Instant>;
  /** The maximal competing writes when the path is conflicted (§3.5), else `undefined`. */
  conflictClaims(key: string): readonly Write[] | undefined;
  /** A disposable memo for derived values (e.g. fact validity); never part of the state's meaning. */
  readonly cache: Map<string, unknown>;
}

/** The status of one fact path (§3.6). */
export type FactStatus =
  | { readonly status: 'absent' }
  | { readonly status: 'present'; readonly value: EdnValue; readonly by: string; readonly at: Instant; readonly event: string }
  | {
      readonly status: 'disputed';
      readonly by: string;
      readonly at: Instant;
      readonly note: EdnValue;
      readonly disputes: readonly Dispute[];
    }
  | { readonly status: 'conflicted'; readonly claims: readonly Write[] }
  | { readonly status: 'retracted'; readonly by: string; readonly at: Instant; readonly note: EdnValue };

const ABSENT: FactStatus = Object.freeze({ status: 'absent' });
const NO_DISPUTES: readonly Dispute[] = Object.freeze([]);

/** Per-path conflict index: the strict ancestors of the path's writes, grown incrementally. */
interface AncestryIndex {
  readonly seen: Set<string>;
  /** Ids met in a walk before they were folded; walked on from once they are. */
  readonly pending: Set<string>;
  maximal: Write[];
  writesSeen: number;
  claims: readonly Write[] | undefined;
}

/**
 * The fold itself: mutable while folding, exposed only through the read-only `TicketState`.
 * `evolve` applies events one at a time and derives after each; `reduce` applies them all.
 */
export class TicketFold implements TicketState {
  readonly facts = new TextMap<FactEntry>();
  readonly artifacts = new TextMap<Artifact>();
  readonly attestations: Attestation[] = [];
  readonly log: TikEvent[] = [];
  title: EdnValue | undefined;
  process: EdnValue | undefined;
  processVersion: EdnValue | undefined;
  processHash: EdnValue | undefined;
  createdAt: Instant | undefined;
  createdBy: string | undefined;
  readonly migrations: Migration[] = [];
  readonly writes = new TextMap<Write[]>();
  readonly parents = new Map<string, readonly string[]>();
  readonly linearWrites = new TextMap<boolean>();
  /** Latest attestation instant per claim (canonical text). */
  readonly lastAttested = new TextMap<Instant>();
  private readonly ancestry = new TextMap<AncestryIndex>();
  readonly cache = new TextMap<unknown>();

  /** Folds one event. Events must arrive in fold order, each id once. */
  apply(e: TikEvent): void {
    this.log.push(e);
    this.parents.set(e.id, e.parents);
    const b = e.body;
    switch (e.type.toString()) {
      case ':ticket/create':
        this.title = b.get(K.title);
        this.process = b.get(K.process);
        this.processVersion = b.get(K.processVersion);
        this.processHash = b.get(K.processHash);
        this.createdAt = e.at;
        this.createdBy = e.actor;
        break;
      case ':process/migrate':
        this.processVersion = b.get(K.migrateVersion);
        this.processHash = b.get(K.migrateHash);
        this.migrations.push(
          Object.freeze({
            version: b.get(K.migrateVersion) ?? null,
            hash: b.get(K.migrateHash) ?? null,
            reason: b.get(K.migrateReason) ?? null,
            by: e.actor,
            at: e.at,
            event: e.id,
          }),
        );
        break;
      case ':fact/assert':
        this.assert(e);
        break;
      case ':fact/retract':
        this.retract(e);
        break;
      case ':fact/dispute':
        this.dispute(e);
        break;
      case ':artifact/attach': {
        const path = b.get(K.artifactPath);
        if (typeof path === 'string') {
          this.artifacts.set(path, Object.freeze({ path, hash: b.get(K.artifactHash) ?? null, by: e.actor, at: e.at, event: e.id }));
        }
        break;
      }
      case ':attestation/add': {
        const claim = b.get(K.claim) ?? null;
        this.attestations.push(Object.freeze({ claim, body: b, by: e.actor, at: e.at, event: e.id }));
        const ck = emit(claim);
        const prev = this.lastAttested.get(ck);
        if (!prev || prev.ms <= e.at.ms) this.lastAttested.set(ck, e.at);
        break;
      }
      default:
        // Unknown types are kept in the log and the parents index, and otherwise ignored (§2.4).
        break;
    }
  }

  private pathOf(e: TikEvent): { key: string; path: readonly EdnValue[] } | undefined {
    const items = seqItems(e.body.get(K.factPath));
    if (!items) return undefined;
    const path = Object.freeze([...items]);
    return { key: pathKey(path), path };
  }

  private recordWrite(key: string, w: Write, e: TikEvent): void {
    let ws = this.writes.get(key);
    if (!ws) {
      ws = [];
      this.writes.set(key, ws);
    }
    const prev = ws[ws.length - 1];
    if (prev === undefined) this.linearWrites.set(key, true);
    else if (this.linearWrites.get(key) === true) this.linearWrites.set(key, this.isAncestor(prev.event, e.parents));
    ws.push(w);
  }

  /** Whether `target` is reachable from `start` through the parents index (folded events only). */
  private isAncestor(target: string, start: readonly string[]): boolean {
    const seen = new Set<string>();
    const stack = [...start];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (id === target) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      const ps = this.parents.get(id);
      if (ps) for (const p of ps) if (!seen.has(p)) stack.push(p);
    }
    return false;
  }

  private assert(e: TikEvent): void {
    const p = this.pathOf(e);
    if (!p) return;
    const value = e.body.get(K.factValue) ?? null;
    const old = this.facts.get(p.key);
    const current: FactValue = Object.freeze({ kind: 'value', value, by: e.actor, at: e.at, event: e.id });
    // A later assert of v keeps only the disputes that rejected exactly v (§3.4).
    const disputes = !old || old.disputes.length === 0 ? NO_DISPUTES : old.disputes.filter((d) => d.rejected !== undefined && ednEquals(d.rejected.value, value));
    this.facts.set(p.key, Object.freeze({ path: p.path, current, disputes: Object.freeze(disputes), previous: pushHistory(old) }));
    this.recordWrite(p.key, Object.freeze({ kind: 'assert', value, by: e.actor, at: e.at, event: e.id }), e);
  }

  private retract(e: TikEvent): void {
    const p = this.pathOf(e);
    if (!p) return;
    const old = this.facts.get(p.key);
    const current: FactRetracted = Object.freeze({
      kind: 'retracted',
      by: e.actor,
      at: e.at,
      event: e.id,
      reason: e.body.get(K.retractReason) ?? null,
    });
    this.facts.set(p.key, Object.freeze({ path: p.path, current, disputes: NO_DISPUTES, previous: pushHistory(old) }));
    this.recordWrite(p.key, Object.freeze({ kind: 'retract', by: e.actor, at: e.at, event: e.id }), e);
  }

  private dispute(e: TikEvent): void {
    const p = this.pathOf(e);
    if (!p) return;
    const old = this.facts.get(p.key);
    if (e.body.get(K.disputeWithdraw) === true) {
      if (!old) return;
      const disputes = old.disputes.filter((d) => d.by !== e.actor);
      this.facts.set(p.key, Object.freeze({ ...old, disputes: Object.freeze(disputes) }));
      return;
    }
    const d: Dispute = Object.freeze({
      by: e.actor,
      at: e.at,
      event: e.id,
      reason: e.body.get(K.disputeReason) ?? null,
      ...(old?.current?.kind === 'value' ? { rejected: Object.freeze({ value: old.current.value }) } : {}),
    });
    const base: FactEntry = old ?? { path: p.path, current: undefined, disputes: NO_DISPUTES, previous: undefined };
    this.facts.set(p.key, Object.freeze({ ...base, disputes: Object.freeze([...base.disputes, d]) }));
  }

  /**
   * The claims of a conflict on `key`, or `undefined` (§3.5).
   *
   * Incremental and linear overall: ancestry only grows as events are folded (the parents index
   * only gains entries), so a write that is an ancestor of another write stays so, and the set
   * of strict ancestors of the path's writes only grows. Each path keeps that set, extended by
   * walks from new writes and from previously-unfolded ids once they are folded.
   */
  conflictClaims(key: string): readonly Write[] | undefined {
    const ws = this.writes.get(key);
    if (!ws || ws.length < 2 || this.linearWrites.get(key) === true) return undefined;
    let idx = this.ancestry.get(key);
    if (!idx) {
      idx = { seen: new Set(), pending: new Set(), maximal: [], writesSeen: 0, claims: undefined };
      this.ancestry.set(key, idx);
    }
    const stack: string[] = [];
    for (const id of idx.pending) {
      const ps = this.parents.get(id);
      if (ps) {
        idx.pending.delete(id);
        for (const p of ps) stack.push(p);
      }
    }
    if (stack.length === 0 && idx.writesSeen === ws.length) return idx.claims;
    const fresh = ws.slice(idx.writesSeen);
    for (const w of fresh) for (const p of this.parents.get(w.event) ?? []) stack.push(p);
    const seen = idx.seen;
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const ps = this.parents.get(id);
      if (!ps) idx.pending.add(id);
      else for (const p of ps) if (!seen.has(p)) stack.push(p);
    }
    // Candidates: the previous maximal writes and the new ones, in fold order.
    idx.maximal = [...idx.maximal, ...fresh].filter((w) => !seen.has(w.event));
    idx.writesSeen = ws.length;
    let claims: readonly Write[] | undefined;
    if (idx.maximal.length > 1) {
      const outcomes = new Set(idx.maximal.map((w) => (w.kind === 'assert' ? `v ${emit(w.value ?? null)}` : 'r')));
      if (outcomes.size > 1) claims = Object.freeze([...idx.maximal]);
    }
    idx.claims = claims;
    return claims;
  }
}

/** Folds a ticket's events: dedupe by id (first kept), sort by `(at, id)`, apply in order. */
export function reduce(events: readonly TikEvent[]): TicketState {
  const fold = new TicketFold();
  for (const e of foldOrder(events)) fold.apply(e);
  return fold;
}

/** `fact-status` by path key (canonical text of the path vector). */
export function factStatusByKey(state: TicketState, key: string): FactStatus {
  const entry = state.facts.get(key);
  if (!entry) return ABSENT;
  const first = entry.disputes[0];
  if (first) return { status: 'disputed', by: first.by, at: first.at, note: first.reason, disputes: entry.disputes };
  const claims = state.conflictClaims(key);
  if (claims) return { status: 'conflicted', claims };
  const c = entry.current;
  if (c?.kind === 'retracted') return { status: 'retracted', by: c.by, at: c.at, note: c.reason };
  if (c?.kind === 'value') return { status: 'present', value: c.value, by: c.by, at: c.at, event: c.event };
  return ABSENT;
}

/** `fact-status` of a path such as `[kw('resolution'), kw('ref')]` (§3.6, first match wins). */
export function factStatus(state: TicketState, path: readonly EdnValue[]): FactStatus {
  return factStatusByKey(state, pathKey(path));
}

/** The value of a path when present, else `undefined`. */
export function factValue(state: TicketState, path: readonly EdnValue[]): EdnValue | undefined {
  const s = factStatus(state, path);
  return s.status === 'present' ? s.value : undefined;
}

/** `fact-map`: path key → `{path, value}` over present facts (the corpus's `:facts`). */
export function factMap(state: TicketState): TextMap<{ path: Keyword[]; value: EdnValue }> {
  const out = new TextMap<{ path: Keyword[]; value: EdnValue }>();
  for (const [key, entry] of state.facts) {
    const s = factStatusByKey(state, key);
    if (s.status === 'present') out.set(key, { path: [...(keywordPath(entry.path) ?? (entry.path as Keyword[]))], value: s.value });
  }
  return out;
}
