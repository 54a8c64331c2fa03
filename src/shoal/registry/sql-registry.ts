/**
 * The registry over a SqlClient: SQLite (embedded default) or PostgreSQL (shared by a fleet). The two
 * differ in three places only: how a mutation serialises (SQLite: BEGIN IMMEDIATE takes the write
 * lock; PostgreSQL: the config_epoch row is locked FOR UPDATE), the NOTIFY sent in the mutation's
 * transaction, and LISTEN for the fast path.
 *
 * Every mutation reads the current catalog inside its transaction, computes the next one, validates it
 * as a whole (the same checks as the config loader), writes only the rows that differ, and bumps the
 * epoch in the same transaction if anything changed. A failed mutation therefore changes nothing and
 * bumps nothing; a no-op mutation bumps nothing.
 */
import { canListen, type SqlClient, type SqlExecutor } from '../../core/sql/sql-client.js';
import { checkCatalog, resolveTableReferences } from '../check/catalog-checks.js';
import type { ConfigIssue } from '../config/config-issue.js';
import {
  catalogOf,
  deepFreeze,
  findTable,
  makeColumn,
  makeDomain,
  makeRelationship,
  makeRlsRule,
  makeRole,
  makeSource,
  makeTable,
  tableId,
  type CatalogModel,
  type ColumnConfig,
  type DomainConfig,
  type RelationshipConfig,
  type RlsRuleConfig,
  type RoleConfig,
  type SourceConfig,
  type TableConfig,
} from '../config/model.js';
import { isSecretReference } from '../config/secret.js';
import { ShoalError } from '../errors.js';
import { planCatalog, type CatalogPlan, type PlanEntry } from './catalog-plan.js';
import { readCatalog, rlsKey, writeCatalogDiff } from './catalog-rows.js';
import type { ApplyResult, ImportOptions, MutationOptions, MutationResult, Registry, RegistrySnapshot, RlsRuleKey } from './registry.js';
import { NOTIFY_CHANNEL } from './registry-schema.js';
import { verifyIdentity, type RegistryIdentity } from './registry-identity.js';
import { registryFailure } from './registry-unavailable.js';

export class SqlRegistry implements Registry {
  readonly dialect: 'sqlite' | 'postgres';
  readonly subscribe?: (onNotify: (epoch: number) => void) => Promise<() => Promise<void>>;
  readonly deploymentId: string;

  constructor(
    private readonly client: SqlClient,
    readonly url: string,
    /** The registry this handle opened: checked before every write and every epoch read (./registry-identity.ts). */
    readonly identity: RegistryIdentity,
  ) {
    this.deploymentId = identity.deploymentId;
    this.dialect = client.dialect;
    if (canListen(client)) {
      this.subscribe = (onNotify) => client.listen(NOTIFY_CHANNEL, (payload) => onNotify(Number(payload)));
    }
  }

  /** The epoch; REGISTRY_REPLACED when the registry is no longer the one opened (so the epoch watch and /health notice). */
  async epoch(): Promise<number> {
    return this.guard(async () => {
      await verifyIdentity(this.client, this.identity);
      return readEpoch(this.client);
    });
  }

  async snapshot(): Promise<RegistrySnapshot> {
    return this.guard(() =>
      this.client.transaction(async (tx) => deepFreeze({ epoch: await readEpoch(tx), catalog: await readCatalog(tx) }), { readOnly: true }),
    );
  }

  /** Run registry I/O; an outage of its database becomes REGISTRY_UNAVAILABLE (503), not an untyped 500. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      throw registryFailure(e, this.url);
    }
  }

  async importConfig(catalog: CatalogModel, options: ImportOptions = {}): Promise<MutationResult> {
    const incoming = normalise(catalogOf(catalog));
    return this.mutate(options, (current) => {
      if (options.prune) return incoming;
      const tables = mergeBy(current.tables, incoming.tables, tableId);
      // resolve the incoming rules' table references against the merged tables before keying them
      const resolved = resolveTableReferences({ ...incoming, tables }).catalog;
      return {
        sources: mergeBy(current.sources, incoming.sources, (s) => s.id),
        domains: mergeBy(current.domains, incoming.domains, (d) => d.id),
        tables,
        relationships: mergeBy(current.relationships, resolved.relationships, (r) => r.id),
        roles: mergeBy(current.roles, incoming.roles, (r) => r.id),
        rls_rules: mergeBy(current.rls_rules, resolved.rls_rules, rlsKey),
      };
    });
  }

  async plan(catalog: CatalogModel): Promise<CatalogPlan> {
    const incoming = normalise(catalogOf(catalog));
    return this.guard(() =>
      this.client.transaction(async (tx) => {
        const epoch = await readEpoch(tx);
        return deepFreeze({ epoch, entries: planCatalog(await readCatalog(tx), validate(incoming)) });
      }, { readOnly: true }),
    );
  }

  async applyConfig(catalog: CatalogModel, options: MutationOptions = {}): Promise<ApplyResult> {
    const incoming = normalise(catalogOf(catalog));
    let entries: PlanEntry[] = [];
    const result = await this.mutate(options, () => incoming, (current, next) => {
      entries = planCatalog(current, next);
    });
    return deepFreeze({ ...result, entries });
  }

  async registerSource(source: SourceConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const s = makeSource(source);
    return this.mutate(options, (c) => ({ ...c, sources: mergeBy(c.sources, [s], (x) => x.id) }));
  }

  async dropSource(id: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      need(c.sources.some((s) => s.id === id), 'source', id);
      refuseInUse('source', id, c.tables.filter((t) => t.source_id === id).map((t) => `table ${tableId(t)}`), 'drop or move those tables first');
      return { ...c, sources: c.sources.filter((s) => s.id !== id) };
    });
  }

  async registerDomain(domain: DomainConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const d = makeDomain(domain);
    return this.mutate(options, (c) => ({ ...c, domains: mergeBy(c.domains, [d], (x) => x.id) }));
  }

  async dropDomain(id: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      need(c.domains.some((d) => d.id === id), 'domain', id);
      refuseInUse('domain', id, [
        ...c.tables.filter((t) => t.domain_id === id).map((t) => `table ${tableId(t)}`),
        ...c.rls_rules.filter((r) => r.domain_id === id).map((r) => `rls rule ${rlsKey(r)}`),
      ], 'drop or move those first');
      return { ...c, domains: c.domains.filter((d) => d.id !== id) };
    });
  }

  async registerTable(table: TableConfig, rlsRules: readonly RlsRuleConfig[] = [], options: MutationOptions = {}): Promise<MutationResult> {
    const t = makeTable(table);
    const rules = rlsRules.map(rlsRule);
    return this.mutate(options, (c) => {
      const tables = mergeBy(c.tables, [t], tableId);
      return { ...c, tables, rls_rules: mergeBy(c.rls_rules, rules.map((r) => canonicalRule({ ...c, tables }, r)), rlsKey) };
    });
  }

  async dropTable(ref: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      const t = findTable(c, ref);
      need(t !== undefined, 'table', ref);
      const id = tableId(t!);
      refuseInUse('table', id, [
        ...c.rls_rules.filter((r) => r.table_id === id).map((r) => `rls rule for role ${r.role_id}`),
        ...c.relationships.filter((r) => r.source_table_id === id || r.target_table_id === id).map((r) => `relationship ${r.id}`),
      ], 'drop those first (dropping a table never silently drops its row-level security)');
      return { ...c, tables: c.tables.filter((x) => tableId(x) !== id) };
    });
  }

  async upsertColumn(tableRef: string, column: ColumnConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const col = makeColumn(column);
    return this.mutate(options, (c) => {
      const t = findTable(c, tableRef);
      need(t !== undefined, 'table', tableRef);
      const columns = t!.columns.some((x) => x.name === col.name) ? t!.columns.map((x) => (x.name === col.name ? col : x)) : [...t!.columns, col];
      return { ...c, tables: c.tables.map((x) => (x === t ? makeTable({ ...t!, columns }) : x)) };
    });
  }

  async dropColumn(tableRef: string, name: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      const t = findTable(c, tableRef);
      need(t !== undefined, 'table', tableRef);
      need(t!.columns.some((x) => x.name === name), 'column', `${tableId(t!)}.${name}`);
      refuseInUse('column', `${tableId(t!)}.${name}`, t!.columns.length === 1 ? [`table ${tableId(t!)} (its only column)`] : [], 'drop the table instead');
      return { ...c, tables: c.tables.map((x) => (x === t ? makeTable({ ...t!, columns: t!.columns.filter((col) => col.name !== name) }) : x)) };
    });
  }

  async registerRole(role: RoleConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const r = makeRole(role);
    return this.mutate(options, (c) => ({ ...c, roles: mergeBy(c.roles, [r], (x) => x.id) }));
  }

  async dropRole(id: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      need(c.roles.some((r) => r.id === id), 'role', id);
      refuseInUse('role', id, [
        ...c.rls_rules.filter((r) => r.role_id === id).map((r) => `rls rule ${rlsKey(r)}`),
        ...c.roles.filter((r) => r.parent_role_id === id).map((r) => `role ${r.id} (parent_role_id)`),
      ], 'drop or change those first');
      return { ...c, roles: c.roles.filter((r) => r.id !== id) };
    });
  }

  async upsertRlsRule(rule: RlsRuleConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const r = rlsRule(rule);
    return this.mutate(options, (c) => {
      const canonical = canonicalRule(c, r);
      return { ...c, rls_rules: mergeBy(c.rls_rules, [canonical], rlsKey) };
    });
  }

  async dropRlsRule(key: RlsRuleKey, options: MutationOptions = {}): Promise<MutationResult> {
    const k = rlsRule({ ...key, filter: 'true' });
    return this.mutate(options, (c) => {
      const wanted = rlsKey(canonicalRule(c, k));
      need(c.rls_rules.some((r) => rlsKey(r) === wanted), 'rls rule', wanted);
      return { ...c, rls_rules: c.rls_rules.filter((r) => rlsKey(r) !== wanted) };
    });
  }

  async registerRelationship(relationship: RelationshipConfig, options: MutationOptions = {}): Promise<MutationResult> {
    const r = makeRelationship(relationship);
    return this.mutate(options, (c) => ({ ...c, relationships: mergeBy(c.relationships, [r], (x) => x.id) }));
  }

  async dropRelationship(id: string, options: MutationOptions = {}): Promise<MutationResult> {
    return this.mutate(options, (c) => {
      need(c.relationships.some((r) => r.id === id), 'relationship', id);
      return { ...c, relationships: c.relationships.filter((r) => r.id !== id) };
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private mutate(
    options: MutationOptions,
    change: (current: CatalogModel) => CatalogModel,
    observe?: (current: CatalogModel, next: CatalogModel) => void,
  ): Promise<MutationResult> {
    return this.guard(() => this.client.transaction(async (tx) => {
      // serialise mutations: SQLite already holds the write lock (BEGIN IMMEDIATE)
      // in the write transaction (SQLite holds the write lock): a deleted or replaced registry is never written
      await verifyIdentity(tx, this.identity);
      const before = await readEpoch(tx, tx.dialect === 'postgres' ? ' FOR UPDATE' : '');
      // checked under the lock, so no mutation can land between the check and the write
      if (options.expectedEpoch !== undefined && options.expectedEpoch !== before) {
        throw new ShoalError('REGISTRY_EPOCH_MISMATCH', `the registry is at epoch ${before}, not the expected epoch ${options.expectedEpoch}: another change landed first`, {
          where: 'registry epoch',
          hint: 're-read the catalog (GET /admin/epoch returns the current epoch), reapply your change to it, and retry with the new epoch',
        });
      }
      const current = await readCatalog(tx);
      const next = validate(change(current));
      observe?.(current, next);
      const changes = await writeCatalogDiff(tx, current, next);
      if (changes.length === 0) return deepFreeze({ epoch: before, changed: false, changes });
      await tx.run('UPDATE config_epoch SET epoch = epoch + 1 WHERE id = 1');
      const epoch = await readEpoch(tx);
      // delivered to listeners only if this transaction commits
      if (tx.dialect === 'postgres') await tx.query('SELECT pg_notify(?, ?)', [NOTIFY_CHANNEL, String(epoch)]);
      return deepFreeze({ epoch, changed: true, changes });
    }));
  }
}

async function readEpoch(q: SqlExecutor, suffix = ''): Promise<number> {
  const rows = await q.query<{ epoch: number | string }>(`SELECT epoch FROM config_epoch WHERE id = 1${suffix}`);
  const row = rows[0];
  if (!row) throw new ShoalError('REGISTRY_CORRUPT', 'the config_epoch row is missing', { hint: 'restore the registry database; it was not created by shoal or was edited by hand' });
  return Number(row.epoch);
}

function normalise(c: CatalogModel): CatalogModel {
  return deepFreeze({
    sources: c.sources.map(makeSource),
    domains: c.domains.map(makeDomain),
    tables: c.tables.map((t) => makeTable(t)),
    relationships: c.relationships.map(makeRelationship),
    roles: c.roles.map(makeRole),
    rls_rules: c.rls_rules.map(rlsRule),
  });
}

/** Validate a whole proposed catalog; canonicalises table references; throws ShoalError on any error. */
function validate(proposed: CatalogModel): CatalogModel {
  proposed.sources.forEach((s) => {
    if (s.password !== undefined && !isSecretReference(s.password)) {
      throw new ShoalError('REGISTRY_PLAINTEXT_SECRET', `source ${s.id}: the password is a literal value; the registry stores secrets only as \${env:VAR} references`, {
        where: `source ${s.id}`,
        hint: 'register the source with password: "${env:SOME_VAR}" and set SOME_VAR where shoal runs',
      });
    }
  });
  const resolved = resolveTableReferences(proposed);
  const errors: ConfigIssue[] = [...resolved.errors, ...checkCatalog(resolved.catalog).errors];
  if (errors.length > 0) {
    const lines = errors.map((e) => `${describePath(resolved.catalog, e.path)}: ${e.message}`);
    throw new ShoalError('REGISTRY_INVALID', lines.join('; '), {
      where: describePath(resolved.catalog, errors[0]!.path),
      hint: errors[0]!.hint ?? 'fix the entry and register it again',
    });
  }
  return resolved.catalog;
}

const LIST_PATH = /^(sources|domains|tables|relationships|roles|rls_rules)\[(\d+)\](.*)$/;

/** `tables[3].domain_id` → `table orders .domain_id`: catalog indices mean nothing to an API caller. */
function describePath(c: CatalogModel, path: string): string {
  const m = LIST_PATH.exec(path);
  if (!m) return path;
  const i = Number(m[2]);
  const rest = m[3] ?? '';
  switch (m[1]) {
    case 'sources': return `source ${c.sources[i]?.id}${rest}`;
    case 'domains': return `domain ${c.domains[i]?.id}${rest}`;
    case 'tables': return `table ${c.tables[i] ? tableId(c.tables[i]) : i}${rest}`;
    case 'relationships': return `relationship ${c.relationships[i]?.id}${rest}`;
    case 'roles': return `role ${c.roles[i]?.id}${rest}`;
    default: return `rls rule ${c.rls_rules[i] ? rlsKey(c.rls_rules[i]) : i}${rest}`;
  }
}

function rlsRule(r: RlsRuleConfig): RlsRuleConfig {
  if ((r.table_id === undefined) === (r.domain_id === undefined)) {
    throw new ShoalError('REGISTRY_INVALID', `rls rule for role ${r.role_id}: name exactly one of table_id or domain_id`, {
      hint: 'table_id is a table alias/name; domain_id applies the rule to every table of a domain',
    });
  }
  return makeRlsRule(r);
}

function canonicalRule(c: CatalogModel, r: RlsRuleConfig): RlsRuleConfig {
  if (r.table_id === undefined) return r;
  const t = findTable(c, r.table_id);
  return t ? { ...r, table_id: tableId(t) } : r;
}

/** `base` with every entry of `incoming` replacing the one with the same key (or appended). */
function mergeBy<T>(base: readonly T[], incoming: readonly T[], key: (v: T) => string): T[] {
  const out = new Map(base.map((v) => [key(v), v]));
  for (const v of incoming) out.set(key(v), v);
  return [...out.values()];
}

function need(found: boolean, what: string, id: string): void {
  if (!found) throw new ShoalError('REGISTRY_NOT_FOUND', `no ${what} "${id}" is registered`, { where: `${what} ${id}`, hint: 'list the catalog to see what is registered' });
}

function refuseInUse(what: string, id: string, users: readonly string[], hint: string): void {
  if (users.length === 0) return;
  throw new ShoalError('REGISTRY_IN_USE', `cannot drop ${what} ${id}: it is referenced by ${users.join(', ')}`, { where: `${what} ${id}`, hint });
}
