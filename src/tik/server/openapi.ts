import { z } from 'zod';
import { ACTOR, ATTACH_LIMIT_TEXT, ATTACH_PATH, BODIES, READ_QUERY, TICKET } from './api-schemas.js';

type Json = Record<string, unknown>;

/** A zod schema as a JSON Schema (2020-12, as OpenAPI 3.1 takes it), without the `$schema` line. */
const schemaOf = (s: z.ZodType): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
};

/** The shape of every error answer (`errorReply`); described here, not validated. */
const ERROR = z.object({ error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }) });

const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } });
const errors: Json = Object.fromEntries(
  [
    ['400', 'bad input (`input/invalid` names the field), usage'],
    ['401', '`auth/unauthenticated`: no token, or one the replica does not accept'],
    ['403', '`auth/forbidden`, `auth/writes-disabled`, `auth/signed-only`'],
    ['404', 'unknown ticket, process or route'],
    ['409', 'ambiguous ticket prefix'],
    ['413', 'body too large'],
    ['421', '`server/bad-host`, `shard/misdirected`'],
    ['422', 'a refused write, an unreadable ticket'],
    ['503', 'a shard or the store unavailable'],
  ].map(([code, description]) => [code, { description, ...json({ $ref: '#/components/schemas/Error' }) }]),
);
const query = (...names: (keyof typeof READ_QUERY.shape)[]): Json[] => names.map((name) => ({ name, in: 'query', required: false, schema: schemaOf(READ_QUERY.shape[name]) }));
const ticketParam: Json = { name: 'ticket', in: 'path', required: true, description: 'a ticket id or unique prefix', schema: schemaOf(TICKET) };
const read = (summary: string, parameters: Json[]): Json => ({ get: { summary, parameters, responses: { 200: { description: 'exactly what the CLI prints with --json (warnings in the tik-warnings header)', content: { 'application/json': {} } }, ...errors } } });
/** A read that is no CLI verb's --json: its answer is described in words. */
const own = (summary: string, parameters: Json[]): Json => ({ get: { summary, parameters, responses: { 200: { description: summary, content: { 'application/json': {} } }, ...errors } } });
const write = (summary: string, body: z.ZodType, withTicket: boolean): Json => ({
  post: {
    summary,
    ...(withTicket ? { parameters: [ticketParam] } : {}),
    requestBody: { required: true, ...json(schemaOf(body)) },
    responses: { 200: { description: withTicket ? '{ticket, events: [{id, type, at}]}' : '{ticket, event, process: {id, version, hash}}', content: { 'application/json': {} } }, ...errors },
  },
});

/**
 * The OpenAPI 3.1 description of the typed HTTP API (`GET /api/openapi.json`). Request bodies and
 * query parameters are generated from the zod schemas the routes validate with (`api-schemas.ts`);
 * answers are described in words (they are the CLI's `--json` output, documented in docs/tik.md).
 */
export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: { title: 'tik serve', version: '1', description: 'The read and write API of a tik replica (docs/tik-sync.md). Who may write is the replica’s policy: see docs/tik-sync.md#security.' },
    security: [{}, { bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a token listed (by its sha256) in the replica’s --tokens file; under --tokens, required for every call but /health and /api/openapi.json' } },
      schemas: { Error: schemaOf(ERROR) },
    },
    paths: {
      '/api/status/{ticket}': read('tik status', [ticketParam, ...query('at')]),
      '/api/explain/{ticket}': read('tik explain', [ticketParam, ...query('at', 'actor')]),
      '/api/log/{ticket}': read('tik log', [ticketParam]),
      '/api/next': read('tik next', query('actor', 'role', 'all')),
      '/api/ls': read('tik ls (where: a selector, as tik ls --where)', query('all', 'where')),
      '/api/board': own('the browser board: {at, processes: [{process, version, stages}], cards: [{ticket, title, process, version, current, settled, conflicted, disputed, created, updated, ageMs, blockers: [{stage, impossible, missing: [text]}], missingParents}], skipped, definitions} (docs/tik-board.md)', query('all', 'where', 'at')),
      '/api/ticket-view/{ticket}': own('the browser ticket page: status, blocks with what is missing and who can supply it, facts (with resolve for a conflict or dispute), the log with stage transitions and comment texts, the process as SVG (docs/tik-board.md)', [ticketParam, ...query('at')]),
      '/api/whoami': own('the caller: {mode, principal, actors, writes} (actors: who a write may name)', []),
      '/api/tickets': write('tik new', BODIES.new, false),
      '/api/tickets/{ticket}/facts': write('tik set', BODIES.set, true),
      '/api/tickets/{ticket}/retract': write('tik retract', BODIES.retract, true),
      '/api/tickets/{ticket}/dispute': write('tik dispute', BODIES.dispute, true),
      '/api/tickets/{ticket}/comments': write('tik comment', BODIES.comment, true),
      '/api/tickets/{ticket}/attestations': write('tik attest', BODIES.attest, true),
      '/api/tickets/{ticket}/artifacts/{path}': {
        put: {
          summary: 'tik attach (the body is the file)',
          parameters: [ticketParam, { name: 'path', in: 'path', required: true, description: 'the artifact path (may contain /)', schema: schemaOf(ATTACH_PATH) }, { name: 'actor', in: 'query', required: false, schema: schemaOf(ACTOR) }],
          requestBody: { required: true, description: ATTACH_LIMIT_TEXT, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
          responses: { 200: { description: '{ticket, events: [{id, type, at}]}', content: { 'application/json': {} } }, ...errors },
        },
      },
    },
  };
}
