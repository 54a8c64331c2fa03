import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { parseInstantText } from '../app/instant-arg.js';
import { warningsBefore, type Outcome, type TikService } from '../app/tik-service.js';
import type { Instant } from '../edn/value.js';
import { TikError } from '../errors.js';
import { FORWARDED_HEADER } from '../shard/shard-directory.js';
import { shardText } from '../shard/shard-spec.js';
import { authorizeRead, authorizeWrite, whoAmI, type Authorship } from './authorship.js';
import { boardFromRows } from '../app/board-card.js';
import { errorReply } from './error-reply.js';
import { errorAnswer, type Answer, type ShardGateway } from './shard-gateway.js';
import { sendAnswer } from './shard-routes.js';
import { execute, parseWriteArgs, typedRequest, WRITE_VERBS, type WriteOp } from './write-op.js';
import { ACTOR as actor, ATTACH_BODY_LIMIT, ATTACH_PATH, BODIES, READ_QUERY, TICKET } from './api-schemas.js';
import { openApiDocument } from './openapi.js';

export { ATTACH_BODY_LIMIT } from './api-schemas.js';
/** The largest JSON write body. */
const JSON_BODY_LIMIT = 1024 * 1024;

export interface ApiOptions {
  readonly service: TikService;
  readonly authorship: Authorship;
  /** Texts never shown to a client (the store location, the working directory). */
  readonly hidden: readonly string[];
  readonly gateway?: ShardGateway | undefined;
}

/** Parse with a schema, or a `input/invalid` naming the first bad field. */
function valid<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const at = i.path.length > 0 ? `${where}.${i.path.join('.')}` : where;
  throw new TikError('input/invalid', `${at}: ${i.message}`, { where: at, hint: 'see docs/tik-sync.md for the request shapes' });
}

const pretty = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;
const truthy = (s: string | undefined): boolean => s !== undefined && s !== 'false';

/**
 * The read API (`GET /api/status/:ticket`, `explain`, `log`, `next`, `ls`; bodies are exactly
 * `tik <verb> --json`) and the typed write API (`POST /api/tickets`, `POST
 * /api/tickets/:ticket/{facts,retract,dispute,comments,attestations}`, `PUT
 * /api/tickets/:ticket/artifacts/<path>`), plus the old `POST /api/<verb> {args}` parsed by the
 * same strict parser into the same typed writes. No argv reaches commander; who may write as whom
 * is `authorship`. Shapes: docs/tik-sync.md. With a shard gateway, a request about a ticket of
 * another shard is passed to that shard, and `ls`/`next` gather every shard.
 */
export function apiRoutes(o: ApiOptions) {
  const svc = o.service;
  const gw = o.gateway;
  return async function plugin(app: FastifyInstance): Promise<void> {
    const fail = (res: FastifyReply, e: unknown): FastifyReply => {
      const r = errorReply(e, o.hidden);
      const before = warningsBefore(e);
      if (before.length > 0) res.header('tik-warnings', JSON.stringify(before).replace(/[^\x20-\x7e]/g, '?'));
      if (r.status === 500) app.log.error(e);
      return res.code(r.status).send(r.body);
    };
    const send = (res: FastifyReply, out: Outcome<unknown>, body: unknown): FastifyReply => {
      // Warnings travel beside the body (which stays exactly the CLI's --json), one JSON array.
      if (out.warnings.length > 0) res.header('tik-warnings', JSON.stringify(out.warnings).replace(/[^\x20-\x7e]/g, '?'));
      return res.type('application/json; charset=utf-8').send(pretty(body));
    };
    /**
     * Where a request about `ticketArg` runs: here (with the full id, when sharded) or, for a
     * ticket of another shard, at that shard (the answer is sent and undefined returned). A
     * request forwarded to us for a ticket we do not own is refused (421): one hop, never a loop.
     */
    const route = async (req: FastifyRequest, res: FastifyReply, ticketArg: string, forward: (id: string) => Promise<Answer>): Promise<string | undefined> => {
      if (!gw) return ticketArg;
      let id: string;
      try {
        id = await gw.resolve(ticketArg);
      } catch (e) {
        await sendAnswer(res, errorAnswer(e));
        return undefined;
      }
      if (gw.owns(id)) return id;
      if (req.headers[FORWARDED_HEADER] !== undefined) {
        await res.code(421).send({
          error: { code: 'shard/misdirected', message: `ticket ${id} belongs to shard ${gw.ownerOf(id)}/${gw.shard.count}, not to this replica's shard ${shardText(gw.shard)}`, hint: 'ask a replica of the owning shard' },
        });
        return undefined;
      }
      await sendAnswer(res, await forward(id));
      return undefined;
    };
    const authHeader = (req: FastifyRequest): Record<string, string> => (typeof req.headers.authorization === 'string' ? { authorization: req.headers.authorization } : {});
    const query = (url: string): string => (url.includes('?') ? url.slice(url.indexOf('?')) : '');
    /** For a request made here (not forwarded), the same request at this shard's other replicas. */
    const siblings = (req: FastifyRequest, method: 'GET' | 'POST', path: string, body?: unknown): (() => Promise<Answer | undefined>) | undefined =>
      gw && req.headers[FORWARDED_HEADER] === undefined ? () => gw.askSiblings(method, path, body, authHeader(req)) : undefined;
    /** Runs `f`; an "unknown ticket" may instead be answered by `elsewhere` (a sibling replica that has it). */
    const answer = async (res: FastifyReply, f: () => Promise<FastifyReply>, elsewhere?: () => Promise<Answer | undefined>): Promise<FastifyReply> => {
      try {
        return await f();
      } catch (e) {
        const r = errorReply(e, o.hidden);
        if (r.status === 404 && elsewhere) {
          const other = await elsewhere();
          if (other !== undefined && other.status !== 404) return sendAnswer(res, other);
        }
        return fail(res, e);
      }
    };
    const atOf = (q: { at?: string | undefined }): { at?: Instant } => (q.at !== undefined && q.at !== '' ? { at: parseInstantText(q.at, 'at') } : {});

    /** A listing's `where` selector (blank is none); a sharded replica gathers rows it cannot filter, and says so. */
    const whereOf = (q: { where?: string | undefined }): string | undefined => {
      const where = q.where !== undefined && q.where.trim() !== '' ? q.where : undefined;
      if (gw && where !== undefined) throw new TikError('server/bad-request', 'a sharded replica cannot filter the tickets it gathers', { where: 'query.where', hint: 'use tik ls --where against the store, or a replica of the whole store' });
      return where;
    };

    // The typed API's description, generated from the schemas the routes below validate with.
    const doc = pretty(openApiDocument());
    app.get('/api/openapi.json', async (_req, res) => res.type('application/json; charset=utf-8').send(doc));

    // ── reads ────────────────────────────────────────────────────────────────────────────────
    const perTicket = (verb: 'status' | 'explain' | 'log' | 'ticket-view') =>
      async (req: FastifyRequest<{ Params: { ticket: string } }>, res: FastifyReply): Promise<unknown> => {
        try {
          authorizeRead(o.authorship, req);
          const q = valid(READ_QUERY, req.query, 'query');
          valid(TICKET, req.params.ticket, 'ticket');
          const id = await route(req, res, req.params.ticket, (full) => gw!.forward(full, 'GET', `/api/${verb}/${full}${query(req.url)}`, undefined, authHeader(req)));
          if (id === undefined) return res;
          return answer(
            res,
            async () => {
              if (verb === 'status') {
                const r = await svc.statusJson(id, atOf(q));
                return send(res, r, r.value.json);
              }
              if (verb === 'explain') {
                const r = await svc.explain(id, { ...atOf(q), ...(q.actor !== undefined ? { forActor: q.actor } : {}) });
                return send(res, r, r.value.json);
              }
              if (verb === 'ticket-view') {
                const r = await svc.ticketView(id, atOf(q));
                return send(res, r, r.value.json);
              }
              const r = await svc.log(id);
              return send(res, r, r.value.json);
            },
            siblings(req, 'GET', `/api/${verb}/${id}${query(req.url)}`),
          );
        } catch (e) {
          return fail(res, e);
        }
      };
    app.get<{ Params: { ticket: string } }>('/api/status/:ticket', perTicket('status'));
    app.get<{ Params: { ticket: string } }>('/api/explain/:ticket', perTicket('explain'));
    app.get<{ Params: { ticket: string } }>('/api/log/:ticket', perTicket('log'));
    app.get<{ Params: { ticket: string } }>('/api/ticket-view/:ticket', perTicket('ticket-view'));
    app.get('/api/whoami', async (req, res) => {
      try {
        return res.type('application/json; charset=utf-8').send(pretty(whoAmI(o.authorship, req)));
      } catch (e) {
        return fail(res, e);
      }
    });
    app.get('/api/board', async (req, res) => {
      try {
        authorizeRead(o.authorship, req);
        const q = valid(READ_QUERY, req.query, 'query');
        const where = whereOf(q);
        const at = atOf(q);
        if (gw) {
          // The shards' rows are derived at their own clocks: a past instant cannot be honoured.
          if (at.at !== undefined) throw new TikError('server/bad-request', 'a sharded replica cannot derive the tickets it gathers at another instant', { where: 'query.at', hint: 'use tik status --at against the store, or a replica of the whole store' });
          const { rows, skipped } = await gw.lsAllRows();
          const board = boardFromRows(truthy(q.all) ? rows : rows.filter((r) => r.settled !== true), skipped, svc.clock.now(), await svc.store.listProcesses());
          return res.type('application/json; charset=utf-8').send(pretty(board));
        }
        const r = await svc.boardView({ all: truthy(q.all), ...at, ...(where !== undefined ? { where } : {}) });
        return send(res, r, r.value);
      } catch (e) {
        return fail(res, e);
      }
    });
    app.get('/api/next', async (req, res) => {
      try {
        authorizeRead(o.authorship, req);
        const q = valid(READ_QUERY, req.query, 'query');
        if (gw) return sendAnswer(res, await gw.gatherNext({ ...(q.actor ? { actor: q.actor } : {}), ...(q.role ? { role: q.role } : {}), all: truthy(q.all) }));
        const r = await svc.next({ ...(q.actor ? { actor: q.actor } : {}), ...(q.role ? { role: q.role } : {}), all: truthy(q.all) });
        return send(res, r, r.value.json);
      } catch (e) {
        return fail(res, e);
      }
    });
    app.get('/api/ls', async (req, res) => {
      try {
        authorizeRead(o.authorship, req);
        const q = valid(READ_QUERY, req.query, 'query');
        const where = whereOf(q);
        if (gw) return sendAnswer(res, await gw.gatherLs(truthy(q.all)));
        const r = await svc.ls({ all: truthy(q.all), ...(where !== undefined ? { where } : {}) });
        // The body stays the CLI's array; the tickets left out are named in a header too.
        if (r.value.skipped.length > 0) res.header('tik-skipped', JSON.stringify(r.value.skipped.map((s) => ({ ticket: s.ticket, code: s.code }))));
        return send(res, r, r.value.rows);
      } catch (e) {
        return fail(res, e);
      }
    });

    // ── writes ───────────────────────────────────────────────────────────────────────────────
    /** Authenticate, route to the owning shard, run. `requested` is the body's actor (if any). */
    const write = async (req: FastifyRequest, res: FastifyReply, op: WriteOp, requested: string | undefined): Promise<unknown> => {
      const as = authorizeWrite(o.authorship, req, requested);
      if ('ticket' in op) {
        const id = await route(req, res, op.ticket, (full) => {
          const t = typedRequest({ ...op, ticket: full }, as);
          return gw!.forward(full, 'POST', t.path, t.body, authHeader(req));
        });
        if (id === undefined) return res;
        const here = { ...op, ticket: id };
        const t = typedRequest(here, as);
        return answer(res, async () => send(res, ...withBody(await execute(svc, as, here))), siblings(req, 'POST', t.path, t.body));
      }
      return send(res, ...withBody(await execute(svc, as, op)));
    };
    const withBody = (r: Outcome<unknown>): [Outcome<unknown>, unknown] => [r, r.value];
    const jsonRoute = { bodyLimit: JSON_BODY_LIMIT };
    const ticketOf = (req: FastifyRequest<{ Params: { ticket: string } }>): string => valid(TICKET, req.params.ticket, 'ticket');

    app.post('/api/tickets', jsonRoute, async (req, res) => {
      try {
        const b = valid(BODIES.new, req.body, 'body');
        return await write(req, res, { verb: 'new', process: b.process, title: b.title }, b.actor);
      } catch (e) {
        return fail(res, e);
      }
    });
    const ticketWrite = <K extends 'set' | 'retract' | 'dispute' | 'comment' | 'attest'>(path: string, kind: K, toOp: (ticket: string, b: z.infer<(typeof BODIES)[K]>) => WriteOp) =>
      app.post<{ Params: { ticket: string } }>(`/api/tickets/:ticket/${path}`, jsonRoute, async (req, res) => {
        try {
          const b = valid(BODIES[kind], req.body, 'body') as z.infer<(typeof BODIES)[K]>;
          return await write(req, res, toOp(ticketOf(req), b), b.actor);
        } catch (e) {
          return fail(res, e);
        }
      });
    ticketWrite('facts', 'set', (ticket, b) => ({ verb: 'set', ticket, facts: (b as z.infer<typeof BODIES.set>).facts }));
    ticketWrite('retract', 'retract', (ticket, b) => ({ verb: 'retract', ticket, key: (b as z.infer<typeof BODIES.retract>).key, reason: (b as z.infer<typeof BODIES.retract>).reason }));
    ticketWrite('dispute', 'dispute', (ticket, b) => {
      const d = b as z.infer<typeof BODIES.dispute>;
      return { verb: 'dispute', ticket, key: d.key, reason: d.reason, withdraw: d.withdraw };
    });
    ticketWrite('comments', 'comment', (ticket, b) => ({ verb: 'comment', ticket, text: (b as z.infer<typeof BODIES.comment>).text }));
    ticketWrite('attestations', 'attest', (ticket, b) => ({ verb: 'attest', ticket, claim: (b as z.infer<typeof BODIES.attest>).claim, body: (b as z.infer<typeof BODIES.attest>).body }));

    // Attach by upload: the raw bytes are the body; the artifact path is the rest of the URL.
    app.register(async (upload) => {
      // Every content type is raw bytes here (the JSON and text parsers would turn them into values).
      upload.removeAllContentTypeParsers();
      upload.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ATTACH_BODY_LIMIT }, (_req, body, done) => done(null, body));
      upload.put<{ Params: { ticket: string; '*': string }; Querystring: { actor?: string } }>('/api/tickets/:ticket/artifacts/*', { bodyLimit: ATTACH_BODY_LIMIT }, async (req, res) => {
        try {
          const ticket = ticketOf(req);
          const path = valid(ATTACH_PATH, req.params['*'], 'path');
          const requested = valid(actor, req.query.actor, 'actor');
          const as = authorizeWrite(o.authorship, req, requested);
          const id = gw ? await gw.resolve(ticket) : ticket;
          if (gw && !gw.owns(id)) throw new TikError('shard/misdirected', `ticket ${id} belongs to shard ${gw.ownerOf(id)}/${gw.shard.count}`, { where: 'ticket', hint: 'upload to a replica of the owning shard' });
          const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          return send(res, ...withBody(await svc.attach({ actor: as, ticket: id, path, bytes })));
        } catch (e) {
          return fail(res, e);
        }
      });
    });

    // The old form: `{args}` parsed strictly (never by commander) into the same typed writes.
    app.post<{ Params: { verb: string } }>('/api/:verb', jsonRoute, async (req, res) => {
      try {
        const verb = req.params.verb;
        if (!(WRITE_VERBS as readonly string[]).includes(verb)) {
          throw new TikError('server/unknown-verb', `no write verb ${JSON.stringify(verb)}`, { where: 'verb', hint: `one of ${WRITE_VERBS.join(', ')}; attach by PUT /api/tickets/:ticket/artifacts/<path>` });
        }
        const b = valid(BODIES.legacy, req.body, 'body');
        return await write(req, res, parseWriteArgs(verb as WriteOp['verb'], b.args), b.actor);
      } catch (e) {
        return fail(res, e);
      }
    });
  };
}
