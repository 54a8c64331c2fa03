/**
 * The one way a pgwire statement reaches data: the same steps `POST /data/sql` takes
 * (src/shoal/server/data-plugin.ts) in front of the same `QueryService.query` — the instance is
 * ready, the principal acts as one of its granted roles with `query_development`, its session
 * values come from its identity plus only the client-settable variables it set, its domain scope
 * holds, it has a free slot under `max_concurrent_queries`, and an audit record is written for
 * the statement, refused or not. Row-level security, masks, row caps and deadlines are the
 * service's, exactly as over HTTP.
 */
import { performance } from 'node:perf_hooks';
import { actingRole } from '../auth/acting-role.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import type { Principal } from '../auth/principal.js';
import { sessionValues } from '../auth/session-values.js';
import type { AuditRecord } from '../audit/audit-record.js';
import { sqlFingerprint } from '../audit/sql-fingerprint.js';
import type { ResolvedRole } from '../config/roles.js';
import { SHOAL_ERROR_STATUS } from '../error-codes.js';
import { ShoalError } from '../errors.js';
import { routeOf, type AuditSink } from '../server/audit-plugin.js';
import type { ConcurrencyLimit } from '../server/concurrency-limit.js';
import type { QueryResult, QueryService } from '../server/query-service.js';

/** What the pgwire listener shares among its connections. */
export interface PgContext {
  readonly service: QueryService;
  readonly auth: EdgeAuth;
  /** Slots per principal, shared by every pgwire connection of the listener. */
  readonly concurrency: ConcurrencyLimit;
  readonly audit?: { readonly instanceId: string; readonly sink?: AuditSink; readonly log?: (r: AuditRecord) => void };
}

/** Who a connection acts for: its principal, the role it chose, the variables it set. */
export interface PgIdentity {
  readonly principal: Principal;
  readonly role: string | undefined;
  readonly vars: Readonly<Record<string, string>>;
}

/** The role an identity acts as now (ROLE_* / CAPABILITY_MISSING as over HTTP). */
export async function roleOf(ctx: PgContext, who: PgIdentity): Promise<ResolvedRole> {
  return actingRole(who.principal, who.role, await ctx.auth.roles(), 'query_development');
}

/** An audit record in the making for one statement. */
export class PgAuditDraft {
  private readonly at = Date.now();
  private readonly started = performance.now();
  private done = false;
  rows: number | null = null;
  route: string | null = null;
  tables: readonly string[] = [];

  constructor(
    private readonly ctx: PgContext,
    private readonly who: PgIdentity,
    private readonly sql: string,
  ) {}

  finish(error: unknown, cancelled = false): void {
    if (this.done || !this.ctx.audit) return;
    this.done = true;
    const code = error === undefined ? undefined : error instanceof ShoalError ? error.code : 'INTERNAL';
    const record: AuditRecord = {
      at: this.at,
      instance: this.ctx.audit.instanceId,
      principal: this.who.principal.id,
      role: (this.who.role ?? this.who.principal.defaultRole)?.slice(0, 200) ?? null,
      method: 'PGWIRE',
      path: 'pgwire',
      status: error instanceof ShoalError ? SHOAL_ERROR_STATUS[error.code] : error === undefined ? 200 : 500,
      outcome: cancelled || code === 'QUERY_CANCELLED' ? 'cancelled' : (code ?? 'ok'),
      sql_fingerprint: sqlFingerprint(this.sql),
      tables: this.tables,
      route: this.route,
      rows: this.rows,
      duration_ms: Math.max(0, Math.round(performance.now() - this.started)),
    };
    this.ctx.audit.log?.(record);
    this.ctx.audit.sink?.record(record);
  }
}

/** A governed result whose slot is released (and audit record finished) by `close`. */
export interface GovernedResult {
  readonly result: QueryResult;
  readonly audit: PgAuditDraft;
  close(error?: unknown, cancelled?: boolean): void;
}

/** Run `sql` for `who` through the governed path; throws the same coded errors as HTTP. */
export async function governedQuery(ctx: PgContext, who: PgIdentity, sql: string, signal: AbortSignal): Promise<GovernedResult> {
  const audit = new PgAuditDraft(ctx, who, sql);
  let release: (() => void) | undefined;
  try {
    if (!ctx.service.isReady()) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
    const role = await roleOf(ctx, who);
    const vars = sessionValues(who.principal, role.id, who.vars, ctx.auth.config);
    const domains = who.principal.scopes?.[role.id];
    release = ctx.concurrency.tryAcquire(who.principal.id);
    if (release === undefined) {
      throw new ShoalError('TOO_MANY_CONCURRENT_QUERIES', `this principal already has ${ctx.concurrency.max} queries running on this instance`, {
        hint: 'wait for a running query to finish, or ask the operator about server.limits.max_concurrent_queries',
      });
    }
    const result = await ctx.service.query({ sql, role: role.id, vars, ...(domains ? { domains } : {}) }, signal);
    audit.route = routeOf(result.headers);
    audit.tables = result.tables ?? [];
    audit.rows = 0;
    const held = release;
    return {
      result,
      audit,
      close(error, cancelled) {
        held();
        audit.finish(error, cancelled);
      },
    };
  } catch (e) {
    release?.();
    audit.finish(e, signal.aborted);
    throw e;
  }
}
