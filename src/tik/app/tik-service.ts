import { rememberWarnings } from './warnings-before.js';
import { emit, ednMap, readEdn } from '../edn/index.js';
import { formatInstant } from '../edn/instant-text.js';
import { Instant, isMap, Keyword, Uuid, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import { causal, compileSelector, currentStages, effectiveReached, explain, resolveRoles, factStatus, inbox, isSettled, K, lint, mintEvent, parseProcess, reduce, type ExplainResult, type InboxResult, type ProcessDef, type Selector } from '../kernel/index.js';
import { resolveTicket } from '../store/resolve-ticket.js';
import type { EventStore } from '../store/store.js';
import { ACTOR_NAME, CONTENT_ID, sha256Id } from '../store/store-names.js';
import { boardModel, type BoardModel } from './board-card.js';
import { boardHtml } from './board-html.js';
import { appendChain, body, type Intent, type Signer } from './append-chain.js';
import { holdBackDependents } from './depends-on.js';
import { instantText, type Json } from './json-value.js';
import { reasonText } from './reason-text.js';
import { keepsRawText, parseAssignment, parseCliValue, parseKeyPath } from './kv-args.js';
import { causalJson, diffJson, explainJson, logJson, reasonJson, statusView, type StatusView } from './lenses.js';
import { planOf, type PlanView } from './plan-lens.js';
import { probe, type ProbeHost, type ProbeInput, type ProbeResult } from './probe.js';
import { periodStart, recurTicketId } from './recur-period.js';
import { selectFields, signedEventIds, withSignatures, type SelectFields } from './select-row.js';
import { openTicket, parseStoredEvents, readRegister, requireDef, type OpenTicket, type WarningSink } from './ticket-loader.js';
import { loadTicketSet, type SkippedTicket } from './ticket-set.js';
import { lsRow, lsRowJson, type LsRow } from './ls-row.js';
import type { StatusCache, StatusCheck, StatusJson } from './status-cache.js';
import { badHashComment, commentText, isCommentEvent, ticketView, type CommentText } from './ticket-view.js';
import { whatif, type WhatifResult } from './whatif.js';
import type { WriterClock } from './writer-clock.js';

/** What every operation returns: its value and what a reader should be told but can live with. */
export interface Outcome<T> {
  readonly value: T;
  readonly warnings: readonly string[];
}

/** What the service is built from, once per process (a CLI run, a `tik serve` replica). */
export interface TikServiceDeps {
  readonly store: EventStore;
  /** The writer clock: reads derive at `now()`, writes mint strictly increasing instants. */
  readonly clock: WriterClock;
  /** Signs events whose actor is the signer's own (a replica: only its own, e.g. recurrences). */
  readonly signer?: Signer;
  /** Mints `create` ticket ids (a sharded replica mints only ids its shard owns). */
  readonly mintId: () => string;
  /** False: never use the store's derived index, derive every read from the log (`TIK_INDEX=off`). */
  readonly derivedIndex?: boolean;
  /**
   * How a cached status learns that a ticket's events are unchanged (./status-cache.ts): `bytes`
   * (default) reads and hashes them; `listing` trusts a byte-free listing of their ids (a server).
   */
  readonly statusCheck?: StatusCheck;
}

/** `reprocess` input: the ticket, the proposed definition's text and where it came from. */
export interface ReprocessInput {
  readonly actor: string;
  readonly ticket: string;
  readonly definitionText: string;
  readonly file: string;
  readonly apply: boolean;
  readonly reason?: string | undefined;
}

/** `reprocess --json`. */
export interface ReprocessResult {
  readonly ticket: string;
  readonly pinned: { readonly version: number; readonly hash: string };
  readonly proposed: { readonly version: number; readonly hash: string };
  readonly gained: readonly string[];
  readonly lost: readonly string[];
  /** For stages the ticket has now: what the proposed rules would newly demand. */
  readonly blockers: readonly { readonly stage: string; readonly missing: readonly string[] }[];
  readonly applied: boolean;
  /** The `:process/migrate` event written, with `apply`. */
  readonly event: string | null;
}

/** The `--json` body of every write but `create`: the ids written. */
export interface Written {
  readonly ticket: string;
  readonly events: readonly { readonly id: string; readonly type: string; readonly at: string }[];
}

/** The typed inputs of the writes; `actor` is who the event names as its author (authenticated by the caller's edge). */
export interface CreateInput {
  readonly actor: string;
  readonly process: string;
  readonly title?: string | undefined;
}
export interface AssertInput {
  readonly actor: string;
  readonly ticket: string;
  /** `key=value` assignments in order (dotted key; a value is EDN if it parses, a bare word a keyword, else a string). */
  readonly facts: readonly { readonly key: string; readonly value: string }[];
}
export interface RetractInput {
  readonly actor: string;
  readonly ticket: string;
  readonly key: string;
  readonly reason?: string | undefined;
}
export interface DisputeInput extends RetractInput {
  readonly withdraw?: boolean | undefined;
}
export interface CommentInput {
  readonly actor: string;
  readonly ticket: string;
  readonly text: string;
}
export interface AttestInput {
  readonly actor: string;
  readonly ticket: string;
  /** The claim as EDN text (`:sbom`; a bare word becomes a keyword). */
  readonly claim: string;
  /** More body entries, as an EDN map's text. */
  readonly body?: string | undefined;
}
export interface AttachInput {
  readonly actor: string;
  readonly ticket: string;
  /** The artifact path guards match, e.g. `repro/trace.txt`. */
  readonly path: string;
  readonly bytes: Uint8Array;
}
export interface RecurInput {
  readonly actor: string;
  readonly process: string;
  readonly period: string;
  /** Epoch ms of the events (default: the start of the period). */
  readonly atMs?: number | undefined;
  readonly title?: string | undefined;
}

/** A single-ticket read's value: the JSON body of `tik <verb> --json`, and what a renderer needs. */
export interface TicketRead<J> {
  readonly json: J;
  readonly open: OpenTicket;
}

/** `ls` rows and the tickets it skipped. */
export interface LsValue {
  readonly rows: Record<string, Json>[];
  readonly hidden: number;
  readonly skipped: readonly SkippedTicket[];
}

/** `next`: the inbox body (`skipped` only when a ticket was), and the kernel result for renderers. */
export interface NextValue {
  readonly json: Record<string, Json>;
  readonly result: InboxResult;
  readonly heldBack: number;
  readonly skipped: readonly SkippedTicket[];
}

export { warningsBefore } from './warnings-before.js';

/** The instant a read derives at: `at` if given, else the clock's now. */
const nowOr = (clock: WriterClock, at: Instant | undefined): Instant => at ?? clock.now();

/** Whether a ticket's row passes `selector` (always, without one); signatures are read only when it asks. */
const selectorMatch =
  (store: EventStore, selector: Selector | undefined) =>
  async (ticket: string, fields: SelectFields, eventIds: () => readonly string[]): Promise<boolean> => {
    if (selector === undefined) return true;
    const signed = selector.readsSignatures ? signedEventIds(await store.sidecarNames(ticket)) : undefined;
    return selector.test(withSignatures(fields, signed === undefined ? [] : eventIds(), signed));
  };

const skippedJson = (s: readonly SkippedTicket[]): Json => s.map((x) => ({ ticket: x.ticket, code: x.code, message: x.message }));
const skippedLines = (s: readonly SkippedTicket[]): string[] => s.map((x) => `ticket ${x.ticket}: ${x.code}: ${x.message}; skipped`);

/**
 * The application layer of tik: every read and write the CLI and the server offer, as typed
 * operations over one store. Each returns `{value, warnings}` and throws only `TikError` (codes:
 * error-table.ts). The CLI parses argv into these inputs and renders the value; the server
 * validates JSON into them and sends the value. Who `actor` may be is the caller's edge policy.
 */
export class TikService {
  /** Made on the first status read (its module is loaded only then). */
  private statusCache: Promise<StatusCache> | undefined;

  constructor(private readonly deps: TikServiceDeps) {}

  get store(): EventStore {
    return this.deps.store;
  }

  get clock(): WriterClock {
    return this.deps.clock;
  }

  private async run<T>(f: (sink: WarningSink) => Promise<T>): Promise<Outcome<T>> {
    const warnings: string[] = [];
    try {
      const value = await f({ warn: (t) => warnings.push(t) });
      return { value, warnings };
    } catch (e) {
      if (warnings.length > 0 && e instanceof Error) rememberWarnings(e, warnings);
      throw e;
    }
  }

  private writer(actor: string) {
    checkActor(actor);
    return { store: this.deps.store, clock: this.deps.clock, actor, signer: this.deps.signer };
  }

  // ── reads ──────────────────────────────────────────────────────────────────────────────────

  /** A ticket id from an id or a unique prefix (a full id skips the scan when the store has it). */
  async resolve(prefix: string): Promise<Outcome<string>> {
    return { value: await resolveTicket(this.deps.store, prefix), warnings: [] };
  }

  /** `status --json`. */
  async status(prefix: string, opts: { at?: Instant } = {}): Promise<Outcome<TicketRead<Record<string, Json>> & { view: StatusView }>> {
    return this.run(async (sink) => {
      const now = nowOr(this.deps.clock, opts.at);
      const open = await openTicket(sink, this.deps.store, prefix);
      const view = statusView(open, now);
      return { json: view.json, open, view };
    });
  }

  /**
   * `status --json` alone (the body the CLI prints and `GET /api/status` sends): through the
   * status cache unless `derivedIndex` is false; the same answer either way.
   */
  async statusJson(prefix: string, opts: { at?: Instant } = {}): Promise<Outcome<StatusJson>> {
    if (this.deps.derivedIndex === false) {
      const r = await this.status(prefix, opts);
      return { value: { ticket: r.value.open.ticket, json: r.value.json }, warnings: r.warnings };
    }
    const now = nowOr(this.deps.clock, opts.at);
    this.statusCache ??= import('./status-cache.js').then((m) => new m.StatusCache(this.deps.store, this.deps.statusCheck ?? 'bytes'));
    const cache = await this.statusCache;
    return this.run((sink) => cache.status(sink, prefix, now));
  }

  /** `explain --json`; `forActor` keeps what that actor can act on. */
  async explain(prefix: string, opts: { at?: Instant; forActor?: string } = {}): Promise<Outcome<TicketRead<Record<string, Json>> & { result: ExplainResult; def: ProcessDef }>> {
    return this.run(async (sink) => {
      const now = nowOr(this.deps.clock, opts.at);
      const open = await openTicket(sink, this.deps.store, prefix);
      const def = requireDef(open);
      const result = explain(def, open.events, now, open.roles, opts.forActor !== undefined ? { forActor: opts.forActor } : {});
      return { json: explainJson(open, result, now, opts.forActor), open, result, def };
    });
  }

  /** `causal --json`: each reached stage with the events (or a note) behind each of its guards. */
  async causal(prefix: string, opts: { at?: Instant } = {}): Promise<Outcome<TicketRead<Json[]>>> {
    return this.run(async (sink) => {
      const now = nowOr(this.deps.clock, opts.at);
      const open = await openTicket(sink, this.deps.store, prefix);
      return { json: causalJson(causal(requireDef(open), open.events, now, open.roles)), open };
    });
  }

  /** `whatif --json`: the stage difference hypothetical steps would make; nothing is written. */
  async whatif(prefix: string, steps: readonly string[], actor: string, opts: { at?: Instant } = {}): Promise<Outcome<TicketRead<WhatifResult>>> {
    return this.run(async (sink) => {
      const now = nowOr(this.deps.clock, opts.at);
      const open = await openTicket(sink, this.deps.store, prefix);
      return { json: whatif(open, requireDef(open), steps, actor, now), open };
    });
  }

  /** `log --json`. */
  async log(prefix: string): Promise<Outcome<TicketRead<Json[]>>> {
    return this.run(async (sink) => {
      const open = await openTicket(sink, this.deps.store, prefix);
      return { json: logJson(open, this.deps.clock.now()), open };
    });
  }

  /** `diff --json` of the last `k` events. */
  async diff(prefix: string, k: number): Promise<Outcome<TicketRead<Record<string, Json>>>> {
    if (!Number.isSafeInteger(k) || k < 1) throw new TikError('input/invalid', `k must be a positive integer, got ${k}`, { where: 'k', hint: 'e.g. tik diff <id> 3' });
    return this.run(async (sink) => {
      const open = await openTicket(sink, this.deps.store, prefix);
      return { json: diffJson(open, this.deps.clock.now(), k), open };
    });
  }

  /**
   * `ls --json` rows (settled tickets only with `all`), with `where` those a selector matches; a
   * ticket that cannot be read is skipped and reported. Rows, and what a selector reads of them,
   * come through the store's derived index when it keeps one (./ls-index.ts): the same answer,
   * without reading the tickets whose events did not change. Signatures (`unsigned`) are read
   * from the store either way.
   */
  async ls(opts: { all?: boolean; at?: Instant; where?: string } = {}): Promise<Outcome<LsValue>> {
    // compiled before any read, so a bad selector fails at once (select/bad-term)
    const selector = opts.where === undefined ? undefined : compileSelector(opts.where);
    const now = nowOr(this.deps.clock, opts.at);
    const store = this.deps.store;
    const matches = selectorMatch(store, selector);
    let listed: { rows: readonly LsRow[]; skipped: readonly SkippedTicket[]; warnings: readonly string[] } | undefined;
    if (this.deps.derivedIndex !== false) {
      const indexed = await (await import('./ls-index.js')).indexedLsRows(store, now, selector === undefined ? {} : { select: selector.readsOnlyStages ? 'stages' : 'fields' });
      if (indexed !== undefined) {
        const rows: LsRow[] = [];
        for (const [i, row] of indexed.rows.entries()) {
          const s = indexed.select?.[i];
          if (s === undefined || (await matches(row.ticket, s.fields, () => s.eventIds))) rows.push(row);
        }
        listed = { rows, skipped: indexed.skipped, warnings: indexed.warnings };
      }
    }
    if (listed === undefined) {
      const set = await loadTicketSet(store, now);
      const rows: LsRow[] = [];
      for (const t of set.tickets) {
        const row = lsRow(t);
        if (selector !== undefined && !(await matches(t.ticket, selectFields(t, row.current), () => t.events.map((e) => e.id)))) continue;
        rows.push(row);
      }
      listed = { rows, skipped: set.skipped, warnings: set.warnings };
    }
    const rows: Record<string, Json>[] = [];
    let hidden = 0;
    for (const r of listed.rows) {
      if (r.settled && opts.all !== true) hidden++;
      else rows.push(lsRowJson(r));
    }
    return { value: { rows, hidden, skipped: listed.skipped }, warnings: [...listed.warnings, ...skippedLines(listed.skipped)] };
  }

  /** `board`: the whole store as one self-contained HTML page (./board-html.ts); unreadable tickets are listed on it. */
  async board(opts: { at?: Instant } = {}): Promise<Outcome<{ html: string; skipped: readonly SkippedTicket[] }>> {
    const now = nowOr(this.deps.clock, opts.at);
    const set = await loadTicketSet(this.deps.store, now);
    return { value: { html: boardHtml(set, now), skipped: set.skipped }, warnings: [...set.warnings, ...skippedLines(set.skipped)] };
  }

  /**
   * The browser board's data (`GET /api/board`, ./board-card.ts): a card per ticket (settled ones
   * only with `all`), with `where` those the selector matches (the grammar and errors of `ls
   * --where`), and each process's stages in definition order.
   */
  async boardView(opts: { all?: boolean; at?: Instant; where?: string } = {}): Promise<Outcome<BoardModel>> {
    const selector = opts.where === undefined ? undefined : compileSelector(opts.where);
    const now = nowOr(this.deps.clock, opts.at);
    const set = await loadTicketSet(this.deps.store, now);
    const matches = selectorMatch(this.deps.store, selector);
    const kept = [];
    for (const t of set.tickets) {
      if (isSettled(t.def, t.derived.reached) && opts.all !== true) continue;
      // The selector's row is built only when there is a selector: it prints every fact.
      if (selector === undefined || (await matches(t.ticket, selectFields(t, [...currentStages(t.def, t.derived.reached)].sort()), () => t.events.map((e) => e.id)))) kept.push(t);
    }
    return { value: boardModel(kept, set.skipped, now, await this.deps.store.listProcesses()), warnings: [...set.warnings, ...skippedLines(set.skipped)] };
  }

  /** The browser's ticket page (`GET /api/ticket-view/:ticket`, ./ticket-view.ts), with the text of every comment. */
  async ticketView(prefix: string, opts: { at?: Instant } = {}): Promise<Outcome<TicketRead<Record<string, Json>>>> {
    return this.run(async (sink) => {
      const now = nowOr(this.deps.clock, opts.at);
      const open = await openTicket(sink, this.deps.store, prefix);
      const comments = new Map<string, CommentText>();
      for (const e of open.events) {
        if (!isCommentEvent(e)) continue;
        // Any peer can deliver an admitted event: a hash that names no blob must not fail the page.
        const hash = e.body.get(K.artifactHash);
        comments.set(e.id, typeof hash === 'string' && CONTENT_ID.test(hash) ? commentText(await this.deps.store.readBlob(open.ticket, hash)) : badHashComment(hash));
      }
      return { json: ticketView(open, requireDef(open), now, comments), open };
    });
  }

  /** `plan`: the dependency-link roadmap over every ticket (./plan-lens.ts). */
  async plan(opts: { at?: Instant } = {}): Promise<Outcome<{ view: PlanView; skipped: readonly SkippedTicket[] }>> {
    const now = nowOr(this.deps.clock, opts.at);
    const set = await loadTicketSet(this.deps.store, now);
    return { value: { view: planOf(set.tickets), skipped: set.skipped }, warnings: [...set.warnings, ...skippedLines(set.skipped)] };
  }

  /** `next --json`: the inbox across tickets (§7.2); a ticket that cannot be read is skipped and reported. */
  async next(opts: { actor?: string; role?: string; all?: boolean; at?: Instant } = {}): Promise<Outcome<NextValue>> {
    const now = nowOr(this.deps.clock, opts.at);
    const set = await loadTicketSet(this.deps.store, now);
    const { keep: tickets, held } = holdBackDependents(set.tickets);
    const rolesByDef = new Map(tickets.map((t) => [t.def, t.roles] as const));
    const r = inbox(
      tickets.map((t) => ({ ticket: t.ticket, def: t.def, events: t.events })),
      now,
      (def) => rolesByDef.get(def) ?? new Map(),
      { ...(opts.actor !== undefined ? { actor: opts.actor } : {}), ...(opts.role !== undefined ? { role: opts.role } : {}), all: opts.all === true },
    );
    const json: Record<string, Json> = {
      items: r.items.map((i) => ({
        action: i.actionText,
        who: i.who === 'anyone' ? 'anyone' : [...i.who],
        role: i.role ?? null,
        notActor: i.notActor ?? null,
        staleMs: i.staleMs,
        unlocks: i.unlocks.map((u) => ({ ticket: u.ticket, stage: u.stage, hint: u.hint ?? null })),
      })),
      waiting: r.waiting.map((w) => ({ ticket: w.ticket, stage: w.stage, reason: reasonJson(w.reason) })),
      settled: r.settled,
      heldBack: held,
      // Present only when a ticket was skipped, so a healthy store's body is unchanged.
      ...(set.skipped.length > 0 ? { skipped: skippedJson(set.skipped) } : {}),
    };
    return { value: { json, result: r, heldBack: held.length, skipped: set.skipped }, warnings: [...set.warnings, ...skippedLines(set.skipped)] };
  }

  // ── writes ─────────────────────────────────────────────────────────────────────────────────

  /** `new`: lint the named definition, archive it by hash, write a `:ticket/create` pinning it. */
  async create(input: CreateInput): Promise<Outcome<{ ticket: string; event: string; process: { id: string; version: number; hash: string } }>> {
    const w = this.writer(input.actor);
    const { def, canonical, file } = await this.lintedDefinition(input.process);
    const ticket = this.deps.mintId();
    const [create] = await appendChain(
      w,
      ticket,
      [],
      [
        {
          type: 'ticket/create',
          body: body({
            'ticket/title': input.title ?? input.process,
            'ticket/process': Keyword.of(input.process),
            'ticket/process-version': def.version,
            'ticket/process-hash': def.hash,
          }),
        },
      ],
      async () => {
        const hash = await this.deps.store.archiveProcess(canonical);
        if (hash !== def.hash) throw new TikError('store/hash-mismatch', `archived ${file} as ${hash}, expected ${def.hash}`, { where: file });
      },
    );
    return { value: { ticket, event: create!.id, process: { id: def.id.toString(), version: Number(def.version), hash: def.hash } }, warnings: [] };
  }

  /**
   * `reprocess`: re-pin a ticket to a new definition (upstream ADR 0002: a dry run by default). Shows
   * the stages the ticket would gain and lose under the proposed rules and what they would newly
   * demand of the stages it has now; with `apply`, archives the definition by hash and appends a
   * `:process/migrate` event (signed when this writer signs). A definition that fails lint, is the
   * pinned one, or is another process's is refused.
   */
  async reprocess(input: ReprocessInput): Promise<Outcome<ReprocessResult>> {
    const def = parseProcess(readEdn(input.definitionText, input.file), input.file);
    const { errors } = lint(def);
    if (errors.length > 0) {
      throw new TikError('process/lint', `${input.file} fails lint: ${errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`, {
        where: input.file,
        hint: `run tik lint ${input.file} and fix the errors; a ticket is never re-pinned to a definition that fails lint`,
      });
    }
    const now = this.deps.clock.now();
    const register = await readRegister(this.deps.store);
    const plan = await this.run(async (sink) => {
      const t = await openTicket(sink, this.deps.store, input.ticket);
      const pinned = requireDef(t);
      if (pinned.hash === def.hash) {
        throw new TikError('input/invalid', `${input.file} is the definition ticket ${t.ticket} is already pinned to (${def.hash})`, { where: input.file, hint: 'edit the definition (and bump :process/version) first' });
      }
      if (pinned.id !== def.id) {
        throw new TikError('input/invalid', `${input.file} defines ${def.id.toString()}, but ticket ${t.ticket} is a ${pinned.id.toString()} ticket`, {
          where: input.file,
          hint: 'reprocess moves a ticket to newer rules of its own process; create a new ticket for another process',
        });
      }
      const roles = resolveRoles(def, register);
      const before = effectiveReached(pinned, t.events, now, t.roles);
      const after = effectiveReached(def, t.events, now, roles);
      const blockers = explain(def, t.events, now, roles)
        .blocks.filter((b) => before.has(b.stage) && b.missing.length > 0)
        .map((b) => ({ stage: b.stage, missing: b.missing.map((m) => reasonText(m, roles, def.stageByKey.get(b.stage))) }));
      return {
        ticket: t.ticket,
        pinned: { version: Number(pinned.version), hash: pinned.hash },
        proposed: { version: Number(def.version), hash: def.hash },
        gained: [...after].filter((x) => !before.has(x)).sort(),
        lost: [...before].filter((x) => !after.has(x)).sort(),
        blockers,
      };
    });
    if (!input.apply) return { value: { ...plan.value, applied: false, event: null }, warnings: plan.warnings };
    const canonical = emit(def.raw);
    const written = await this.write(
      input.actor,
      plan.value.ticket,
      () => [{ type: 'process/migrate', body: body({ 'process/version': def.version, 'process/hash': def.hash, 'migrate/reason': input.reason }) }],
      async () => {
        const hash = await this.deps.store.archiveProcess(canonical);
        if (hash !== def.hash) throw new TikError('store/hash-mismatch', `archived ${input.file} as ${hash}, expected ${def.hash}`, { where: input.file });
      },
    );
    return { value: { ...plan.value, applied: true, event: written.value.events[0]!.id }, warnings: [...plan.warnings, ...written.warnings] };
  }

  /** `set`: one chained `:fact/assert` per assignment. */
  async assert(input: AssertInput): Promise<Outcome<Written>> {
    if (input.facts.length === 0) throw new TikError('input/invalid', 'set needs at least one key=value', { where: 'facts', hint: 'e.g. category=technical' });
    const paths = input.facts.map((f) => ({ path: parseKeyPath(f.key, 'key'), value: f.value }));
    return this.write(input.actor, input.ticket, (t) =>
      paths.map((a) => ({
        type: 'fact/assert',
        body: body({ 'fact/path': [...a.path], 'fact/value': parseCliValue(a.value, { raw: keepsRawText(t.def?.raw, a.path) }) }),
      })),
    );
  }

  /** `set` from `k=v` texts (the CLI's and the argv adapter's form). */
  async assertAssignments(actor: string, ticket: string, assignments: readonly string[]): Promise<Outcome<Written>> {
    const facts = assignments.map(parseAssignment).map((a) => ({ key: a.key, value: a.valueText }));
    return this.assert({ actor, ticket, facts });
  }

  /** `retract`: withdraw a fact (clears its disputes). */
  async retract(input: RetractInput): Promise<Outcome<Written>> {
    const path = parseKeyPath(input.key, 'key');
    return this.write(input.actor, input.ticket, () => [{ type: 'fact/retract', body: body({ 'fact/path': [...path], 'retract/reason': input.reason }) }]);
  }

  /** `dispute`: reject a fact, or withdraw this actor's disputes on it. */
  async dispute(input: DisputeInput): Promise<Outcome<Written>> {
    const path = parseKeyPath(input.key, 'key');
    const reason = input.reason ?? (input.withdraw ? 'withdrawn' : 'disputed');
    return this.write(input.actor, input.ticket, () => [
      { type: 'fact/dispute', body: body({ 'fact/path': [...path], 'dispute/reason': reason, 'dispute/withdraw?': input.withdraw ? true : undefined }) },
    ]);
  }

  /** `comment`: an attach of a UTF-8 text blob at `comment/<its :at>` (§2.2). */
  async comment(input: CommentInput): Promise<Outcome<Written>> {
    if (input.text.trim() === '') throw new TikError('cli/usage', 'a comment needs some text', { where: 'text' });
    const bytes = Buffer.from(input.text, 'utf8');
    const hash = sha256Id(bytes);
    return this.write(
      input.actor,
      input.ticket,
      () => [{ type: 'artifact/attach', body: (at) => body({ 'artifact/path': `comment/${formatInstant(at.ms)}`, 'artifact/hash': hash }) }],
      (t) => this.deps.store.putBlob(t, bytes).then(() => undefined),
    );
  }

  /** `attest`: an `:attestation/add` whose body is `{:claim <claim>}` plus `body`'s entries. */
  async attest(input: AttestInput): Promise<Outcome<Written>> {
    const claim = parseCliValue(input.claim);
    const entries: [EdnValue, EdnValue][] = [];
    if (input.body !== undefined) {
      let extra: EdnValue;
      try {
        extra = readEdn(input.body, 'body');
      } catch (e) {
        throw new TikError('cli/bad-value', `--body is not EDN: ${e instanceof Error ? e.message : String(e)}`, { where: '--body', hint: 'write an EDN map, e.g. --body \'{:by "ci" :run 42}\'' });
      }
      if (!isMap(extra)) throw new TikError('cli/bad-value', '--body must be an EDN map', { where: '--body', hint: "e.g. --body '{:run 42}'" });
      for (const [k, v] of extra.entries()) entries.push([k, v]);
    }
    entries.push([Keyword.of('claim'), claim]);
    return this.write(input.actor, input.ticket, () => [{ type: 'attestation/add', body: ednMap(entries) }]);
  }

  /** `attach`: store the bytes as a blob and attach them at `path`. */
  async attach(input: AttachInput): Promise<Outcome<Written>> {
    if (input.path === '') throw new TikError('cli/usage', 'an attachment needs a non-empty artifact path', { where: '--as' });
    const hash = sha256Id(input.bytes);
    return this.write(
      input.actor,
      input.ticket,
      () => [{ type: 'artifact/attach', body: body({ 'artifact/path': input.path, 'artifact/hash': hash }) }],
      (t) => this.deps.store.putBlob(t, input.bytes).then(() => undefined),
    );
  }

  /**
   * `recur`: open the ticket of one period of a recurring process, deterministically (§9): the id
   * derives from the process name and label, `:at` is the period's start. A no-op when a ticket
   * of that process already has that `[:period]`.
   */
  async recur(input: RecurInput): Promise<Outcome<{ ticket: string; created: boolean; events: string[] }>> {
    checkActor(input.actor);
    const atMs = input.atMs ?? periodStart(input.period);
    if (atMs === undefined) {
      throw new TikError('cli/usage', `"${input.period}" is a free-form period: give its instant with --at`, { where: '--period', hint: 'or use yyyy, yyyy-Qn, yyyy-MM, yyyy-MM-dd or yyyy-Www' });
    }
    const store = this.deps.store;
    const procKw = Keyword.of(input.process);
    for (const id of await store.ticketIds()) {
      const state = reduce(parseStoredEvents(id, await store.events(id)));
      const period = factStatus(state, [Keyword.of('period')]);
      const periodText = period.status === 'present' ? (typeof period.value === 'string' ? period.value : emit(period.value)) : undefined;
      if (state.process === procKw && periodText === input.period) return { value: { ticket: id, created: false, events: [] }, warnings: [] };
    }
    const { def, canonical } = await this.lintedDefinition(input.process);
    const ticket = recurTicketId(input.process, input.period);
    const at = new Instant(atMs);
    const k = Keyword.of;
    const create = mintEvent({
      ticket: new Uuid(ticket),
      type: k('ticket/create'),
      actor: input.actor,
      at,
      parents: [],
      body: ednMap([
        [k('ticket/title'), input.title ?? `${input.process} ${input.period}`],
        [k('ticket/process'), procKw],
        [k('ticket/process-version'), def.version],
        [k('ticket/process-hash'), def.hash],
      ]),
    });
    const fact = mintEvent({
      ticket: new Uuid(ticket),
      type: k('fact/assert'),
      actor: input.actor,
      at,
      parents: [create.event.id],
      body: ednMap([
        [k('fact/path'), [k('period')]],
        [k('fact/value'), input.period],
      ]),
    });
    await store.archiveProcess(canonical);
    const signer = this.deps.signer;
    // loaded only by a run that signs, before the first write
    const signEvent = signer ? (await import('../verify/sign-event.js')).signEvent : undefined;
    for (const m of [create, fact]) {
      await store.append(ticket, m.event.id, Buffer.from(m.text, 'utf8'));
      if (signer && signEvent && signer.actor === input.actor) await signEvent(store, ticket, m.event.id, signer.key);
    }
    return { value: { ticket, created: true, events: [create.event.id, fact.event.id] }, warnings: [] };
  }

  /**
   * `probe`: run repository tickets' probes and assert what changed, as deterministic
   * self-minted events (./probe.ts). The host runs the commands: only the CLI offers one.
   */
  async probe(input: ProbeInput, host: ProbeHost): Promise<Outcome<ProbeResult>> {
    checkActor(input.actor);
    return this.run((sink) => probe({ store: this.deps.store, signer: this.deps.signer }, input, host, sink));
  }

  private async write(actor: string, prefix: string, intents: (t: OpenTicket) => readonly Intent[], beforeWrite?: (ticket: string) => Promise<void>): Promise<Outcome<Written>> {
    const w = this.writer(actor);
    return this.run(async (sink) => {
      const t = await openTicket(sink, this.deps.store, prefix);
      const written = await appendChain(w, t.ticket, t.events, intents(t), beforeWrite ? () => beforeWrite(t.ticket) : undefined);
      return { ticket: t.ticket, events: written.map((e) => ({ id: e.id, type: e.type.toString(), at: instantText(e.at) })) };
    });
  }

  private async lintedDefinition(name: string): Promise<{ def: ProcessDef; canonical: string; file: string }> {
    const store = this.deps.store;
    const text = await store.readNamedProcess(name);
    if (text === undefined) {
      const known = await store.listProcesses();
      throw new TikError('cli/unknown-process', `no process definition processes/${name}.edn`, {
        where: name,
        hint: known.length > 0 ? `known processes: ${known.join(', ')}` : 'write a definition at processes/<name>.edn first',
      });
    }
    const file = `processes/${name}.edn`;
    const def = parseProcess(readEdn(text, file), file);
    const { errors } = lint(def);
    if (errors.length > 0) {
      throw new TikError('process/lint', `${file} fails lint: ${errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`, {
        where: file,
        hint: `run tik lint ${file} and fix the errors; a ticket never pins a definition that fails lint`,
      });
    }
    return { def, canonical: emit(def.raw), file };
  }
}

/** An actor an event may name: one name as the `actors` register takes it, never a pattern (`*`, `?`, `!`). */
export function checkActor(actor: string): void {
  if (typeof actor !== 'string' || actor.length > 256 || !ACTOR_NAME.test(actor)) {
    throw new TikError('cli/usage', `actor ${JSON.stringify(actor)} is not a usable identity`, {
      where: '--actor',
      hint: 'an actor is one name: no spaces, quotes, commas or wildcard characters (* ? !)',
    });
  }
}
