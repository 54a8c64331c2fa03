import type { FastifyInstance, FastifyReply } from 'fastify';
import { runVerb, verbError, type VerbEnv } from './run-verb.js';

/** Write verbs the API accepts (`attach` is excluded: it reads a file from the server's disk). */
export const WRITE_VERBS = Object.freeze(['new', 'set', 'retract', 'dispute', 'comment', 'attest']);
/** Options a write may carry; everything else starting with `-` is refused (no `--root` games). */
const WRITE_OPTIONS = new Set(['--title', '--reason', '--withdraw', '--body']);

interface ReadQuery {
  at?: string;
  actor?: string;
  role?: string;
  all?: string;
}

/**
 * The read API (`GET /api/status/:ticket`, `explain`, `log`, `next`, `ls`; bodies are exactly
 * `tik <verb> --json`) and the write API (`POST /api/<verb>` with `{args, actor}`; the answer is
 * the verb's `--json`). Shapes: docs/tik.md; routes: docs/tik-sync.md.
 */
export function apiRoutes(v: VerbEnv) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const reply = async (res: FastifyReply, actor: string | undefined, argv: string[]): Promise<unknown> => {
      const r = await runVerb(v, actor, [...argv, '--json']);
      if (r.code !== 0) {
        const e = verbError(r);
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
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/status/:ticket', (req, res) =>
      reply(res, req.query.actor, ['status', req.params.ticket, ...readOpts(req.query, ['at'])]),
    );
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/explain/:ticket', (req, res) =>
      reply(res, req.query.actor, ['explain', req.params.ticket, ...readOpts(req.query, ['at'])]),
    );
    app.get<{ Params: { ticket: string }; Querystring: ReadQuery }>('/api/log/:ticket', (req, res) => reply(res, req.query.actor, ['log', req.params.ticket]));
    app.get<{ Querystring: ReadQuery }>('/api/next', (req, res) => reply(res, req.query.actor, ['next', ...readOpts(req.query, ['role', 'all'])]));
    app.get<{ Querystring: ReadQuery }>('/api/ls', (req, res) => reply(res, undefined, ['ls', ...readOpts(req.query, ['all'])]));

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
        const bad = args.find((a) => a.startsWith('-') && !WRITE_OPTIONS.has(a));
        if (bad !== undefined) {
          return res.code(400).send({ error: { code: 'server/bad-option', message: `option ${JSON.stringify(bad)} is not accepted by the write API`, hint: `allowed: ${[...WRITE_OPTIONS].join(' ')}` } });
        }
        return reply(res, typeof req.body.actor === 'string' ? req.body.actor : undefined, [verb, ...args]);
      },
    );
  };
}
