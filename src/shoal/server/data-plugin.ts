import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actingRole } from '../auth/acting-role.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { sessionValues } from '../auth/session-values.js';
import { DEFAULT_LIMITS } from '../config/limits.js';
import { ShoalError } from '../errors.js';
import { auditQuery, auditResult } from './audit-plugin.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { csvCell, toWireValue } from './json-value.js';
import type { MetricsRegistry } from './metrics.js';
import type { ColumnInfo, QueryService } from './query-service.js';
import { takeQuerySlot } from './query-slot.js';
import { headerRole, principalOf } from './request-principal.js';

interface SqlBody {
  sql: string;
  role?: string;
  vars?: Record<string, string>;
}

const sqlBodySchema = {
  type: 'object',
  required: ['sql'],
  additionalProperties: false,
  properties: {
    sql: { type: 'string', minLength: 1 },
    role: { type: 'string', minLength: 1 },
    vars: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 4096 } },
  },
} as const;

type Format = 'json' | 'ndjson' | 'csv';

function pickFormat(accept: string | undefined): Format {
  const a = (accept ?? '').toLowerCase();
  if (a.includes('application/x-ndjson') || a.includes('application/ndjson')) return 'ndjson';
  if (a.includes('text/csv')) return 'csv';
  return 'json';
}

type Batch = readonly (readonly unknown[])[];

/**
 * Serialise a result as it streams. The first batch is pulled before the status line is sent,
 * so errors at execution start still become a proper 4xx/5xx; a failure after that aborts the
 * connection rather than ending a body that would look complete.
 */
async function* render(format: Format, columns: readonly ColumnInfo[], first: IteratorResult<Batch>, rest: AsyncIterator<Batch>): AsyncGenerator<string> {
  let next = first;
  if (format === 'json') {
    yield `{"columns":${JSON.stringify(columns)},"rows":[`;
    let sep = '';
    while (!next.done) {
      let chunk = '';
      for (const row of next.value) {
        chunk += sep + JSON.stringify(row.map(toWireValue));
        sep = ',';
      }
      if (chunk) yield chunk;
      next = await rest.next();
    }
    yield ']}';
  } else if (format === 'ndjson') {
    yield `${JSON.stringify({ columns })}\n`;
    while (!next.done) {
      let chunk = '';
      for (const row of next.value) chunk += `${JSON.stringify(row.map(toWireValue))}\n`;
      if (chunk) yield chunk;
      next = await rest.next();
    }
  } else {
    yield `${columns.map((c) => csvCell(c.name)).join(',')}\r\n`;
    while (!next.done) {
      let chunk = '';
      for (const row of next.value) chunk += `${row.map(csvCell).join(',')}\r\n`;
      if (chunk) yield chunk;
      next = await rest.next();
    }
  }
}

const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/**
 * `POST /data/sql`: the caller acts as one of its granted roles, which needs the
 * `query_development` capability; the session values are its identity's plus the client-settable
 * `vars` it sent (see src/shoal/auth/session-values.ts).
 */
export function dataPlugin(service: QueryService, metrics: MetricsRegistry, auth: EdgeAuth, shared?: ConcurrencyLimit) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    metrics.declare('shoal_queries_total', 'SQL queries received, by outcome');
    // shared with the instance's other query listeners (pgwire), so the limit is per principal, not per port
    const concurrency = shared ?? new ConcurrencyLimit(service.maxConcurrentQueries ?? DEFAULT_LIMITS.max_concurrent_queries);
    app.post('/data/sql', { schema: { body: sqlBodySchema } }, async (req: FastifyRequest<{ Body: SqlBody }>, reply: FastifyReply) => {
      if (!service.isReady()) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
      // recorded before the role check, so a refused request keeps its fingerprint and the role it asked for
      auditQuery(req, { sql: req.body.sql, role: req.body.role ?? headerRole(req) });
      const principal = principalOf(req);
      const role = actingRole(principal, req.body.role ?? headerRole(req), await auth.roles(), 'query_development');
      const vars = sessionValues(principal, role.id, req.body.vars ?? {}, auth.config);
      const domains = principal.scopes?.[role.id];
      const release = takeQuerySlot(concurrency, req, reply);
      // The slot is held until the response is over: finished, failed, or the client went away.
      reply.raw.once('close', release);
      const controller = new AbortController();
      // The response closing before it finished means the client went away: stop the query.
      // (Not the request's 'close': Node emits that as soon as the body has been read.)
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      auditQuery(req, { sql: req.body.sql, role: role.id });
      const result = auditResult(req, await service.query({ sql: req.body.sql, role: role.id, vars, ...(domains ? { domains } : {}) }, controller.signal));
      const it = result.batches[Symbol.asyncIterator]();
      const first = await it.next();
      metrics.inc('shoal_queries_total', { outcome: 'ok' });
      const format = pickFormat(req.headers.accept);
      for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
      reply.header('content-type', CONTENT_TYPE[format]);
      return reply.send(Readable.from(render(format, result.columns, first, it)));
    });
  };
}
