import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TikError } from '../errors.js';

/** One principal of a tokens file: who it is, which actor names it may write as, and whether it may sync. */
export interface TokenGrant {
  readonly principal: string;
  readonly actors: readonly string[];
  /** May call the sync endpoints (a peer replica's token). */
  readonly sync: boolean;
}

/** Token grants by the lower-case hex sha256 of the token (the file never holds a token itself). */
export type TokenTable = ReadonlyMap<string, TokenGrant>;

/**
 * Who may append through this replica (transport policy, upstream ADR 0011), configured per
 * replica. `closed` (the default): the write API and sync pushes are refused (peers pull);
 * `open`: anyone who reaches the port writes as the actor they name (a trusted network only);
 * `tokens`: a bearer token names a principal and the actors it may write (and push) as, and gates
 * reads; `signed`: the replica mints nothing for clients — every pushed event must carry a valid
 * signature by its own actor's key in the replica's `actors` register (tokens, if given too,
 * still gate access).
 */
export type Authorship =
  | { readonly mode: 'closed' }
  | { readonly mode: 'open' }
  | { readonly mode: 'tokens'; readonly tokens: TokenTable }
  | { readonly mode: 'signed'; readonly tokens?: TokenTable };

/** The caller of a request, as the policy sees it. */
export type Caller = { readonly kind: 'anonymous' } | { readonly kind: 'token'; readonly grant: TokenGrant };

const HEX64 = /^[0-9a-f]{64}$/;
const NAME = /^[^\s,"#*?!][^\s,"*?!]{0,255}$/;

const TOKENS_FILE = z
  .object({
    tokens: z
      .array(
        z
          .object({
            sha256: z.string().regex(HEX64, 'the lower-case hex sha256 of the token'),
            principal: z.string().regex(NAME, 'a principal name without spaces, quotes or wildcards'),
            actors: z.array(z.string().regex(NAME, 'an actor name without spaces, quotes or wildcards')).max(1024),
            sync: z.boolean().optional(),
          })
          .strict(),
      )
      .max(100_000),
  })
  .strict();

/** The hex sha256 of a token, as a tokens file names it (`printf %s TOKEN | sha256sum`). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Parse a tokens file's text (JSON: `{"tokens": [{sha256, principal, actors, sync?}]}`). */
export function parseTokens(text: string, where: string): TokenTable {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new TikError('auth/bad-tokens', `the tokens file is not JSON: ${(e as Error).message}`, { where, hint: 'write {"tokens": [{"sha256": "…", "principal": "ci", "actors": ["ci"]}]}' });
  }
  const r = TOKENS_FILE.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new TikError('auth/bad-tokens', `the tokens file is invalid at ${i.path.join('.') || '(top)'}: ${i.message}`, { where, hint: 'each entry is {sha256, principal, actors: [names], sync?: boolean}' });
  }
  const table = new Map<string, TokenGrant>();
  for (const t of r.data.tokens) {
    if (table.has(t.sha256)) throw new TikError('auth/bad-tokens', `the tokens file lists the token hash ${t.sha256.slice(0, 12)}… twice`, { where, hint: 'one entry per token' });
    table.set(t.sha256, Object.freeze({ principal: t.principal, actors: Object.freeze([...t.actors]), sync: t.sync === true }));
  }
  return table;
}

/** Read and parse a tokens file (fails at start-up, never per request). */
export async function readTokensFile(path: string): Promise<TokenTable> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new TikError('auth/bad-tokens', `cannot read the tokens file ${path}`, { where: '--tokens', hint: 'give the path of a readable JSON tokens file' });
  }
  return parseTokens(text, path);
}

const unauthenticated = (): TikError =>
  new TikError('auth/unauthenticated', 'this replica requires a bearer token', { where: 'Authorization', hint: 'send Authorization: Bearer <token> with a token listed in the replica’s tokens file' });

/** The caller of a request under `table`: a valid bearer token's grant; no header is anonymous; a bad token is refused. */
export function callerOf(req: FastifyRequest, table: TokenTable | undefined): Caller {
  const h = req.headers.authorization;
  if (h === undefined) return { kind: 'anonymous' };
  const m = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(h);
  const grant = m && table ? table.get(tokenHash(m[1]!)) : undefined;
  if (!grant) throw new TikError('auth/unauthenticated', 'the bearer token is not accepted by this replica', { where: 'Authorization', hint: 'check the token, or ask the operator to add its sha256 to the tokens file' });
  return { kind: 'token', grant };
}

const tableOf = (a: Authorship): TokenTable | undefined => (a.mode === 'tokens' ? a.tokens : a.mode === 'signed' ? a.tokens : undefined);

/** Reads (`/api` GETs, the board): under a tokens table any valid token; otherwise open. */
export function authorizeRead(a: Authorship, req: FastifyRequest): void {
  const table = tableOf(a);
  if (table === undefined) return;
  if (callerOf(req, table).kind === 'anonymous') throw unauthenticated();
}

/**
 * Sync reads (reconcile, fetch): the same rule as the API's reads — under a tokens table any
 * valid token, otherwise open. A fetch answers nothing the read API does not.
 */
export function authorizeSyncRead(a: Authorship, req: FastifyRequest): void {
  authorizeRead(a, req);
}

/**
 * How the events of an admitted push are judged: `as-sent` (a trusted peer or an open replica:
 * the bundle check only), `signed` (each event by its signature, `--admit signed`), or `actors`
 * (each event must name an actor the token may write as).
 */
export type PushJudgement = { readonly judge: 'as-sent' } | { readonly judge: 'signed' } | { readonly judge: 'actors'; readonly grant: TokenGrant };

/**
 * Sync push is a write, authenticated like the write API: `open` takes it from anyone; `signed`
 * from anyone who may read (events are judged by their signatures, not by who sent them);
 * `tokens` from a token with `"sync": true` (a peer replica, trusted to relay any actor's events)
 * or from a token whose every pushed event names one of its actors (`tik --remote`, `tik sync
 * --push`); `closed` from no one (it has no tokens: its peers pull from it instead).
 */
export function authorizePush(a: Authorship, req: FastifyRequest): PushJudgement {
  switch (a.mode) {
    case 'open':
      return { judge: 'as-sent' };
    case 'signed':
      authorizeRead(a, req);
      return { judge: 'signed' };
    case 'closed':
      if (req.headers.authorization !== undefined) callerOf(req, undefined); // a token here is never valid: 401 names it
      throw new TikError('auth/unauthenticated', 'this replica takes no sync pushes: it has no tokens to authenticate a pusher', {
        where: 'Authorization',
        hint: 'its peers pull from it instead (list this replica as their --peer); the operator enables pushes with tik serve --tokens FILE (a peer token with "sync": true) or --admit signed',
      });
    case 'tokens': {
      const c = callerOf(req, a.tokens);
      if (c.kind === 'anonymous') throw unauthenticated();
      if (c.grant.sync) return { judge: 'as-sent' };
      if (c.grant.actors.length === 0) throw new TikError('auth/forbidden', `principal ${c.grant.principal} may not push to this replica`, { where: 'Authorization', hint: 'a peer replica needs a token with "sync": true; a person, a token listing the actors they write as' });
      return { judge: 'actors', grant: c.grant };
    }
  }
}

/** Peer-only calls (the shard-local lenses a gathering replica asks for): under a tokens table a token with `sync`; otherwise open. */
export function authorizePeer(a: Authorship, req: FastifyRequest): void {
  const table = tableOf(a);
  if (table === undefined) return;
  const c = callerOf(req, table);
  if (c.kind === 'anonymous') throw unauthenticated();
  if (!c.grant.sync) throw new TikError('auth/forbidden', `principal ${c.grant.principal} may not call this replica's peer routes`, { where: 'Authorization', hint: 'a peer replica needs a token with "sync": true' });
}

/**
 * A write through the API as `requested` (or the caller's own actor when none is named). Returns
 * the actor the events will name. Unauthenticated → `auth/unauthenticated` (401); an actor the
 * token may not write as → `auth/forbidden` (403); `closed`/`signed` refuse every API write.
 */
export function authorizeWrite(a: Authorship, req: FastifyRequest, requested: string | undefined): string {
  switch (a.mode) {
    case 'closed':
      throw new TikError('auth/writes-disabled', 'this replica takes no writes over its API', { where: req.url.split('?')[0]!, hint: 'the operator enables writes with tik serve --tokens FILE (or --open-writes on a trusted network)' });
    case 'signed':
      throw new TikError('auth/signed-only', 'this replica admits only events signed by their own actor', { where: req.url.split('?')[0]!, hint: 'mint and sign locally and push: TIK_KEY=~/.ssh/id_ed25519 tik --remote URL set …' });
    case 'open': {
      if (requested === undefined || requested === '') throw new TikError('input/invalid', 'name the actor of the write', { where: 'actor', hint: 'send {"actor": "<name>", …}' });
      return requested;
    }
    case 'tokens': {
      const c = callerOf(req, a.tokens);
      if (c.kind === 'anonymous') throw unauthenticated();
      const actor = requested ?? c.grant.actors[0];
      if (actor === undefined || !c.grant.actors.includes(actor)) {
        throw new TikError('auth/forbidden', `principal ${c.grant.principal} may not write as ${JSON.stringify(actor ?? '')}`, {
          where: 'actor',
          hint: c.grant.actors.length > 0 ? `this token may write as: ${c.grant.actors.join(', ')}` : 'this token may not write',
        });
      }
      return actor;
    }
  }
}

/** Who the caller is to this replica, for a browser deciding what to offer (`GET /api/whoami`). */
export interface WhoAmI {
  readonly mode: Authorship['mode'];
  /** The token's principal; null without a token. */
  readonly principal: string | null;
  /** The actors the caller may write as; empty under `open` (the caller names one per write). */
  readonly actors: readonly string[];
  /** Whether the write API can accept this caller's writes at all. */
  readonly writes: boolean;
}

/** The caller's identity under the policy; reading it needs what any read needs (a token under a table). */
export function whoAmI(a: Authorship, req: FastifyRequest): WhoAmI {
  authorizeRead(a, req);
  const table = tableOf(a);
  const c = table === undefined ? undefined : callerOf(req, table);
  const grant = c?.kind === 'token' ? c.grant : undefined;
  const actors = a.mode === 'tokens' && grant ? grant.actors : [];
  return { mode: a.mode, principal: grant?.principal ?? null, actors: [...actors], writes: a.mode === 'open' || actors.length > 0 };
}
