/**
 * `GET /admin/audit`: the fleet's audit log, newest first, for roles with the `admin` capability
 * (the same check as every other /admin route, requireAdmin in request-principal.ts).
 *
 * Query parameters, all optional: `principal`, `outcome` (`ok`, `cancelled` or an error code),
 * `role`, `since` and `until` (ISO-8601 instants or epoch milliseconds), `before` (an id: the
 * next page), `limit` (1–1000, default 100). Answer: `{records: [...], next_before}` where
 * `next_before` is the id to pass as `before` for the following page, or null at the end.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuditQueue } from '../audit/audit-queue.js';
import type { StoredAuditRecord } from '../audit/audit-record.js';
import type { AuditStore } from '../audit/audit-store.js';
import { ShoalError } from '../errors.js';
import type { Registry } from '../registry/registry.js';
import { requireAdmin } from './request-principal.js';

/** What the audit admin API needs: the registry (to authorize) and the audit log, if it is stored. */
export interface AuditAdminTarget {
  readonly registry: Registry;
  /** Absent when `audit.enabled` is false. */
  readonly audit?: { readonly store: AuditStore; readonly queue: AuditQueue };
}

export const AUDIT_PAGE_MAX = 1000;
const AUDIT_PAGE_DEFAULT = 100;

const instant = z
  .string()
  .max(40)
  .transform((v, ctx) => {
    const ms = /^\d{1,15}$/.test(v) ? Number(v) : Date.parse(v);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO-8601 instant (2026-01-02T03:04:05Z) or epoch milliseconds' });
      return z.NEVER;
    }
    return ms;
  });
const text = z.string().min(1).max(500);
const querySchema = z
  .object({
    principal: text.optional(),
    outcome: text.optional(),
    role: text.optional(),
    since: instant.optional(),
    until: instant.optional(),
    before: z.string().regex(/^\d{1,15}$/, { message: 'expected a record id' }).transform(Number).optional(),
    limit: z.string().regex(/^\d{1,4}$/, { message: `expected a number from 1 to ${AUDIT_PAGE_MAX}` }).transform(Number).pipe(z.number().min(1).max(AUDIT_PAGE_MAX)).optional(),
  })
  .strict();

export function auditAdminPlugin(target: AuditAdminTarget) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/admin/audit', async (req: FastifyRequest) => {
      requireAdmin(req, (await target.registry.snapshot()).catalog.roles);
      const parsed = querySchema.safeParse(req.query ?? {});
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const key = first?.path.map(String).join('.') || (first?.code === 'unrecognized_keys' ? first.keys.join(', ') : '');
        throw new ShoalError('BAD_REQUEST', `invalid audit query: ${key ? `${key}: ` : ''}${first?.message ?? 'malformed'}`, {
          hint: `use principal, outcome, role, since, until, before and limit (at most ${AUDIT_PAGE_MAX})`,
        });
      }
      const audit = target.audit;
      if (!audit) {
        throw new ShoalError('NOT_FOUND', 'the audit log is not stored on this deployment (audit.enabled is false)', {
          hint: 'set audit.enabled: true, or read the "audit" lines of the server log',
        });
      }
      // this instance's own recent requests are written first, so a client reads what it just did
      await audit.queue.flush().catch(() => undefined);
      const q = parsed.data;
      const limit = q.limit ?? AUDIT_PAGE_DEFAULT;
      const records: readonly StoredAuditRecord[] = await audit.store
        .list({
        limit,
        ...(q.principal === undefined ? {} : { principal: q.principal }),
        ...(q.outcome === undefined ? {} : { outcome: q.outcome }),
        ...(q.role === undefined ? {} : { role: q.role }),
        ...(q.since === undefined ? {} : { since: q.since }),
        ...(q.until === undefined ? {} : { until: q.until }),
        ...(q.before === undefined ? {} : { before: q.before }),
        })
        .catch((e: unknown) => {
          throw new ShoalError('REGISTRY_UNAVAILABLE', 'the audit log could not be read from the registry database', { cause: e, hint: 'check the registry database (control_plane.tenant_url) and retry' });
        });
      return {
        records: records.map((r) => ({ ...r, at: new Date(r.at).toISOString() })),
        next_before: records.length === limit ? (records[records.length - 1]?.id ?? null) : null,
      };
    });
  };
}
