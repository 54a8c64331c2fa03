/**
 * `POST /graphql` (and `GET /graphql?query=…` for the same queries): GraphQL over the governed
 * catalog. The schema is the caller's role's at the served registry epoch (graphql-schema.ts),
 * kept in a small LRU by (catalog generation, role, domain scope); every statement a query compiles to runs
 * through `QueryService.query` — the path `POST /data/sql` takes — so RLS, masks, row caps,
 * deadlines, the caches and the audit log apply as they do to SQL. Errors are in GraphQL's shape
 * with the shoal code in `extensions.code`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ExecutionResult, GraphQLError, type GraphQLSchema, Kind, type OperationDefinitionNode, execute, parse, specifiedRules, validate } from 'graphql';
import { actingRole } from '../../auth/acting-role.js';
import type { EdgeAuth } from '../../auth/edge-auth.js';
import { sessionValues } from '../../auth/session-values.js';
import { ShoalError } from '../../errors.js';
import { BoundedGate } from '../../../core/bounded-gate.js';
import { auditError, auditQuery, auditStatements } from '../audit-plugin.js';
import type { ConcurrencyLimit } from '../concurrency-limit.js';
import { errorBody, httpStatusFor } from '../error-status.js';
import { toWireValue } from '../json-value.js';
import type { MetricsRegistry } from '../metrics.js';
import type { QueryService } from '../query-service.js';
import { takeQuerySlot } from '../query-slot.js';
import { headerRole, principalOf } from '../request-principal.js';
import type { BatchLoader } from './batch-loader.js';
import { GRAPHQL_BOUNDS, checkBounds } from './graphql-bounds.js';
import type { GraphContext, GraphRow } from './graphql-context.js';
import { buildGraphSchema } from './graphql-schema.js';
import { GRAPHQL_VAR_PREFIX } from './graphql-sql.js';

interface GraphqlRequest {
  readonly query: string;
  readonly variables?: Record<string, unknown> | null;
  readonly operationName?: string | null;
}

const bodySchema = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 65536 },
    variables: { type: ['object', 'null'] },
    operationName: { type: ['string', 'null'] },
    extensions: { type: ['object', 'null'] },
  },
} as const;

const querystringSchema = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 65536 },
    variables: { type: 'string', description: 'the variables as a JSON object' },
    operationName: { type: 'string' },
  },
} as const;

/** Schemas kept (per catalog generation, role and domain scope); the least recently used is dropped. */
const SCHEMA_CACHE_SIZE = 64;

interface GraphError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: { code: string; hint?: string };
}

/** A GraphQL error in the response's shape: the shoal code (a library's own error is INTERNAL, its text never sent). */
function graphError(e: GraphQLError, log: FastifyRequest['log']): GraphError {
  const original = e.originalError;
  const where = { ...(e.locations ? { locations: e.locations } : {}), ...(e.path ? { path: e.path } : {}) };
  if (original instanceof ShoalError) {
    return { message: original.message, ...where, extensions: { code: original.code, ...(original.hint ? { hint: original.hint } : {}) } };
  }
  // graphql-js's own refusals (a variable of the wrong type, a value a scalar cannot hold) are the client's
  if (original === undefined || original instanceof GraphQLError) return { message: e.message, ...where, extensions: { code: 'GRAPHQL_INVALID' } };
  log.error({ err: original }, 'graphql resolver failed');
  return { message: 'internal error; see the server log', ...where, extensions: { code: 'INTERNAL' } };
}

/** A request-level refusal (before execution) as a GraphQL answer, with the code's HTTP status. */
function refusal(e: unknown): { status: number; body: { errors: GraphError[] } } {
  const { error } = errorBody(e);
  return { status: httpStatusFor(e), body: { errors: [{ message: error.message, extensions: { code: error.code, ...(error.hint ? { hint: error.hint } : {}) } }] } };
}

export function graphqlPlugin(service: QueryService, metrics: MetricsRegistry, auth: EdgeAuth, concurrency: ConcurrencyLimit) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    metrics.declare('shoal_graphql_requests_total', 'GraphQL requests, by outcome');
    const schemas = new Map<string, GraphQLSchema>();
    const schemaFor = (role: string, domains: readonly string[] | undefined): { schema: GraphQLSchema; rowCap?: number } => {
      const graph = service.graph!({ role, ...(domains ? { domains } : {}) });
      // the catalog's generation (a new one on every rebuild, as the plan cache keys on) beats the epoch, which can repeat
      const key = JSON.stringify([graph.generation ?? graph.epoch ?? null, role, domains ?? null]);
      let schema = schemas.get(key);
      if (schema) schemas.delete(key);
      else schema = buildGraphSchema(graph.tables);
      schemas.set(key, schema);
      while (schemas.size > SCHEMA_CACHE_SIZE) schemas.delete(schemas.keys().next().value!);
      return { schema, ...(graph.rowCap !== undefined ? { rowCap: graph.rowCap } : {}) };
    };

    const answer = async (req: FastifyRequest, reply: FastifyReply, q: GraphqlRequest): Promise<unknown> => {
      let release: (() => void) | undefined;
      let deadline: ReturnType<typeof setTimeout> | undefined;
      let roleId: string | undefined;
      const statements: string[] = [];
      const results: { headers?: Readonly<Record<string, string>>; tables?: readonly string[]; rows: number }[] = [];
      // a refused request is audited with its role and what it asked: the statements that ran, else its GraphQL text
      const auditRefusal = (code: string): void => {
        if (roleId !== undefined && statements.length > 0) auditStatements(req, { sql: statements, role: roleId, results, errorCode: code });
        else {
          if (roleId !== undefined) auditQuery(req, { sql: q.query, role: roleId });
          auditError(req, code);
        }
      };
      try {
        if (!service.graph) throw new ShoalError('NOT_FOUND', 'this service has no GraphQL catalog', { hint: 'use POST /data/sql' });
        if (!service.isReady()) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
        const principal = principalOf(req);
        const role = actingRole(principal, headerRole(req), await auth.roles(), 'query_development');
        roleId = role.id;
        const vars = sessionValues(principal, role.id, {}, auth.config);
        const reserved = Object.keys(vars).find((k) => k.toLowerCase().startsWith(GRAPHQL_VAR_PREFIX));
        if (reserved) {
          throw new ShoalError('GRAPHQL_RESERVED_VAR', `the identity sets ${reserved}, a name /graphql reserves for query values`, { hint: `rename the session variable; names starting ${GRAPHQL_VAR_PREFIX} are reserved` });
        }
        const domains = principal.scopes?.[role.id];
        const { schema, rowCap } = schemaFor(role.id, domains);
        let document;
        try {
          document = parse(q.query, { maxTokens: GRAPHQL_BOUNDS.maxTokens });
        } catch (e) {
          const err = e as GraphQLError;
          metrics.inc('shoal_graphql_requests_total', { outcome: 'invalid' });
          const code = err.message.includes('token limit') ? 'GRAPHQL_TOO_COMPLEX' : 'GRAPHQL_INVALID';
          auditRefusal(code);
          return reply.code(400).send({ errors: [{ message: err.message, ...(err.locations ? { locations: err.locations } : {}), extensions: { code } }] });
        }
        const invalid = validate(schema, document, specifiedRules, { maxErrors: 20 });
        if (invalid.length > 0) {
          metrics.inc('shoal_graphql_requests_total', { outcome: 'invalid' });
          auditRefusal('GRAPHQL_INVALID');
          return reply.code(400).send({ errors: invalid.map((e) => graphError(e, req.log)) });
        }
        const operationName = q.operationName ?? undefined;
        checkBounds(document, operationName);
        const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName));
        if (op && op.operation !== 'query') throw new ShoalError('GRAPHQL_INVALID', `${op.operation} is not served: /graphql answers queries only`, { hint: 'send a query operation' });
        release = takeQuerySlot(concurrency, req, reply);
        const controller = new AbortController();
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) controller.abort();
        });
        // one request_timeout for the whole request: every statement runs under what is left of it
        // (each also under its own, never the later one)
        const timeoutMs = service.requestTimeoutMs;
        if (timeoutMs !== undefined) {
          deadline = setTimeout(() => {
            controller.abort(new ShoalError('QUERY_TIMEOUT', `the GraphQL request ran longer than the request timeout (${timeoutMs / 1000} s)`, {
              hint: 'ask for fewer rows or relationships, or ask the operator about server.limits.request_timeout',
            }));
          }, timeoutMs);
          deadline.unref();
        }
        const signal = controller.signal;
        const timedOut = (): ShoalError | undefined => (signal.aborted && signal.reason instanceof ShoalError ? signal.reason : undefined);
        const batches = new Map<string, BatchLoader<readonly GraphRow[]>>();
        // the request holds one slot; its statements share it a few at a time (a waiter per field at most)
        const gate = new BoundedGate(GRAPHQL_BOUNDS.maxParallelStatements, GRAPHQL_BOUNDS.maxFields);
        let delivered = 0;
        let tooLarge: ShoalError | undefined;
        const context: GraphContext = {
          ...(rowCap !== undefined ? { rowCap } : {}),
          deliver: (n) => {
            delivered += n;
            if (!tooLarge && delivered > GRAPHQL_BOUNDS.maxResultRows) {
              tooLarge = new ShoalError('GRAPHQL_RESULT_TOO_LARGE', `the answer would hold more than ${GRAPHQL_BOUNDS.maxResultRows} rows (a row counts each time it appears)`, {
                hint: 'ask for smaller pages (first, limit), follow fewer relationships, or do not follow a relationship back to where it came from',
              });
            }
            if (tooLarge) throw tooLarge;
          },
          rows: async (sql, params, names) => {
            if (tooLarge) throw tooLarge;
            const turn = await gate.tryAcquire();
            if (!turn) throw new ShoalError('GRAPHQL_TOO_COMPLEX', `the query has more than ${GRAPHQL_BOUNDS.maxFields} statements waiting`, { hint: 'split the query into several requests' });
            try {
              const late = timedOut();
              if (late) throw late;
              statements.push(sql);
              const result = await service.query({ sql, role: role.id, vars: { ...vars, ...params }, ...(domains ? { domains } : {}) }, signal);
              const out: GraphRow[] = [];
              for await (const batch of result.batches) {
                for (const r of batch) {
                  const row: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
                  names.forEach((n, i) => {
                    const v = toWireValue(r[i]);
                    // a JSON, struct or list cell reaches a String field as its JSON text
                    row[n] = v !== null && typeof v === 'object' ? JSON.stringify(v) : v;
                  });
                  out.push(row);
                }
              }
              results.push({ ...(result.headers ? { headers: result.headers } : {}), ...(result.tables ? { tables: result.tables } : {}), rows: out.length });
              return out;
            } finally {
              turn();
            }
          },
          batch: (key, make) => {
            let b = batches.get(key);
            if (!b) batches.set(key, (b = make()));
            return b;
          },
        };
        const variableValues = q.variables ?? undefined;
        const result: ExecutionResult = await execute({ schema, document, contextValue: context, ...(variableValues ? { variableValues } : {}), ...(operationName ? { operationName } : {}) });
        // over the row budget the answer is refused whole: no partial data that looks complete
        if (tooLarge) throw tooLarge;
        // past the deadline the answer is refused whole (504), as /data/sql's is
        const late = timedOut();
        if (late) throw late;
        const errors = result.errors?.map((e) => graphError(e, req.log));
        auditStatements(req, { sql: statements, role: role.id, results, ...(errors ? { errorCode: errors[0]!.extensions.code } : {}) });
        metrics.inc('shoal_graphql_requests_total', { outcome: errors ? 'error' : 'ok' });
        return reply.code(200).header('content-type', 'application/json; charset=utf-8').send({ ...(errors ? { errors } : {}), data: result.data ?? null });
      } catch (e) {
        const r = refusal(e);
        auditRefusal(r.body.errors[0]!.extensions.code);
        if (r.status >= 500) req.log.error({ err: e }, 'graphql request failed');
        metrics.inc('shoal_graphql_requests_total', { outcome: 'refused' });
        return reply.code(r.status).send(r.body);
      } finally {
        // the slot is held until the answer has been written (it is built in full before sending)
        clearTimeout(deadline);
        release?.();
      }
    };

    app.post('/graphql', { schema: { body: bodySchema } }, (req: FastifyRequest<{ Body: GraphqlRequest }>, reply) => answer(req, reply, req.body));
    app.get('/graphql', { schema: { querystring: querystringSchema } }, (req: FastifyRequest<{ Querystring: { query: string; variables?: string; operationName?: string } }>, reply) => {
      let variables: Record<string, unknown> | undefined;
      if (req.query.variables !== undefined) {
        try {
          const v: unknown = JSON.parse(req.query.variables);
          if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw new Error('not an object');
          variables = (v ?? undefined) as Record<string, unknown> | undefined;
        } catch {
          const r = refusal(new ShoalError('GRAPHQL_INVALID', 'variables: not a JSON object', { hint: 'pass variables as URL-encoded JSON, e.g. variables={"n":5}' }));
          return reply.code(r.status).send(r.body);
        }
      }
      return answer(req, reply, { query: req.query.query, ...(variables ? { variables } : {}), ...(req.query.operationName ? { operationName: req.query.operationName } : {}) });
    });
  };
}
