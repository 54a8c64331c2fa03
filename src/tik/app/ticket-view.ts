import { emit } from '../edn/index.js';
import { formatInstant } from '../edn/instant-text.js';
import type { Instant } from '../edn/value.js';
import { keywordPath } from '../kernel/edn-access.js';
import { explain, isSettled, K, type ProcessDef, type TikEvent } from '../kernel/index.js';
import { instantText, type Json } from './json-value.js';
import { claimsJson, factJson, factsJson, isLinkOrTitle, logJson, titleOf } from './lenses.js';
import { processSvg } from './process-svg.js';
import { pathText, reasonText } from './reason-text.js';
import type { OpenTicket } from './ticket-loader.js';

/**
 * Whether an event is a comment: an attach at exactly `comment/<its own :at>`, the one form `tik
 * comment` writes (§2.2). Any other file under `comment/` is an attachment, whose bytes the page
 * never carries.
 */
export const isCommentEvent = (e: Pick<TikEvent, 'type' | 'at' | 'body'>): boolean =>
  e.type.toString() === ':artifact/attach' && e.body.get(K.artifactPath) === `comment/${formatInstant(e.at.ms)}`;

/** The most characters of a comment the page shows: what the comment API accepts. */
export const MAX_COMMENT_CHARS = 65_536;

/** A comment as the page shows it: its text (null when it cannot be shown) and why it is cut or missing. */
export interface CommentText {
  readonly text: string | null;
  readonly note: string | null;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * A comment's text from its blob's bytes: undefined bytes (not in this store) and bytes that are
 * not UTF-8 show no text, and a text longer than the API accepts is cut (never inside a surrogate pair).
 */
export function commentText(bytes: Uint8Array | undefined): CommentText {
  if (bytes === undefined) return { text: null, note: 'the text is unavailable: its blob is not in this store' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { text: null, note: 'the text is not shown: it is not valid UTF-8' };
  }
  if (text.length <= MAX_COMMENT_CHARS) return { text, note: null };
  const high = text.charCodeAt(MAX_COMMENT_CHARS - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? MAX_COMMENT_CHARS - 1 : MAX_COMMENT_CHARS;
  return { text: text.slice(0, cut), note: `truncated: the first ${count(cut)} of ${count(text.length)} characters` };
}

/** A comment whose hash cannot name a blob: shown as unavailable rather than failing the page. */
export const badHashComment = (hash: unknown): CommentText => ({
  text: null,
  note: `the text is unavailable: its hash ${typeof hash === 'string' ? JSON.stringify(hash.slice(0, 80)) : 'field'} is not a content id`,
});

/** How to settle a fact that is not plainly present, in words the ticket page shows beside it. */
export function resolutionText(status: string, by?: string): string | undefined {
  if (status === 'conflicted') return 'concurrent writes disagree: set the fact again (the new write follows both claims and supersedes them), or retract it';
  if (status === 'disputed') return `${by ?? 'the disputer'} can withdraw the dispute; otherwise agree with them and set the fact again`;
  return undefined;
}

/** One line for an event of the log: what it did, in the words of the CLI's verbs. */
function summaryOf(type: string, body: OpenTicket['events'][number]['body'], comment: boolean): string {
  const path = keywordPath(body.get(K.factPath));
  const p = path ? pathText(path) : '?';
  const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : emit(v as never));
  switch (type) {
    case ':ticket/create':
      return `created${body.get(K.title) !== undefined ? `: ${text(body.get(K.title))}` : ''}`;
    case ':fact/assert':
      return `set ${p} = ${emit(body.get(K.factValue) ?? null)}`;
    case ':fact/retract':
      return `retracted ${p}${body.get(K.retractReason) !== undefined ? ` (${text(body.get(K.retractReason))})` : ''}`;
    case ':fact/dispute':
      return `${body.get(K.disputeWithdraw) === true ? 'withdrew the dispute of' : 'disputed'} ${p}${body.get(K.disputeReason) !== undefined ? ` (${text(body.get(K.disputeReason))})` : ''}`;
    case ':artifact/attach':
      return comment ? 'commented' : `attached ${text(body.get(K.artifactPath))}`;
    case ':attestation/add':
      return `attested ${text(body.get(K.claim))}`;
    case ':process/migrate':
      return `migrated to version ${text(body.get(K.migrateVersion))}${body.get(K.migrateReason) !== undefined ? ` (${text(body.get(K.migrateReason))})` : ''}`;
    default:
      return type;
  }
}

/**
 * The ticket page's data (`GET /api/ticket-view/:ticket`, docs/tik-board.md): status, what each
 * next stage misses as sentences naming who can supply it, the facts with how to resolve a
 * conflict or a dispute, the log with the stages each event reached or lost and comment texts, and
 * the process as SVG with the current stages filled. `comments` maps a comment event's id to its text.
 */
export function ticketView(t: OpenTicket, def: ProcessDef, now: Instant, comments: ReadonlyMap<string, CommentText>): Record<string, Json> {
  const r = explain(def, t.events, now, t.roles);
  const state = r.evolution.state;
  const facts = factsJson(state);
  // The writes of a live conflict and the disputes still open: the log highlights them. A fact
  // can be both (its status says disputed, which beats conflicted); the card badges both, so the
  // page lists the competing writes too, and a title or link that needs settling (which
  // `status --json` leaves out of `facts`).
  const flagged = new Map<string, 'conflict' | 'dispute'>();
  for (const [key, entry] of state.facts) {
    const claims = state.conflictClaims(key);
    const name = pathText(entry.path);
    if (isLinkOrTitle(entry.path) && (claims !== undefined || entry.disputes.length > 0)) {
      const f = factJson(state, key);
      if (f !== undefined) facts[name] = f;
    }
    if (claims === undefined) continue;
    for (const c of claims) flagged.set(c.event, 'conflict');
    const f = facts[name] as Record<string, Json> | undefined;
    if (f !== undefined && f.claims === undefined) f.claims = claimsJson(claims);
  }
  for (const entry of state.facts.values()) for (const d of entry.disputes) flagged.set(d.event, 'dispute');
  for (const f of Object.values(facts) as Record<string, Json>[]) {
    const how = resolutionText(String(f.status), typeof f.by === 'string' ? f.by : undefined);
    const conflict = f.status === 'disputed' && f.claims !== undefined ? resolutionText('conflicted') : undefined;
    if (how !== undefined) f.resolve = conflict === undefined ? how : `${how}; the writes also conflict: ${conflict}`;
  }
  const byId = new Map(t.events.map((e) => [e.id, e] as const));
  const log = (logJson(t, now) as Record<string, Json>[]).map((entry) => {
    const e = byId.get(String(entry.id))!;
    const comment = comments.get(e.id);
    return {
      id: entry.id!,
      at: entry.at!,
      actor: entry.actor!,
      type: entry.type!,
      summary: summaryOf(String(entry.type), e.body, comment !== undefined),
      derived: entry.derived!,
      lost: entry.lost!,
      comment: comment?.text ?? null,
      commentNote: comment?.note ?? null,
      flag: flagged.get(e.id) ?? null,
    };
  });
  const current = new Set<string>(r.current);
  return {
    ticket: t.ticket,
    title: titleOf(state),
    process: { id: def.id.toString(), version: Number(def.version) },
    current: [...current].sort(),
    reached: [...r.reached].sort(),
    settled: isSettled(def, new Set(r.reached)),
    facts,
    blocks: r.blocks.map((b) => ({
      stage: b.stage,
      hint: b.hint ?? null,
      impossible: b.impossible,
      satisfied: b.satisfied.map((g) => emit(g)),
      missing: b.missing.map((m) => reasonText(m, t.roles, def.stageByKey.get(b.stage))),
    })),
    log,
    missingParents: t.missingParents.length,
    svg: processSvg(def.stages, current, new Set(r.reached), `${def.id.toString()} v${def.version}`),
    at: instantText(now),
  };
}
