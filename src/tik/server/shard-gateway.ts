import { isCodedError } from '../../core/errors.js';
import { outcomeOf } from '../app/error-table.js';
import type { TikService } from '../app/tik-service.js';
import { loadTicketSet } from '../app/ticket-set.js';
import { Instant } from '../edn/value.js';
import { TikError } from '../errors.js';
import { resolveTicket } from '../store/resolve-ticket.js';
import { combineInbox, ticketInbox, type TicketInbox } from '../shard/inbox-parts.js';
import type { ShardDirectory } from '../shard/shard-directory.js';
import { isTicketId, shardOf, type ShardSpec } from '../shard/shard-spec.js';
import type { ShardStore } from '../shard/shard-store.js';

/** An HTTP answer: status, content type, body text. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Paths of the shard-local lenses a gathering replica asks each shard for. */
export const SHARD_PATHS = Object.freeze({ ls: '/shard/v1/ls', next: '/shard/v1/next', resolve: '/shard/v1/resolve' });

const json = (status: number, value: unknown, pretty = false): Answer => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value),
});

/** A shard answered a request of a gather with an error: that answer is passed on as it came. */
class ShardFailed extends TikError {
  constructor(readonly answer: Answer) {
    super('shard/failed', `a shard answered ${answer.status}`);
  }
}

/** A coded error as an answer (`{error: {code, message, hint?}}`); 503 when a shard is unreachable. */
export function errorAnswer(e: unknown): Answer {
  if (e instanceof ShardFailed) return e.answer;
  if (!isCodedError(e)) throw e;
  const status = e.code === 'shard/unavailable' ? 503 : e.code === 'shard/mismatch' ? 409 : e.code === 'shard/misdirected' ? 421 : outcomeOf(e.code).http;
  return json(status, { error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });
}

/**
 * The sharded face of a replica (ADR 0021 consequence 1). Per-ticket requests go to the shard that
 * owns the ticket; cross-ticket lenses (`ls`, `next`, the board) scatter to one live replica of
 * every shard and gather into exactly the JSON one store holding every ticket would answer. A
 * shard with no reachable replica makes the answer an error (503, naming the shard), never a
 * partial list. Nothing is cached: every request reads the stores as they are.
 */
export class ShardGateway {
  constructor(
    private readonly svc: TikService,
    readonly store: ShardStore,
    readonly directory: ShardDirectory,
    /** Sent with every request this replica makes of its own accord (gathers, resolves): its peer token. */
    private readonly peerHeaders: Readonly<Record<string, string>> = {},
  ) {}

  get shard(): ShardSpec {
    return this.store.shard;
  }

  /** The instant this replica derives at (its clock, or `TIK_NOW`); sent to every shard of a gather. */
  nowMs(): number {
    return this.svc.clock.now().ms;
  }

  ownerOf(ticket: string): number {
    return shardOf(ticket, this.shard.count);
  }

  owns(ticket: string): boolean {
    return this.store.owns(ticket);
  }

  // ── this shard's part ──────────────────────────────────────────────────────────────────────

  /** `ls --json` rows of the tickets this shard owns, derived at `nowMs`. */
  async localLs(all: boolean, nowMs: number): Promise<Answer> {
    try {
      const r = await this.svc.ls({ all, at: new Instant(nowMs) });
      return json(200, r.value.rows.filter((row) => this.owns(String(row.ticket))));
    } catch (e) {
      return errorAnswer(e);
    }
  }

  /** The per-ticket inbox contributions of this shard's tickets at `nowMs`. */
  async localNext(nowMs: number, opts: { actor?: string; role?: string }): Promise<Answer> {
    const now = new Instant(nowMs);
    try {
      // A ticket that cannot be read is left out (as `tik next` leaves it out), never the shard.
      const { tickets } = await loadTicketSet(this.store, now);
      return json(200, tickets.map((t) => ticketInbox(t, now, opts)));
    } catch (e) {
      return errorAnswer(e);
    }
  }

  /** This shard's tickets whose id starts with `prefix` (lower-cased). */
  async localResolve(prefix: string): Promise<Answer> {
    const p = prefix.trim().toLowerCase();
    return json(200, { tickets: (await this.store.ticketIds()).filter((id) => id.startsWith(p)) });
  }

  // ── gathering ──────────────────────────────────────────────────────────────────────────────

  /** Every shard's answer to one shard-local lens, own shard computed in process. */
  private async scatter(path: string, query: URLSearchParams, local: () => Promise<Answer>, tryNext?: (a: Answer) => boolean): Promise<Answer[]> {
    const parts: Promise<Answer>[] = [];
    for (let i = 0; i < this.shard.count; i++) {
      parts.push(i === this.shard.index ? local() : this.directory.call(i, `${path}?${query.toString()}`, { headers: { ...this.peerHeaders } }, tryNext));
    }
    // Every part settles before an error is chosen, and the lowest-numbered shard's wins: the
    // answer does not depend on which unreachable shard happened to fail first.
    const settled = await Promise.allSettled(parts);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((r) => (r as PromiseFulfilledResult<Answer>).value);
  }

  private static parsed<T>(answers: readonly Answer[]): T[] | Answer {
    const failed = answers.find((a) => a.status !== 200);
    if (failed) return failed;
    return answers.map((a) => JSON.parse(a.body) as T);
  }

  /** `ls --json` over every shard: the rows of all shards, in ticket order, as one store lists them. */
  async gatherLs(all: boolean): Promise<Answer> {
    try {
      const now = this.nowMs();
      const q = new URLSearchParams({ now: String(now), ...(all ? { all: 'true' } : {}) });
      const parts = ShardGateway.parsed<{ ticket: string }[]>(await this.scatter(SHARD_PATHS.ls, q, () => this.localLs(all, now)));
      if (!Array.isArray(parts)) return parts;
      const rows = parts.flat().sort((a, b) => (a.ticket < b.ticket ? -1 : a.ticket > b.ticket ? 1 : 0));
      return json(200, rows, true);
    } catch (e) {
      return errorAnswer(e);
    }
  }

  /** `gatherLs(true)` rows for the board page (an unreachable shard is an error naming it). */
  async lsAllRows(): Promise<{ rows: Record<string, unknown>[]; skipped: readonly { ticket: string; code: string; message: string }[] }> {
    const a = await this.gatherLs(true);
    if (a.status !== 200) throw new TikError('shard/unavailable', (JSON.parse(a.body) as { error?: { message?: string } }).error?.message ?? `a shard answered ${a.status}`);
    return { rows: JSON.parse(a.body) as Record<string, unknown>[], skipped: [] };
  }

  /** `next --json` over every shard (same filters as `tik next`). */
  async gatherNext(opts: { actor?: string; role?: string; all: boolean }): Promise<Answer> {
    try {
      const now = this.nowMs();
      const q = new URLSearchParams({ now: String(now), ...(opts.actor !== undefined ? { actor: opts.actor } : {}), ...(opts.role !== undefined ? { role: opts.role } : {}) });
      const filters = { ...(opts.actor !== undefined ? { actor: opts.actor } : {}), ...(opts.role !== undefined ? { role: opts.role } : {}) };
      const parts = ShardGateway.parsed<TicketInbox[]>(await this.scatter(SHARD_PATHS.next, q, () => this.localNext(now, filters)));
      if (!Array.isArray(parts)) return parts;
      return json(200, combineInbox(parts.flat(), opts.all), true);
    } catch (e) {
      return errorAnswer(e);
    }
  }

  /**
   * The full ticket id a `:ticket` argument names: a full uuid as is; a prefix is looked up on
   * every shard and must match exactly one ticket (`ticket/unknown`, `ticket/ambiguous` as the CLI).
   */
  async resolve(ticketArg: string): Promise<string> {
    const t = ticketArg.trim().toLowerCase();
    if (isTicketId(t)) return t;
    if (t === '' || !/^[0-9a-f-]+$/.test(t)) return resolveTicket({ ticketIds: async () => [] }, ticketArg); // throws ticket/bad-prefix
    // A replica that has not yet synced a new ticket finds nothing: ask the shard's next replica.
    const none = (a: Answer): boolean => a.status === 200 && (JSON.parse(a.body) as { tickets: string[] }).tickets.length === 0;
    const q = new URLSearchParams({ prefix: t });
    const local = async (): Promise<Answer> => {
      const here = await this.localResolve(t);
      return none(here) ? ((await this.siblingResolve(`${SHARD_PATHS.resolve}?${q.toString()}`)) ?? here) : here;
    };
    const parts = ShardGateway.parsed<{ tickets: string[] }>(await this.scatter(SHARD_PATHS.resolve, q, local, none));
    if (!Array.isArray(parts)) throw new ShardFailed(parts);
    const hits = parts.flatMap((p) => p.tickets).sort();
    return resolveTicket({ ticketIds: async () => hits }, ticketArg);
  }

  /** This shard's other replicas' tickets for a prefix, when this replica found none (undefined: no sibling, or none has any). */
  private async siblingResolve(path: string): Promise<Answer | undefined> {
    if ((await this.directory.replicasOf(this.shard.index)).length === 0) return undefined;
    const none = (a: Answer): boolean => a.status === 200 && (JSON.parse(a.body) as { tickets: string[] }).tickets.length === 0;
    try {
      const a = await this.directory.call(this.shard.index, path, { headers: { ...this.peerHeaders } }, none);
      return a.status === 200 ? a : undefined;
    } catch {
      return undefined;
    }
  }

  /** A request for shard `index`, sent on past any replica answering 404 ("unknown ticket" may only mean "not synced yet"). */
  private send(index: number, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return this.directory.call(
      index,
      path,
      { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
      (a) => a.status === 404,
    );
  }

  /**
   * Passes a request on to a live replica of the shard owning `ticket` (one hop, never more); a
   * 404 sends it on to the shard's next replica, and is the answer only if every replica says so.
   */
  async forward(ticket: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    try {
      return await this.send(this.ownerOf(ticket), method, path, body, headers);
    } catch (e) {
      return errorAnswer(e);
    }
  }

  /**
   * The same request at the other replicas of this shard, for a ticket this replica does not hold
   * (yet): a ticket written at a sibling shows here only after anti-entropy. Undefined when there
   * is no sibling or none answers.
   */
  async askSiblings(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer | undefined> {
    if ((await this.directory.replicasOf(this.shard.index)).length === 0) return undefined;
    try {
      return await this.send(this.shard.index, method, path, body, headers);
    } catch {
      return undefined;
    }
  }
}
