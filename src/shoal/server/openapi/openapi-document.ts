/**
 * The OpenAPI 3.1 document of the routes one app registered: each route's own body and query
 * schemas (what Fastify validates) merged with its entry in ROUTE_DOCS (what it does, answers and
 * refuses), and one `Error` shape whose `code` is every shoal error code.
 */
import { SHOAL_ERROR_STATUS } from '../../error-codes.js';
import { ROUTE_DOCS, type Access, type Json, type RouteDoc } from './route-docs.js';

/** A registered route as the onRoute hook saw it. */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly schema?: { readonly body?: unknown; readonly querystring?: unknown };
}

/** Statuses every route of an access level can answer with the Error shape. */
const ACCESS_ERRORS: Readonly<Record<Access, readonly number[]>> = {
  public: [],
  authenticated: [401, 421],
  query: [400, 401, 403, 421],
  admin: [401, 403, 421, 503],
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'the request is wrong: see `error.code` and `error.hint`',
  401: 'no credentials, or credentials that do not verify (`AUTH_REQUIRED`, `AUTH_INVALID`; `WWW-Authenticate` lists the schemes)',
  403: 'the principal may not do this (`ROLE_NOT_GRANTED`, `CAPABILITY_MISSING`, `ROLE_UNKNOWN`, an `ADMIN_*` refusal)',
  404: 'no such object (or a table the role may not read)',
  409: 'conflicts with the catalog (`CONFLICT`, `CATALOG_OWNED_BY_CONFIG`)',
  412: '`If-Match` names an epoch the registry has left (`REGISTRY_EPOCH_MISMATCH`)',
  413: 'the SQL text is over `server.limits.max_sql_bytes`',
  421: 'the `Host` header is not one this server answers to',
  422: 'a definition the catalog refuses (`MV_REJECTED`, `VIEW_LAUNDERS_ROWS`, `DERIVED_CYCLE`)',
  429: 'too many queries running for this principal (`Retry-After`)',
  499: 'the client went away',
  500: 'a fault of the server or its catalog (`INTERNAL` never carries the cause)',
  502: 'a source or the engine refused SQL shoal composed',
  503: 'not ready, or a dependency is down: retry',
  504: '`server.limits.request_timeout` passed',
};

const pathOf = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const paramsOf = (url: string): string[] => [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function errorResponse(status: number): Json {
  return { description: STATUS_TEXT[status] ?? 'an error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function operation(route: RegisteredRoute, doc: RouteDoc): Json {
  const parameters: Json[] = paramsOf(route.url).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const qs = route.schema?.querystring as { properties?: Record<string, Json>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(qs?.properties ?? {})) parameters.push({ name, in: 'query', required: qs?.required?.includes(name) ?? false, schema });
  for (const q of doc.query ?? []) parameters.push({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema });
  if (doc.access === 'query') parameters.push({ name: 'X-Provisa-Role', in: 'header', required: false, description: 'the role to act as (one granted to the caller)', schema: { type: 'string' } });
  if (doc.access === 'admin') parameters.push({ name: 'X-Provisa-Role', in: 'header', required: false, description: 'a granted role with the `admin` capability', schema: { type: 'string' } });
  const body = (route.schema?.body as Json | undefined) ?? doc.body;
  const responses: Record<string, Json> = {};
  for (const [status, r] of Object.entries(doc.responses)) {
    responses[status] = { description: r.description, content: { [r.contentType ?? 'application/json']: r.schema ? { schema: r.schema } : {} } };
  }
  for (const status of [...new Set([...ACCESS_ERRORS[doc.access], ...(doc.errors ?? []), 500])].sort()) {
    if (responses[String(status)] === undefined) responses[String(status)] = errorResponse(status);
  }
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.access === 'public' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
    responses,
  };
}

/** The document; `undocumented` lists registered routes ROUTE_DOCS has no entry for (described only by their schemas). */
export function openApiDocument(routes: readonly RegisteredRoute[], version: string): { readonly document: Json; readonly undocumented: readonly string[] } {
  const paths: Record<string, Record<string, Json>> = {};
  const undocumented: string[] = [];
  for (const route of routes) {
    // Fastify adds a HEAD route for every GET: the same answer without a body
    if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
    const key = `${route.method} ${route.url}`;
    const doc = ROUTE_DOCS[key];
    if (!doc) undocumented.push(key);
    (paths[pathOf(route.url)] ??= {})[route.method.toLowerCase()] = operation(route, doc ?? { summary: 'undocumented', access: 'authenticated', responses: {} });
  }
  const document = {
    openapi: '3.1.0',
    info: { title: 'shoal', version, description: 'The HTTP API of one shoal instance (docs/shoal.md, "HTTP API"). Every route but the probes and this document needs credentials.' },
    security: [{ bearer: [] }, { basic: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'an access token (`shoal_pat_…`) or, with `auth.provider: oidc`, a JWT of the issuer' },
        basic: { type: 'http', scheme: 'basic', description: 'a registry user (`auth.provider: basic`, the default)' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { enum: Object.keys(SHOAL_ERROR_STATUS).concat('INTERNAL', 'BAD_REQUEST').filter((c, i, a) => a.indexOf(c) === i).sort(), description: 'stable; docs/shoal-errors.md lists each with its status' },
                message: { type: 'string' },
                hint: { type: 'string', description: 'what to do about it' },
                position: { type: 'object', required: ['line', 'column'], properties: { line: { type: 'integer' }, column: { type: 'integer' } } },
              },
            },
          },
        },
      },
    },
    paths,
  };
  return { document, undocumented };
}
