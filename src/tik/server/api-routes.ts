import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FORWARDED_HEADER } from '../shard/shard-directory.js';
import { shardText } from '../shard/shard-spec.js';
import { runVerb, verbError, type VerbEnv } from './run-verb.js';
import { errorAnswer, type Answer, type ShardGateway } from './shard-gateway.js';
import { sendAnswer } from './shard-routes.js';

/** Write verbs the API accepts (`attach` is excluded: it reads a file from the server's disk). */
export const WRITE_VERBS = Object.freeze(['new', 'set', 'retract', 'dispute', 'comment', 'attest']);
/** Options a write may carry; everything else starting with `-` is refused (no `--root` games). */
const WRITE_OPTIONS = new Set(['--title', '--reason', '--withdraw', '--body']);
/** The write options that take a value (the others are flags). */
const VALUE_OPTIONS = new Set(['--title', '--reason', '--body']);

/** The first argument that looks like an option and is not an allowed one (an option's value may start with '-': `--title -42`). */
function badOption(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (VALUE_OPTIONS.has(args[i]!)) i++;
    else if (args[i]!.startsWith('-') && !WRITE_OPTIONS.has(args[i]!)) return args[i];
  }
  return undefined;
}

/** The index in `args` of the first positional argument (the ticket of every write verb but `new`). */
function firstPositional(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    if (VALUE_OPTIONS.has(args[i]!)) i++;
    else if (!args[i]!.startsWith('-')) return i;
  }
  return -1;
}

interface ReadQuery {
  at?: string;
  actor?: string;
  role?: string;
  all?: string;
}

/**
 * The read API (`GET /api/status/:ticket`, `explain`, `log`, `next`, `ls`; bodies are exactly
 * `tik <verb> --json`) and the write API (`POST /api/<verb>` with `{args, actor}`; the answer is
 * the verb's `--json`). Shapes: docs/tik.md; routes: docs/tik-sync.md. With a shard gateway, a
 * request about a ticket of another shard is passed to that shard, and `ls`/`next` gather every shard.
 */
export function apiRoutes(v: VerbEnv, gw?: ShardGateway) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    /** Runs the verb here; an "unknown ticket" may instead be answered by `elsewhere` (a sibling replica that has it). */
    const reply = async (res: FastifyReply, actor: string | undefined, argv: string[], elsewhere?: () => Promise<Answer | undefined>): Promise<unknown> => {
      const r = await runVerb(v, actor, [...argv, '--json']);
      if (r.code !== 0) {
        const e = verbError(r);
        const other = e.status === 404 && elsewhere ? await elsewhere() : undefined;
        if (other !== undefined && other.status !== 404) return sendAnswer(res, other);
        return res.code(e.status).send(e.body);
      }
      return res.type('application/json').send(r.stdout);
    };
    const readOpts = (q: ReadQuery, allowed: readonly (keyof ReadQuery)[]): string[] => {
      const out: string[] = [];
      if (allowed.includes('at') && q.at) out.push('--at', q.at);
      if (allowed.includes('role') && q.role) out.push('--role', q.role);
      if (allowed.includes('all') && q.all !== undefined && q.all !== 'false') out.push('--all');
      return out;
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
    const query = (url: string): string => (url.includes('?') ? url.slice(url.indexOf('?')) : '');
    /** For a request made here (not forwarded), the same request at this shard's other replicas. */
    const siblings = (req: FastifyRequest, method: 'GET' | 'POST', path: string, body?: unknown): (() => Promise<Answer | undefined>) | undefined =>
      gw && req.headers[FORWARDED_HEADER] === undefined ? () => gw.askSiblings(method, path, body) : undefined;
    const perTicket = (verb: 'status' | 'explain' | 'log', withAt: boolean) =>
      async (req: FastifyRequest<{ Params: { ticket: string }; Querystring: ReadQuery }>, res: FastifyReply): Promise<unknown> => {
        const id = await route(req, res, req.params.ticket, (full) => gw!.forward(full, 'GET', `/api/${verb}/${full}${query(req.url)}`));
        if (id === undefined) return res;
        return reply(res, req.query.actor, [verb, id, ...(withAt ? readOpts(req.query, ['at']) : [])], siblings(req, 'GET', `/api/${verb}/${id}${query(req.url)}`));
      };
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/status/:ticket', perTicket('status', true));
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/explain/:ticket', perTicket('explain', true));
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/log/:ticket', perTicket('log', false));
    const all = (q: ReadQuery): boolean => q.all !== undefined && q.all !== 'false';
    app.get<{ Querystring: ReadQuery }>('/api/next', async (req, res) =>
      gw
        ? sendAnswer(res, await gw.gatherNext({ ...(req.query.actor ? { actor: req.query.actor } : {}), ...(req.query.role ? { role: req.query.role } : {}), all: all(req.query) }))
        : reply(res, req.query.actor, ['next', ...readOpts(req.query, ['role', 'all'])]),
    );
    app.get<{ Querystring: ReadQuery }>('/api/ls', async (req, res) => (gw ? sendAnswer(res, await gw.gatherLs(all(req.query))) : reply(res, undefined, ['ls', ...readOpts(req.query, ['all'])])));

    app.post<{ Params: { verb: string }; Body: { args?: unknown; actor?: unknown } }>(
      '/api/:verb',
      {
        schema: {
          body: {
            type: 'object',
            required: ['args'],
            additionalProperties: false,
            properties: { args: { type: 'array', items: { type: 'string' }, maxItems: 4096 }, actor: { type: 'string', minLength: 1 } },
          },
        },
      },
      async (req, res) => {
        const { verb } = req.params;
        if (!WRITE_VERBS.includes(verb)) {
          return res.code(404).send({ error: { code: 'server/unknown-verb', message: `no write verb ${JSON.stringify(verb)}`, hint: `one of ${WRITE_VERBS.join(', ')}` } });
        }
        const args = req.body.args as string[];
        const bad = badOption(args);
        if (bad !== undefined) {
          return res.code(400).send({ error: { code: 'server/bad-option', message: `option ${JSON.stringify(bad)} is not accepted by the write API`, hint: `allowed: ${[...WRITE_OPTIONS].join(' ')}` } });
        }
        const actor = typeof req.body.actor === 'string' ? req.body.actor : undefined;
        const at = verb === 'new' ? -1 : firstPositional(args);
        if (at >= 0) {
          const id = await route(req, res, args[at]!, (full) =>
            gw!.forward(full, 'POST', `/api/${verb}`, { args: args.map((a, i) => (i === at ? full : a)), ...(actor !== undefined ? { actor } : {}) }),
          );
          if (id === undefined) return res;
          args[at] = id;
          return reply(res, actor, [verb, ...args], siblings(req, 'POST', `/api/${verb}`, { args, ...(actor !== undefined ? { actor } : {}) }));
        }
        return reply(res, actor, [verb, ...args]);
      },
    );
  };
}
