import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkCatalog } from '../check/catalog-checks.js';
import { formatIssue } from '../config/config-issue.js';
import { columnSchema, rlsRuleSchema, roleSchema, sourceSchema, tableSchema } from '../config/config-schema.js';
import {
  findTable,
  makeColumn,
  makeRole,
  makeSource,
  makeTable,
  qualifiedName,
  tableId,
  type CatalogModel,
  type CatalogOwner,
  type RlsRuleConfig,
  type TableConfig,
} from '../config/model.js';
import { ShoalError } from '../errors.js';
import type { Registry, MutationOptions, MutationResult, RlsRuleKey } from '../registry/registry.js';
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
  /**
   * Who owns the catalog (`control_plane.catalog`). `config`: every catalog mutation is refused
   * (409 CATALOG_OWNED_BY_CONFIG); absent = `registry` (the admin API owns it).
   */
  readonly catalogOwner?: CatalogOwner;
}

const invalidateBodySchema = z.object({ table: z.string().min(1).optional() }).strict();
const rlsUpdateSchema = z.object({ filter: z.string().min(1) }).strict();
/** `If-Match: 7`, `"7"` or `W/"7"`: the registry epoch the caller read (GET /admin/epoch, or any list's ETag). */
const IF_MATCH = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/;
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

/** The epoch a mutation must find (If-Match), or undefined when the caller sent none. */
function epochPrecondition(req: FastifyRequest): MutationOptions {
  const h = req.headers['if-match'];
  if (h === undefined) return {};
  const m = IF_MATCH.exec(Array.isArray(h) ? (h[0] ?? '') : h);
  if (!m) throw new ShoalError('BAD_REQUEST', `If-Match must be a registry epoch (e.g. If-Match: "7"), got "${String(h)}"`, { hint: 'GET /admin/epoch returns the current epoch; every catalog list answers with it as its ETag' });
  return { expectedEpoch: Number(m[1]) };
}

function parseRlsKey(params: { kind: string; target: string; role: string }): RlsRuleKey {
  if (params.kind === 'table') return { table_id: params.target, role_id: params.role };
  if (params.kind === 'domain') return { domain_id: params.target, role_id: params.role };
  throw new ShoalError('NOT_FOUND', `no rls rule kind "${params.kind}"`, { hint: 'address a rule as /admin/rls/table/<table>/<role> or /admin/rls/domain/<domain>/<role>' });
}

const sameRule = (a: RlsRuleConfig, b: RlsRuleKey) => a.role_id === b.role_id && a.table_id === b.table_id && a.domain_id === b.domain_id;

/**
 * Admin API: the catalog (sources, tables and their columns, roles, RLS rules) in the shared
 * registry. Who owns the catalog is `control_plane.catalog`: with `config` every catalog mutation
 * is refused (409 CATALOG_OWNED_BY_CONFIG: the file is authoritative, change it and run `shoal
 * registry apply`); with `registry` the admin API is the owner. Every mutation bumps the config
 * epoch in its own transaction; this instance refreshes at once and every other instance within its
 * poll interval. A mutation sent with `If-Match: <epoch>` is refused (412 REGISTRY_EPOCH_MISMATCH,
 * nothing written) unless the registry is still at that epoch; every catalog read answers with the
 * epoch it was read at as its ETag. Callers must act as a role with the `admin` capability: the
 * authenticated principal must be granted it (`X-Provisa-Role` picks among its granted roles; none
 * picks its default role), checked against the registry's roles.
 */
export function adminPlugin(target: AdminTarget) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const policy = target.adminPolicy ?? AdminSourcePolicy.denyAll();
    const owner = target.catalogOwner ?? 'registry';
    const read = async (req: FastifyRequest, reply?: FastifyReply): Promise<{ epoch: number; catalog: CatalogModel }> => {
      const snap = await target.registry.snapshot();
      requireAdmin(req, snap.catalog.roles);
      reply?.header('etag', `"${snap.epoch}"`);
      return snap;
    };
    const authorize = async (req: FastifyRequest, reply?: FastifyReply): Promise<CatalogModel> => (await read(req, reply)).catalog;
    /** A catalog mutation: authorized, then refused unless the admin API owns the catalog. */
    const mutation = async (req: FastifyRequest): Promise<{ catalog: CatalogModel; options: MutationOptions }> => {
      const catalog = await authorize(req);
      if (owner === 'config') {
        throw new ShoalError('CATALOG_OWNED_BY_CONFIG', 'the catalog is owned by the config file (control_plane.catalog: config): the admin API does not change sources, tables, columns, roles or RLS rules', {
          hint: 'edit the config file and run `shoal registry plan --config FILE` then `shoal registry apply --config FILE`; or set control_plane.catalog: registry to manage the catalog through this API',
        });
      }
      return { catalog, options: epochPrecondition(req) };
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
    const tableOf = (catalog: CatalogModel, ref: string): TableConfig => {
      const t = findTable(catalog, ref) ?? catalog.tables.find((x) => qualifiedName(x).toLowerCase() === ref.toLowerCase());
      if (!t) throw new ShoalError('NOT_FOUND', `no table "${ref}"`, { hint: 'GET /admin/tables lists the registered tables' });
      return t;
    };

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

    app.get('/admin/epoch', async (req, reply) => {
      const { epoch } = await read(req, reply);
      return { epoch, catalog: owner };
    });

    // ---- sources
    app.get('/admin/sources', async (req, reply) => (await authorize(req, reply)).sources);
    app.get('/admin/sources/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const s = (await authorize(req, reply)).sources.find((x) => x.id === req.params.id);
      if (!s) throw new ShoalError('NOT_FOUND', `no source "${req.params.id}"`);
      return s;
    });
    const putSource = async (req: FastifyRequest, body: unknown, mustExist?: string) => {
      const { catalog, options } = await mutation(req);
      if (mustExist !== undefined && !catalog.sources.some((s) => s.id === mustExist)) throw new ShoalError('NOT_FOUND', `no source "${mustExist}"`, { hint: 'POST /admin/sources registers a new one' });
      // the admin edge: files under the roots, allowed hosts, no env references, never the control plane
      const source = makeSource(await policy.checkSource(makeSource(parseBody(sourceSchema, body, 'source'))));
      checkWith({ ...catalog, sources: [...catalog.sources.filter((s) => s.id !== source.id), source] });
      return done(await target.registry.registerSource(source, options), ofSource(catalog, source.id));
    };
    app.post('/admin/sources', async (req) => putSource(req, req.body));
    app.put('/admin/sources/:id', async (req: FastifyRequest<{ Params: { id: string } }>) =>
      putSource(req, { ...((req.body ?? {}) as object), id: req.params.id }, req.params.id));
    app.delete('/admin/sources/:id', async (req: FastifyRequest<{ Params: { id: string } }>) => {
      const { catalog, options } = await mutation(req);
      if (!catalog.sources.some((s) => s.id === req.params.id)) throw new ShoalError('NOT_FOUND', `no source "${req.params.id}"`);
      return done(await target.registry.dropSource(req.params.id, options), ofSource(catalog, req.params.id));
    });

    // ---- tables and their columns
    app.get('/admin/tables', async (req, reply) => (await authorize(req, reply)).tables);
    app.get('/admin/tables/:ref', async (req: FastifyRequest<{ Params: { ref: string } }>, reply) => tableOf(await authorize(req, reply), req.params.ref));
    app.post('/admin/tables', async (req) => {
      const { catalog, options } = await mutation(req);
      const { rls_rules: rulesBody, ...tableBody } = (req.body ?? {}) as { rls_rules?: unknown };
      const raw = parseBody(tableSchema, tableBody, 'table');
      const table = makeTable({ ...raw, columns: (raw.columns ?? []).map((c) => makeColumn(c)) });
      const rules: RlsRuleConfig[] = parseBody(tableRulesSchema, rulesBody ?? [], 'table rls_rules').map((r) => ({ table_id: table.alias ?? table.table, role_id: r.role_id, filter: r.filter }));
      const others = catalog.tables.filter((t) => !(t.domain_id === table.domain_id && (t.alias ?? t.table) === (table.alias ?? table.table)));
      await policy.checkTable(table, catalog);
      const keyOf = (r: RlsRuleConfig) => `${r.table_id ?? ''}\u0000${r.domain_id ?? ''}\u0000${r.role_id}`;
      const replaced = new Set(rules.map(keyOf));
      checkWith({ ...catalog, tables: [...others, table], rls_rules: [...catalog.rls_rules.filter((r) => !replaced.has(keyOf(r))), ...rules] });
      return done(await target.registry.registerTable(table, rules, options), [table]);
    });
    app.delete('/admin/tables/:ref', async (req: FastifyRequest<{ Params: { ref: string } }>) => {
      const { catalog, options } = await mutation(req);
      const ref = req.params.ref.toLowerCase();
      const dropped = catalog.tables.filter((t) => [qualifiedName(t), t.alias ?? t.table].some((n) => n.toLowerCase() === ref));
      return done(await target.registry.dropTable(req.params.ref, options), dropped);
    });
    app.put('/admin/tables/:ref/columns/:name', async (req: FastifyRequest<{ Params: { ref: string; name: string } }>) => {
      const { catalog, options } = await mutation(req);
      const table = tableOf(catalog, req.params.ref);
      const column = makeColumn(parseBody(columnSchema, { ...((req.body ?? {}) as object), name: req.params.name }, 'column'));
      const columns = table.columns.some((c) => c.name === column.name) ? table.columns.map((c) => (c.name === column.name ? column : c)) : [...table.columns, column];
      checkWith({ ...catalog, tables: catalog.tables.map((t) => (t === table ? makeTable({ ...table, columns }) : t)) });
      return done(await target.registry.upsertColumn(tableId(table), column, options), [table]);
    });
    app.delete('/admin/tables/:ref/columns/:name', async (req: FastifyRequest<{ Params: { ref: string; name: string } }>) => {
      const { catalog, options } = await mutation(req);
      const table = tableOf(catalog, req.params.ref);
      if (!table.columns.some((c) => c.name === req.params.name)) throw new ShoalError('NOT_FOUND', `table ${tableId(table)} has no column "${req.params.name}"`);
      return done(await target.registry.dropColumn(tableId(table), req.params.name, options), [table]);
    });

    // ---- roles
    app.get('/admin/roles', async (req, reply) => (await authorize(req, reply)).roles);
    app.get('/admin/roles/:id', async (req: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const r = (await authorize(req, reply)).roles.find((x) => x.id === req.params.id);
      if (!r) throw new ShoalError('NOT_FOUND', `no role "${req.params.id}"`);
      return r;
    });
    const putRole = async (req: FastifyRequest, body: unknown, mustExist?: string) => {
      const { catalog, options } = await mutation(req);
      if (mustExist !== undefined && !catalog.roles.some((r) => r.id === mustExist)) throw new ShoalError('NOT_FOUND', `no role "${mustExist}"`, { hint: 'POST /admin/roles registers a new one' });
      const role = makeRole(parseBody(roleSchema, body, 'role'));
      checkWith({ ...catalog, roles: [...catalog.roles.filter((r) => r.id !== role.id), role] });
      return done(await target.registry.registerRole(role, options));
    };
    app.post('/admin/roles', async (req) => putRole(req, req.body));
    app.put('/admin/roles/:id', async (req: FastifyRequest<{ Params: { id: string } }>) => putRole(req, { ...((req.body ?? {}) as object), id: req.params.id }, req.params.id));
    app.delete('/admin/roles/:id', async (req: FastifyRequest<{ Params: { id: string } }>) => {
      const { catalog, options } = await mutation(req);
      if (!catalog.roles.some((r) => r.id === req.params.id)) throw new ShoalError('NOT_FOUND', `no role "${req.params.id}"`);
      return done(await target.registry.dropRole(req.params.id, options));
    });

    // ---- RLS rules, addressed as /admin/rls/table/<table id>/<role> or /admin/rls/domain/<domain>/<role>
    app.get('/admin/rls', async (req, reply) => (await authorize(req, reply)).rls_rules);
    app.post('/admin/rls', async (req) => {
      const { catalog, options } = await mutation(req);
      const rule = parseBody(rlsRuleSchema, req.body, 'rls rule') as RlsRuleConfig;
      checkWith({ ...catalog, rls_rules: [...catalog.rls_rules, rule] });
      return done(await target.registry.upsertRlsRule(rule, options));
    });
    const ruleAt = (catalog: CatalogModel, key: RlsRuleKey): RlsRuleKey => {
      // a table is addressed by its id or qualified name; the registry keys rules by table id
      const k = key.table_id !== undefined ? { ...key, table_id: tableId(tableOf(catalog, key.table_id)) } : key;
      if (!catalog.rls_rules.some((r) => sameRule(r, k))) {
        throw new ShoalError('NOT_FOUND', `no rls rule for ${k.table_id !== undefined ? `table ${k.table_id}` : `domain ${k.domain_id}`} and role ${k.role_id}`, { hint: 'GET /admin/rls lists the rules; POST /admin/rls adds one' });
      }
      return k;
    };
    app.put('/admin/rls/:kind/:target/:role', async (req: FastifyRequest<{ Params: { kind: string; target: string; role: string } }>) => {
      const { catalog, options } = await mutation(req);
      const key = ruleAt(catalog, parseRlsKey(req.params));
      const { filter } = parseBody(rlsUpdateSchema, req.body, 'rls rule update');
      const rule: RlsRuleConfig = { ...key, filter };
      checkWith({ ...catalog, rls_rules: [...catalog.rls_rules.filter((r) => !sameRule(r, key)), rule] });
      return done(await target.registry.upsertRlsRule(rule, options));
    });
    app.delete('/admin/rls/:kind/:target/:role', async (req: FastifyRequest<{ Params: { kind: string; target: string; role: string } }>) => {
      const { catalog, options } = await mutation(req);
      const key = ruleAt(catalog, parseRlsKey(req.params));
      return done(await target.registry.dropRlsRule(key, options));
    });
  };
}
