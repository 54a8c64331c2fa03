/**
 * Read the catalog from the registry tables, and write the difference between two catalogs back as
 * row upserts and deletes (in foreign-key order). Equality is canonical-JSON equality per entity.
 */
import type { SqlExecutor } from '../../core/sql/sql-client.js';
import {
  DERIVED_SOURCE_ID,
  deepFreeze,
  makeColumn,
  makeDomain,
  makeRelationship,
  makeRole,
  makeSource,
  makeTable,
  tableId,
  type CatalogModel,
  type ColumnConfig,
  type RlsRuleConfig,
  type TableConfig,
} from '../config/model.js';
import { canonicalJson } from '../../core/canonical-json.js';

type DefinitionRow = { readonly definition: string };

export async function readCatalog(tx: SqlExecutor): Promise<CatalogModel> {
  // byte order on both dialects (PostgreSQL would otherwise sort by the database's locale collation)
  const c = tx.dialect === 'postgres' ? ' COLLATE "C"' : '';
  const domains = await tx.query<DefinitionRow>(`SELECT definition FROM domains ORDER BY id${c}`);
  const sources = await tx.query<DefinitionRow>(`SELECT definition FROM sources ORDER BY id${c}`);
  const tables = await tx.query<DefinitionRow & { id: string }>(`SELECT id, definition FROM registered_tables ORDER BY id${c}`);
  const columns = await tx.query<DefinitionRow & { table_id: string }>(
    `SELECT table_id, definition FROM table_columns ORDER BY table_id${c}, ordinal`,
  );
  const roles = await tx.query<DefinitionRow>(`SELECT definition FROM roles ORDER BY id${c}`);
  const relationships = await tx.query<DefinitionRow>(`SELECT definition FROM relationships ORDER BY id${c}`);
  const rls = await tx.query<{ target_kind: string; target_id: string; role_id: string; filter: string }>(
    `SELECT target_kind, target_id, role_id, filter FROM rls_rules ORDER BY target_kind DESC, target_id${c}, role_id${c}`,
  );
  const columnsByTable = new Map<string, ColumnConfig[]>();
  for (const c of columns) {
    const list = columnsByTable.get(c.table_id) ?? [];
    list.push(JSON.parse(c.definition) as ColumnConfig);
    columnsByTable.set(c.table_id, list);
  }
  return deepFreeze({
    sources: sources.map((r) => makeSource(JSON.parse(r.definition))),
    domains: domains.map((r) => makeDomain(JSON.parse(r.definition))),
    tables: tables.map((r) => makeTable({ ...(JSON.parse(r.definition) as TableConfig), columns: (columnsByTable.get(r.id) ?? []).map(makeColumn) })),
    relationships: relationships.map((r) => makeRelationship(JSON.parse(r.definition))),
    roles: roles.map((r) => makeRole(JSON.parse(r.definition))),
    rls_rules: rls.map((r) =>
      deepFreeze({ [r.target_kind === 'table' ? 'table_id' : 'domain_id']: r.target_id, role_id: r.role_id, filter: r.filter } as unknown as RlsRuleConfig),
    ),
  });
}

export function rlsKey(r: Pick<RlsRuleConfig, 'table_id' | 'domain_id' | 'role_id'>): string {
  return r.table_id !== undefined ? `table ${r.table_id} role ${r.role_id}` : `domain ${r.domain_id} role ${r.role_id}`;
}

interface Keyed<T> {
  readonly key: string;
  readonly value: T;
  readonly text: string;
}

function keyed<T>(list: readonly T[], key: (v: T) => string): Map<string, Keyed<T>> {
  return new Map(list.map((v) => [key(v), { key: key(v), value: v, text: canonicalJson(v) }]));
}

interface Diff<T> {
  readonly upserts: readonly T[];
  readonly deletes: readonly string[];
}

function diff<T>(before: readonly T[], after: readonly T[], key: (v: T) => string): Diff<T> {
  const a = keyed(before, key);
  const b = keyed(after, key);
  const upserts = [...b.values()].filter((x) => a.get(x.key)?.text !== x.text).map((x) => x.value);
  const deletes = [...a.keys()].filter((k) => !b.has(k));
  return { upserts, deletes };
}

/** Write `next` over `current` (which must be what the tables hold now); returns one line per change. */
export async function writeCatalogDiff(tx: SqlExecutor, current: CatalogModel, next: CatalogModel): Promise<string[]> {
  const changes: string[] = [];
  const domains = diff(current.domains, next.domains, (d) => d.id);
  const sources = diff(current.sources, next.sources, (s) => s.id);
  const tables = diff(current.tables, next.tables, tableId);
  const roles = diff(current.roles, next.roles, (r) => r.id);
  const relationships = diff(current.relationships, next.relationships, (r) => r.id);
  const rls = diff(current.rls_rules, next.rls_rules, rlsKey);

  for (const d of domains.upserts) {
    await tx.run('INSERT INTO domains (id, definition) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET definition = excluded.definition', [d.id, canonicalJson(d)]);
    changes.push(`upsert domain ${d.id}`);
  }
  for (const s of sources.upserts) {
    await tx.run(
      `INSERT INTO sources (id, type, password_ref, definition) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET type = excluded.type, password_ref = excluded.password_ref, definition = excluded.definition`,
      [s.id, s.type, s.password ?? null, canonicalJson(s)],
    );
    changes.push(`upsert source ${s.id}`);
  }
  for (const t of tables.upserts) {
    const id = tableId(t);
    const { columns, ...rest } = t;
    await tx.run(
      `INSERT INTO registered_tables (id, source_id, domain_id, schema_name, table_name, definition) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET source_id = excluded.source_id, domain_id = excluded.domain_id,
         schema_name = excluded.schema_name, table_name = excluded.table_name, definition = excluded.definition`,
      [id, t.source_id === DERIVED_SOURCE_ID ? null : t.source_id, t.domain_id, t.schema, t.table, canonicalJson(rest)],
    );
    await tx.run('DELETE FROM table_columns WHERE table_id = ?', [id]);
    // one statement per table (not per column): a cold import of many tables stays a few round trips
    for (let start = 0; start < columns.length; start += 200) {
      const chunk = columns.slice(start, start + 200);
      await tx.run(
        `INSERT INTO table_columns (table_id, ordinal, name, definition) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((c, i) => [id, start + i, c.name, canonicalJson(c)]),
      );
    }
    changes.push(`upsert table ${id}`);
  }
  for (const r of roles.upserts) {
    await tx.run(
      'INSERT INTO roles (id, parent_role_id, definition) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET parent_role_id = excluded.parent_role_id, definition = excluded.definition',
      [r.id, r.parent_role_id ?? null, canonicalJson(r)],
    );
    changes.push(`upsert role ${r.id}`);
  }
  for (const r of relationships.upserts) {
    await tx.run(
      `INSERT INTO relationships (id, source_table_id, target_table_id, definition) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET source_table_id = excluded.source_table_id, target_table_id = excluded.target_table_id, definition = excluded.definition`,
      [r.id, r.source_table_id, r.target_table_id, canonicalJson(r)],
    );
    changes.push(`upsert relationship ${r.id}`);
  }
  for (const r of rls.upserts) {
    const kind = r.table_id !== undefined ? 'table' : 'domain';
    await tx.run(
      'INSERT INTO rls_rules (target_kind, target_id, role_id, filter) VALUES (?, ?, ?, ?) ON CONFLICT (target_kind, target_id, role_id) DO UPDATE SET filter = excluded.filter',
      [kind, (r.table_id ?? r.domain_id)!, r.role_id, r.filter],
    );
    changes.push(`upsert rls rule ${rlsKey(r)}`);
  }

  const byRlsKey = new Map(current.rls_rules.map((r) => [rlsKey(r), r]));
  for (const k of rls.deletes) {
    const r = byRlsKey.get(k)!;
    await tx.run('DELETE FROM rls_rules WHERE target_kind = ? AND target_id = ? AND role_id = ?', [
      r.table_id !== undefined ? 'table' : 'domain',
      (r.table_id ?? r.domain_id)!,
      r.role_id,
    ]);
    changes.push(`delete rls rule ${k}`);
  }
  for (const id of relationships.deletes) {
    await tx.run('DELETE FROM relationships WHERE id = ?', [id]);
    changes.push(`delete relationship ${id}`);
  }
  for (const id of tables.deletes) {
    await tx.run('DELETE FROM table_columns WHERE table_id = ?', [id]);
    await tx.run('DELETE FROM registered_tables WHERE id = ?', [id]);
    changes.push(`delete table ${id}`);
  }
  for (const id of roles.deletes) {
    await tx.run('DELETE FROM roles WHERE id = ?', [id]);
    changes.push(`delete role ${id}`);
  }
  for (const id of sources.deletes) {
    await tx.run('DELETE FROM sources WHERE id = ?', [id]);
    changes.push(`delete source ${id}`);
  }
  for (const id of domains.deletes) {
    await tx.run('DELETE FROM domains WHERE id = ?', [id]);
    changes.push(`delete domain ${id}`);
  }
  return changes;
}
