/**
 * The MV admin API (ARCHITECTURE.md S3/S4), for roles with the `admin` capability:
 *
 * - `GET  /admin/mv`             every registered MV (and `stats`: not-quiescent counts, local
 *                                copies): its refresh-catalog row, how readers resolve it now,
 *                                `running`: a refresh in flight on this instance (start time,
 *                                elapsed ms, phase, attempt, rows written so far), and
 *                                `last_refresh`: the last finished attempt with its duration (from
 *                                the refresh log; a distributed MV's from this instance).
 * - `GET  /admin/mv/:id`         the MV's refresh-catalog row, plus `running` and `last_refresh`
 *                                (a distributed MV has no row: its id, tier, serving, running and
 *                                last_refresh); 404 when unknown.
 * - `POST /admin/mv/:id/refresh` one coordinated refresh now →
 *                                `{outcome: refreshed|skipped|lost_lease|failed, …}`. Deduped like
 *                                the loop: versions already materialized (or, with no input signal,
 *                                an interval not yet elapsed) give `skipped`, so N instances told at
 *                                once make one refresh per version. `?force=true` skips the version
 *                                and interval gates; a live lease anywhere still excludes.
 * - `GET  /admin/mv/:id/log`     the refresh log, newest first (`?limit=N`, default 100).
 *
 * `:id` is the MV's qualified name `<domain>.<alias ?? table>` (case-insensitive).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ShoalError } from '../errors.js';
import type { MvService } from '../mv/mv-service.js';
import type { Registry } from '../registry/registry.js';
import { reportMvMetrics } from './mv-metrics.js';
import { requireAdmin } from './request-principal.js';

/** What the MV admin API needs from an instance. */
export interface MvAdminTarget {
  readonly registry: Registry;
  readonly mvs: MvService | undefined;
}

type IdRequest = FastifyRequest<{ Params: { id: string }; Querystring: { limit?: string; force?: string } }>;

export function mvAdminPlugin(target: MvAdminTarget) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // the MV series of /metrics (refresh outcomes and durations, not-quiescent sources)
    if (target.mvs && app.hasDecorator('shoalMetrics')) {
      const stop = reportMvMetrics(target.mvs, app.shoalMetrics);
      app.addHook('onClose', async () => stop());
    }
    const authorize = async (req: FastifyRequest): Promise<void> => {
      requireAdmin(req, (await target.registry.snapshot()).catalog.roles);
    };
    const service = (): MvService => {
      if (!target.mvs) throw new ShoalError('NOT_READY', 'materialized views are not available on this instance', { hint: 'retry when /ready returns 200' });
      return target.mvs;
    };
    const known = (mvs: MvService, id: string) => {
      const mv = mvs.info(id);
      if (!mv) throw new ShoalError('NOT_FOUND', `no materialized view "${id}"`, { hint: 'GET /admin/mv lists the registered MVs' });
      return mv;
    };

    app.get('/admin/mv', async (req) => {
      await authorize(req);
      const mvs = service();
      const rows = new Map((await mvs.rows()).map((r) => [r.id, r]));
      const running = new Map(mvs.running().map((r) => [r.mvId, r]));
      const out = [];
      for (const mv of mvs.list()) {
        out.push({
          id: mv.id,
          consistency: mv.table.mv_consistency,
          refresh_interval: mv.table.mv_refresh_interval,
          view_sql: mv.table.view_sql ?? null,
          source_tables: mv.sourceTables,
          error: mv.error,
          serving: await mvs.resolve(mv.id).catch((e: unknown) => ({ kind: 'unavailable', reason: (e as Error).message })),
          row: rows.get(mv.id) ?? null,
          running: running.get(mv.id) ?? null,
          last_refresh: await mvs.lastRefresh(mv.id),
        });
      }
      return { writer: mvs.writer, stats: mvs.stats(), mvs: out };
    });

    app.get('/admin/mv/:id', async (req: IdRequest) => {
      await authorize(req);
      const mvs = service();
      const mv = known(mvs, req.params.id);
      const running = mvs.running().find((r) => r.mvId === mv.id) ?? null;
      const last_refresh = await mvs.lastRefresh(mv.id);
      if (mv.table.mv_consistency === 'distributed') {
        return { id: mv.id, consistency: mv.table.mv_consistency, serving: await mvs.resolve(mv.id), running, last_refresh };
      }
      const row = await mvs.row(mv.id);
      if (!row) throw new ShoalError('NOT_FOUND', `MV "${mv.id}" has no refresh-catalog row yet`, { hint: 'shared MVs are seeded when an instance loads them; retry shortly' });
      return { ...row, running, last_refresh };
    });

    app.post('/admin/mv/:id/refresh', async (req: IdRequest) => {
      await authorize(req);
      const mvs = service();
      const mv = known(mvs, req.params.id);
      const traceId = req.headers['x-trace-id'];
      const force = req.query.force;
      if (force !== undefined && force !== 'true' && force !== 'false') {
        throw new ShoalError('BAD_REQUEST', `force must be true or false, got "${force}"`, { hint: 'POST /admin/mv/<id>/refresh?force=true' });
      }
      const result = await mvs.refresh(mv.id, { force: force === 'true', ...(typeof traceId === 'string' ? { traceId } : {}) });
      return { id: mv.id, writer: mvs.writer, ...result };
    });

    app.get('/admin/mv/:id/log', async (req: IdRequest) => {
      await authorize(req);
      const mvs = service();
      const mv = known(mvs, req.params.id);
      const limit = req.query.limit === undefined ? undefined : Number.parseInt(req.query.limit, 10);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 10_000)) {
        throw new ShoalError('BAD_REQUEST', `limit must be an integer from 1 to 10000, got "${req.query.limit}"`, { hint: 'omit it for the last 100 entries' });
      }
      return { id: mv.id, entries: await mvs.log(mv.id, limit) };
    });
  };
}
