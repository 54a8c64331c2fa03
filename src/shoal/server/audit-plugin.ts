/**
 * The audit record of every request (src/shoal/audit): started when the request arrives, before
 * the Host check and authentication, so refused requests are recorded too, and finished when the
 * response has been sent or abandoned — rows are only known once a result has streamed. The
 * probes (`/live`, `/ready`, `/health`, `/metrics`) are not recorded.
 *
 * Each record is a pino log line (`msg: "audit"`) and, when a queue is given, a row of the
 * fleet's `audit_log` (written asynchronously; see audit-queue.ts).
 */
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditRecord } from '../audit/audit-record.js';
import { principalIdOf } from '../audit/principal-id.js';
import { sqlFingerprint } from '../audit/sql-fingerprint.js';
import { ShoalError } from '../errors.js';
import { appWide } from './app-wide.js';
import { PROBE_PATHS, pathOf } from './probe-paths.js';
import { headerRole } from './request-principal.js';
import type { QueryResult } from './query-service.js';

/** Where finished records go (an AuditQueue); `record` must not block or throw. */
export interface AuditSink {
  record(r: AuditRecord): void;
}

/** What a request has told the audit so far; filled in by the hooks and the data route. */
class AuditDraft {
  readonly at = Date.now();
  readonly started = performance.now();
  role: string | undefined;
  fingerprint: string | null = null;
  /** The text `fingerprint` was taken of (held for the request only, never recorded). */
  fingerprintOf: string | undefined;
  tables: readonly string[] = [];
  route: string | null = null;
  rows: number | null = null;
  errorCode: string | undefined;
  done = false;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The audit record being built for this request (audit-plugin.ts). */
    auditDraft?: AuditDraft;
  }
}

/** How a result was served, from its response headers. */
export function routeOf(headers: Readonly<Record<string, string>> | undefined): 'engine' | 'direct' | 'cache' | 'mv' {
  if (headers?.['x-provisa-cache'] === 'HIT') return 'cache';
  if (headers?.['x-shoal-mv']) return 'mv';
  if (headers?.['x-shoal-route']?.startsWith('direct:')) return 'direct';
  return 'engine';
}

/** The data route: the SQL (kept only as its fingerprint) and the role it acts as. */
export function auditQuery(req: FastifyRequest, q: { readonly sql: string; readonly role: string | undefined }): void {
  const d = req.auditDraft;
  if (!d) return;
  // the route records the same text twice (before and after the role check): fingerprint it once
  if (d.fingerprintOf !== q.sql) {
    d.fingerprint = sqlFingerprint(q.sql);
    d.fingerprintOf = q.sql;
  }
  d.role = q.role;
}

/** The data route's result, passed through with its rows counted as they stream out. */
export function auditResult(req: FastifyRequest, result: QueryResult): QueryResult {
  const d = req.auditDraft;
  if (!d) return result;
  d.route = routeOf(result.headers);
  d.tables = result.tables ?? [];
  d.rows = 0;
  const batches = result.batches;
  return {
    ...result,
    batches: (async function* () {
      try {
        for await (const batch of batches) {
          d.rows = (d.rows ?? 0) + batch.length;
          yield batch;
        }
      } catch (e) {
        d.errorCode = e instanceof ShoalError ? e.code : 'INTERNAL';
        throw e;
      }
    })(),
  };
}

/**
 * A request that ran several statements (`/graphql`): the fingerprint of all of them in order, the
 * union of the tables they read, their rows summed, and their route when they share one.
 */
export function auditStatements(req: FastifyRequest, s: { readonly sql: readonly string[]; readonly role: string; readonly results: readonly { readonly headers?: Readonly<Record<string, string>>; readonly tables?: readonly string[]; readonly rows: number }[]; readonly errorCode?: string }): void {
  const d = req.auditDraft;
  if (!d) return;
  auditQuery(req, { sql: s.sql.join(';\n'), role: s.role });
  if (s.errorCode !== undefined) d.errorCode = s.errorCode;
  const routes = new Set(s.results.map((r) => routeOf(r.headers)));
  d.route = routes.size === 1 ? [...routes][0]! : routes.size === 0 ? null : 'mixed';
  d.tables = [...new Set(s.results.flatMap((r) => r.tables ?? []))].sort();
  d.rows = s.results.reduce((n, r) => n + r.rows, 0);
}

/** A refusal a route answered itself (in its own shape) rather than by throwing: the code the client was sent. */
export function auditError(req: FastifyRequest, code: string): void {
  const d = req.auditDraft;
  if (d && d.errorCode === undefined) d.errorCode = code;
}

/** The code the client was sent (error-status.ts): a coded error from outside shoal is INTERNAL there too. */
const errorCodeOf = (err: unknown, status: number): string => {
  if (err instanceof ShoalError) return err.code;
  return status >= 400 && status < 500 ? 'BAD_REQUEST' : 'INTERNAL';
};

const CANCELLED = new Set(['QUERY_CANCELLED']);

/** The audit hooks; `sink` absent = the log line only. */
export function auditPlugin(opts: { readonly instanceId: string; readonly sink?: AuditSink }) {
  return appWide(async function plugin(app: FastifyInstance): Promise<void> {
    const finish = (req: FastifyRequest, reply: FastifyReply, d: AuditDraft, sent: boolean): void => {
      if (d.done) return;
      d.done = true;
      const status = reply.raw.statusCode;
      const code = d.errorCode ?? (status >= 400 ? `HTTP_${status}` : undefined);
      const outcome = !sent ? (d.errorCode && !CANCELLED.has(d.errorCode) ? d.errorCode : 'cancelled') : code && CANCELLED.has(code) ? 'cancelled' : (code ?? 'ok');
      const record: AuditRecord = {
        at: d.at,
        instance: opts.instanceId,
        principal: principalIdOf(req),
        role: (d.role ?? headerRole(req))?.slice(0, 200) ?? null,
        method: req.method,
        path: pathOf(req.url).slice(0, 500),
        status,
        outcome,
        sql_fingerprint: d.fingerprint,
        tables: d.tables,
        route: d.route,
        rows: d.rows,
        duration_ms: Math.max(0, Math.round(performance.now() - d.started)),
      };
      req.log.info({ audit: record }, 'audit');
      opts.sink?.record(record);
    };
    app.addHook('onRequest', async (req, reply) => {
      if (PROBE_PATHS.has(pathOf(req.url))) return;
      const d = new AuditDraft();
      req.auditDraft = d;
      // 'finish': the whole response was handed to the OS; 'close' before it: abandoned or aborted
      reply.raw.once('finish', () => finish(req, reply, d, true));
      reply.raw.once('close', () => finish(req, reply, d, reply.raw.writableFinished));
    });
    app.addHook('onError', async (req, reply, err) => {
      const d = req.auditDraft;
      if (d && d.errorCode === undefined) d.errorCode = errorCodeOf(err, (err as { statusCode?: number }).statusCode ?? 500);
    });
  });
}
