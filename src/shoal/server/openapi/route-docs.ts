/**
 * What each HTTP route of `shoal serve` does, answers and refuses, in words and JSON Schema: the
 * hand-written half of the OpenAPI document (openapi-document.ts adds what the routes declare
 * themselves: their body and query-string schemas). Keyed by `METHOD /path` as Fastify registers
 * the route (`:id` parameters). A registered route without an entry here is a defect the OpenAPI
 * test reports.
 */
import { z } from 'zod';
import { columnSchema, rlsRuleSchema, roleSchema, sourceSchema, tableSchema } from '../../config/config-schema.js';

export type Json = Record<string, unknown>;

/** Who may call a route: nobody needs credentials for `public`; `admin` and `query` need a granted role with that capability. */
export type Access = 'public' | 'authenticated' | 'query' | 'admin';

export interface ResponseDoc {
  readonly description: string;
  /** JSON Schema of a JSON answer; absent for a non-JSON answer (`contentType`). */
  readonly schema?: Json;
  readonly contentType?: string;
}

export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  readonly access: Access;
  /** A request body the handler validates itself (the route declares none to Fastify). */
  readonly body?: Json;
  /** Query-string parameters the handler reads itself. */
  readonly query?: readonly { readonly name: string; readonly description: string; readonly schema: Json }[];
  /** Answers other than the error shape, by status. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Error statuses (the `Error` shape) besides those every route of its access level can answer. */
  readonly errors?: readonly number[];
}

const fromZod = (s: z.ZodType): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
};

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const nullable = (s: Json): Json => ({ anyOf: [s, { type: 'null' }] });
const obj = (properties: Record<string, Json>, required: readonly string[] = Object.keys(properties), extra = true): Json => ({
  type: 'object',
  properties,
  required: [...required],
  ...(extra ? {} : { additionalProperties: false }),
});
const arr = (items: Json): Json => ({ type: 'array', items });
const ok = (description: string, schema?: Json): ResponseDoc => (schema ? { description, schema } : { description });
const anyObject: Json = { type: 'object' };

const mutation = obj({ epoch: int, changed: bool, changes: arr(str) });
const mutated: Record<number, ResponseDoc> = { 200: ok('the registry after the change: its epoch (bumped once when anything changed) and one line per changed entity', mutation) };
/** Catalog mutations: refused while the config file owns the catalog, under a stale If-Match, or when inconsistent. */
const MUTATION_ERRORS = [400, 404, 409, 412, 422] as const;

const token = obj({
  id: str, name: str, roles: arr(str), default_role: nullable(str), vars: { type: 'object', additionalProperties: str },
  created_by: str, created_at: str, expires_at: nullable(str), revoked_at: nullable(str),
});
const user = obj({ username: str, roles: arr(str), default_role: nullable(str), vars: { type: 'object', additionalProperties: str }, created_at: str });
const column = obj({ name: str, type: str });
const sqlResult = obj({ columns: arr(column), rows: arr({ type: 'array' }) });
const graphqlAnswer = obj(
  {
    data: nullable(anyObject),
    errors: arr(obj({ message: str, locations: arr(obj({ line: int, column: int })), path: arr({ type: ['string', 'integer'] }), extensions: obj({ code: str, hint: str }, ['code']) }, ['message', 'extensions'])),
  },
  [],
);
/** What both GraphQL routes answer: GraphQL's own shape, after authentication. */
const graphqlAnswers = {
  access: 'query',
  responses: { 200: ok('`data`, and `errors` for fields that failed', graphqlAnswer), 400: ok('the query does not parse, validate or fit the bounds', graphqlAnswer), 403: ok('the role is not granted or lacks `query_development`', graphqlAnswer) },
  errors: [429, 503],
} as const;
const mvLogQuery = [{ name: 'limit', description: 'entries to return, newest first (1 to 10000, default 100)', schema: { type: 'string', pattern: '^[0-9]+$' } }];

export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = {
  'GET /live': { summary: 'liveness probe', access: 'public', responses: { 200: ok('the process answers', obj({ status: { const: 'ok' } })) } },
  'GET /ready': {
    summary: 'readiness probe',
    access: 'public',
    responses: { 200: ok('the catalog is built', obj({ status: { const: 'ready' } })), 503: ok('still building the catalog', obj({ status: { const: 'warming' } })) },
  },
  'GET /health': {
    summary: 'dependency health and how callers are authenticated',
    access: 'public',
    responses: {
      200: ok('every dependency answers', obj({ status: { const: 'ok' }, dependencies: { type: 'object', additionalProperties: { enum: ['ok', 'unavailable', 'replaced'] } }, auth: obj({ provider: str, warning: str }, ['provider']) })),
      503: ok('a dependency is down (`degraded`)', obj({ status: { const: 'degraded' }, dependencies: anyObject, auth: anyObject })),
    },
  },
  'GET /metrics': { summary: 'Prometheus metrics', access: 'authenticated', responses: { 200: { description: 'Prometheus text format 0.0.4', contentType: 'text/plain' } } },
  'GET /openapi.json': { summary: 'this document', access: 'public', responses: { 200: ok('OpenAPI 3.1', obj({ openapi: str, paths: anyObject })) } },
  'GET /': { summary: 'the console (HTML)', description: 'The web console: SQL editor, results, catalog, MV and cache status (docs/shoal.md, "Console"). It signs in with the API\'s own credentials; the page itself holds no data.', access: 'public', responses: { 200: { description: 'the console page', contentType: 'text/html' } } },
  'GET /console/app.js': { summary: 'the console\'s script', access: 'public', responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } } },
  'GET /console/style.css': { summary: 'the console\'s stylesheet', access: 'public', responses: { 200: { description: 'CSS', contentType: 'text/css' } } },
  'GET /auth/whoami': {
    summary: 'who the credentials are and the roles they may act as',
    access: 'authenticated',
    responses: { 200: ok('each granted role with its capabilities (a `*` principal: every registered role)', obj({ id: str, kind: str, default_role: nullable(str), roles: arr(obj({ id: str, capabilities: arr(str) })) })) },
  },
  'POST /data/sql': {
    summary: 'run one governed SQL query',
    description: 'The role is `role`, else `X-Provisa-Role`, else the caller\'s default role. `Accept: application/x-ndjson` streams `{"columns"}` then one JSON array per row; `Accept: text/csv` streams CSV with a header row. Decimals are strings with their scale; integers past 2^53 are strings.',
    access: 'query',
    responses: { 200: ok('the result', sqlResult) },
    errors: [400, 404, 413, 429, 499, 502, 503, 504],
  },
  'GET /data/catalog': {
    summary: 'the tables and columns the role may query',
    access: 'query',
    responses: { 200: ok('hidden tables and columns are absent', obj({ role: str, epoch: nullable(int), tables: arr(obj({ table: str, schema: str, name: str, columns: arr(obj({ name: str, type: str, masked: bool })) })) })) },
    errors: [404, 503],
  },
  'POST /graphql': {
    summary: 'a GraphQL query over the role\'s schema',
    description: 'GraphQL over HTTP: `{query, variables?, operationName?}`. The schema is generated per role and registry epoch (introspect it). Answers and refusals after authentication are in GraphQL\'s shape with the shoal code in `errors[].extensions.code`: 400 when the query does not parse, validate or fit the bounds, the code\'s status when the role is refused, else 200 with `data` and any field `errors`.',
    ...graphqlAnswers,
  },
  'GET /graphql': {
    summary: 'a GraphQL query in the URL',
    description: 'As `POST /graphql`, with `query`, `variables` (URL-encoded JSON) and `operationName` as query-string parameters.',
    ...graphqlAnswers,
  },
  'GET /admin/epoch': { summary: 'the registry epoch and who owns the catalog', access: 'admin', responses: { 200: ok('also sent as the ETag', obj({ epoch: int, catalog: { enum: ['config', 'registry'] } })) } },
  'GET /admin/cache': { summary: 'the hot-table tier\'s status', access: 'admin', responses: { 200: ok('`hot` is null when hot tables are off', obj({ hot: nullable(obj({ backend: str, healthy: bool, tables: arr(anyObject) })) })) } },
  'POST /admin/cache/invalidate': {
    summary: 'drop cached copies of one table, or of all',
    access: 'admin',
    body: obj({ table: str }, [], false),
    responses: { 200: ok('`propagated` is false when the shared backend was unreachable', obj({ invalidated: str, propagated: bool })) },
    errors: [400],
  },
  'GET /admin/sources': { summary: 'registered sources', access: 'admin', responses: { 200: ok('sources as the config writes them (passwords as ${env:VAR} references)', arr(anyObject)) } },
  'GET /admin/sources/:id': { summary: 'one source', access: 'admin', responses: { 200: ok('the source', anyObject) }, errors: [404] },
  'POST /admin/sources': { summary: 'register a source', description: 'File sources only under `admin.file_roots`, database sources only at `admin.allowed_hosts`.', access: 'admin', body: fromZod(sourceSchema), responses: mutated, errors: MUTATION_ERRORS },
  'PUT /admin/sources/:id': { summary: 'replace a source', access: 'admin', body: fromZod(sourceSchema), responses: mutated, errors: MUTATION_ERRORS },
  'DELETE /admin/sources/:id': { summary: 'drop a source (refused while tables use it)', access: 'admin', responses: mutated, errors: MUTATION_ERRORS },
  'GET /admin/tables': { summary: 'registered tables', access: 'admin', responses: { 200: ok('tables with their columns', arr(anyObject)) } },
  'GET /admin/tables/:ref': { summary: 'one table (by id, qualified or physical name)', access: 'admin', responses: { 200: ok('the table', anyObject) }, errors: [404] },
  'POST /admin/tables': {
    summary: 'register a table or view, with its RLS rules',
    access: 'admin',
    body: { ...fromZod(tableSchema), properties: { ...(fromZod(tableSchema).properties as Json), rls_rules: arr(obj({ role_id: str, filter: str }, ['role_id', 'filter'], false)) } },
    responses: mutated,
    errors: MUTATION_ERRORS,
  },
  'DELETE /admin/tables/:ref': { summary: 'drop a table (refused while RLS rules or relationships use it)', access: 'admin', responses: mutated, errors: MUTATION_ERRORS },
  'PUT /admin/tables/:ref/columns/:name': { summary: 'add or replace a column', access: 'admin', body: fromZod(columnSchema), responses: mutated, errors: MUTATION_ERRORS },
  'DELETE /admin/tables/:ref/columns/:name': { summary: 'drop a column', access: 'admin', responses: mutated, errors: MUTATION_ERRORS },
  'GET /admin/roles': { summary: 'registered roles', access: 'admin', responses: { 200: ok('roles', arr(anyObject)) } },
  'GET /admin/roles/:id': { summary: 'one role', access: 'admin', responses: { 200: ok('the role', anyObject) }, errors: [404] },
  'POST /admin/roles': { summary: 'register a role', access: 'admin', body: fromZod(roleSchema), responses: mutated, errors: MUTATION_ERRORS },
  'PUT /admin/roles/:id': { summary: 'replace a role', access: 'admin', body: fromZod(roleSchema), responses: mutated, errors: MUTATION_ERRORS },
  'DELETE /admin/roles/:id': { summary: 'drop a role', access: 'admin', responses: mutated, errors: MUTATION_ERRORS },
  'GET /admin/rls': { summary: 'RLS rules', access: 'admin', responses: { 200: ok('rules', arr(anyObject)) } },
  'POST /admin/rls': { summary: 'add or replace an RLS rule', access: 'admin', body: fromZod(rlsRuleSchema), responses: mutated, errors: MUTATION_ERRORS },
  'PUT /admin/rls/:kind/:target/:role': { summary: 'replace the filter of a rule (`kind` is table or domain)', access: 'admin', body: obj({ filter: str }, ['filter'], false), responses: mutated, errors: MUTATION_ERRORS },
  'DELETE /admin/rls/:kind/:target/:role': { summary: 'drop a rule', access: 'admin', responses: mutated, errors: MUTATION_ERRORS },
  'GET /admin/mv': { summary: 'materialized views and their refresh state', access: 'admin', responses: { 200: ok('MVs', obj({ writer: str, stats: anyObject, mvs: arr(obj({ id: str, consistency: str }, ['id', 'consistency'])) })) }, errors: [503] },
  'GET /admin/mv/:id': { summary: 'one MV: its refresh-catalog row', access: 'admin', responses: { 200: ok('the row (shared) or the local state (distributed)', obj({ id: str }, ['id'])) }, errors: [404, 503] },
  'POST /admin/mv/:id/refresh': {
    summary: 'refresh one MV now',
    access: 'admin',
    query: [{ name: 'force', description: 'refresh even when the inputs did not change (true or false)', schema: { enum: ['true', 'false'] } }],
    responses: { 200: ok('`outcome` says what happened', obj({ id: str, writer: str, outcome: { enum: ['refreshed', 'skipped', 'lost_lease', 'failed'] } })) },
    errors: [400, 404, 503],
  },
  'GET /admin/mv/:id/log': { summary: 'one MV\'s refresh log', access: 'admin', query: mvLogQuery, responses: { 200: ok('entries, newest first', obj({ id: str, entries: arr(anyObject) })) }, errors: [400, 404, 503] },
  'GET /admin/audit': {
    summary: 'the fleet\'s audit log, newest first',
    access: 'admin',
    query: ['principal', 'outcome', 'role', 'since', 'until', 'before', 'limit'].map((name) => ({ name, description: name === 'since' || name === 'until' ? 'an ISO-8601 instant or epoch milliseconds' : name === 'before' ? 'a record id (the previous page\'s next_before)' : name === 'limit' ? 'records per page (1 to 1000, default 100)' : `only records of this ${name}`, schema: str })),
    responses: { 200: ok('one page; `next_before` pages on', obj({ records: arr(obj({ id: int, at: str, principal: str, path: str, status: int, outcome: str }, ['id', 'at', 'path', 'status', 'outcome'])), next_before: nullable(int) })) },
    errors: [400, 404, 503],
  },
  'GET /admin/tokens': { summary: 'access tokens (never their secrets)', access: 'admin', responses: { 200: ok('tokens', obj({ tokens: arr(token) })) }, errors: [503] },
  'POST /admin/tokens': { summary: 'mint an access token', access: 'admin', responses: { 201: ok('`token` is the secret, shown this once', { ...token, properties: { ...(token.properties as Json), token: str }, required: [...(token.required as string[]), 'token'] }) }, errors: [400, 503] },
  'DELETE /admin/tokens/:id': { summary: 'revoke a token (on every instance)', access: 'admin', responses: { 200: ok('revoked', obj({ id: str, revoked: { const: true } })) }, errors: [404, 503] },
  'GET /admin/users': { summary: 'users for `provider: basic` (never their hashes)', access: 'admin', responses: { 200: ok('users', obj({ users: arr(user) })) }, errors: [503] },
  'POST /admin/users': { summary: 'add a user', access: 'admin', responses: { 201: ok('the user', user) }, errors: [400, 409, 503] },
  'DELETE /admin/users/:username': { summary: 'remove a user', access: 'admin', responses: { 200: ok('removed', obj({ username: str, removed: { const: true } })) }, errors: [404, 503] },
};
