import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkCatalog } from '../config/catalog-checks.js';
import { formatIssue } from '../config/config-issue.js';
import { rlsRuleSchema, sourceSchema, tableSchema } from '../config/config-schema.js';
import { makeColumn, makeSource, makeTable, qualifiedName, type CatalogModel, type RlsRuleConfig, type TableConfig } from '../config/model.js';
import { ShoalError } from '../errors.js';
import type { Registry, MutationResult } from '../registry/registry.js';
import { AdminSourcePolicy } from './admin-source-policy.js';
import { requireAdmin } from './request-principal.js';

/** What the admin API needs from an instance: its registry, its catalog, and a way to catch up. */
export interface AdminTarget {
  readonly registry: Registry;
  /** Re-read the registry now, so this instance serves the mutation immediately. */
  refresh(): Promise<void>;
  /**
   * Drop cached rows (hot tables, results) of one table (`<domain>.<table>`) or of all, on every
   * instance sharing the cache; `propagated` is false when the shared cache was unreachable.
   */
  invalidateCaches?(table?: string): Promise<{ readonly propagated: boolean }>;
  /** Hot-table status: where rows are kept and, per candidate table, its state (see HotStatus). */
  cacheStatus?(): unknown;
  /** What registered sources and tables may reach (files, hosts); absent = no file or network source. */
  readonly adminPolicy?: AdminSourcePolicy;
}

const invalidateBodySchema = z.object({ table: z.string().min(1).optional() }).strict();
/** RLS rules registered with a table (its id implied), so a view over governed tables is never registered bare. */
const tableRulesSchema = z.array(rlsRuleSchema.pick({ role_id: true, filter: true }).strict()).max(1000);

function parseBody<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const r = schema.safeParse(body);
  if (!r.success) {
    const first = r.error.issues[0];
    const path = first?.path.map(String).join('.') ?? '';
    throw new ShoalError('BAD_REQUEST', `invalid ${what}: ${path ? `${path}: ` : ''}${first?.message ?? 'malformed body'}`, {
      hint: `send a ${what} as it is written in the config file's ${what}s list`,
    });
  }
  return r.data;
}

/** Refuse a mutation that would leave the catalog inconsistent (dangling source, domain, role…). */
function checkWith(catalog: CatalogModel): void {
  const { errors } = checkCatalog(catalog);
  const rejected = errors.find((e) => e.code === 'CONFIG_MV_REJECTED');
  if (rejected) throw new ShoalError('MV_REJECTED', formatIssue(rejected), { hint: rejected.hint ?? "use mv_consistency: shared" });
  // a view that would launder rows is refused for what it is (422), naming the base tables and roles
  const laundering = errors.find((e) => e.code === 'CONFIG_VIEW_LAUNDERS_ROWS');
  if (laundering) throw new ShoalError('VIEW_LAUNDERS_ROWS', formatIssue(laundering), { hint: laundering.hint ?? 'declare RLS for the view, or definer_rows: true' });
  // A cycle is a property of the definition itself, not of what is registered yet: 422 with the check's own hint.
  const cycle = errors.find((e) => e.code === 'CONFIG_DERIVED_CYCLE');
  if (cycle) throw new ShoalError('DERIVED_CYCLE', formatIssue(cycle), { hint: cycle.hint ?? 'a view_sql must not read its own table' });
  if (errors.length > 0) {
    throw new ShoalError('CONFLICT', errors.map(formatIssue).join('; '), { hint: 'register what it refers to first' });
  }
}

/**
 * Admin API: register and drop sources, tables and RLS rules in the shared registry. Every
 * mutation bumps the config epoch in its own transaction; this instance refreshes at once and
 * every other instance within its poll interval. Callers must act as a role with the `admin`
 * capability: the authenticated principal must be granted it (`X-Provisa-Role` picks among its
 * granted roles; none picks its default role), checked against the registry's roles.
 */
export function adminPlugin(target: AdminTarget) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const policy = target.adminPolicy ?? AdminSourcePolicy.denyAll();
    const authorize = async (req: FastifyRequest): Promise<CatalogModel> => {
      const { catalog } = await target.registry.snapshot();
      requireAdmin(req, catalog.roles);
      return catalog;
    };
    // shoal has no data write API: a registry mutation is the one write through shoal, and it
    // invalidates the cached rows of the tables it touches (fleet-wide when the cache is shared)
    const done = async (r: MutationResult, touched: readonly TableConfig[] = []): Promise<MutationResult> => {
      if (r.changed) {
        await target.refresh();
        for (const t of touched) await target.invalidateCaches?.(qualifiedName(t).toLowerCase());
      }
      return r;
    };
    const ofSource = (catalog: CatalogModel, id: string) => catalog.tables.filter((t) => t.source_id === id);

    app.get('/admin/cache', async (req) => {
      await authorize(req);
      return target.cacheStatus?.() ?? { hot: null };
    });
    app.post('/admin/cache/invalidate', async (req) => {
      await authorize(req);
      const { table } = parseBody(invalidateBodySchema, req.body ?? {}, 'cache invalidation');
      const r = (await target.invalidateCaches?.(table)) ?? { propagated: false };
      return { invalidated: table ?? '*', ...r };
    });

    app.get('/admin/epoch', async (req) => {
      await authorize(req);
      return { epoch: await target.registry.epoch() };
    });
    app.get('/admin/sources', async (req) => (await authorize(req)).sources);
    app.get('/admin/tables', async (req) => (await authorize(req)).tables);

    app.post('/admin/sources', async (req) => {
      const catalog = await authorize(req);
      // the admin edge: files under the roots, allowed hosts, no env references, never the control plane
      const source = makeSource(await policy.checkSource(makeSource(parseBody(sourceSchema, req.body, 'source'))));
      checkWith({ ...catalog, sources: [...catalog.sources.filter((s) => s.id !== source.id), source] });
      return done(await target.registry.registerSource(source), ofSource(catalog, source.id));
    });
    app.delete('/admin/sources/:id', async (req: FastifyRequest<{ Params: { id: string } }>) => {
      const catalog = await authorize(req);
      if (!catalog.sources.some((s) => s.id === req.params.id)) throw new ShoalError('NOT_FOUND', `no source "${req.params.id}"`);
      return done(await target.registry.dropSource(req.params.id), ofSource(catalog, req.params.id));
    });

    app.post('/admin/tables', async (req) => {
      const catalog = await authorize(req);
      const { rls_rules: rulesBody, ...tableBody } = (req.body ?? {}) as { rls_rules?: unknown };
      const raw = parseBody(tableSchema, tableBody, 'table');
      const table = makeTable({ ...raw, columns: (raw.columns ?? []).map((c) => makeColumn(c)) });
      const rules: RlsRuleConfig[] = parseBody(tableRulesSchema, rulesBody ?? [], 'table rls_rules').map((r) => ({ table_id: table.alias ?? table.table, role_id: r.role_id, filter: r.filter }));
      const others = catalog.tables.filter((t) => !(t.domain_id === table.domain_id && (t.alias ?? t.table) === (table.alias ?? table.table)));
      await policy.checkTable(table, catalog);
      const keyOf = (r: RlsRuleConfig) => `${r.table_id ?? ''}\u0000${r.domain_id ?? ''}\u0000${r.role_id}`;
      const replaced = new Set(rules.map(keyOf));
      checkWith({ ...catalog, tables: [...others, table], rls_rules: [...catalog.rls_rules.filter((r) => !replaced.has(keyOf(r))), ...rules] });
      return done(await target.registry.registerTable(table, rules), [table]);
    });
    app.delete('/admin/tables/:ref', async (req: FastifyRequest<{ Params: { ref: string } }>) => {
      const catalog = await authorize(req);
      const ref = req.params.ref.toLowerCase();
      const dropped = catalog.tables.filter((t) => [qualifiedName(t), t.alias ?? t.table].some((n) => n.toLowerCase() === ref));
      return done(await target.registry.dropTable(req.params.ref), dropped);
    });

    app.post('/admin/rls', async (req) => {
      const catalog = await authorize(req);
      const rule = parseBody(rlsRuleSchema, req.body, 'rls rule') as RlsRuleConfig;
      checkWith({ ...catalog, rls_rules: [...catalog.rls_rules, rule] });
      return done(await target.registry.upsertRlsRule(rule));
    });
  };
}
