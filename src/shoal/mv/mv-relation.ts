/**
 * How an MV appears to one governed query. The governance catalog names each materialized table's
 * relation `"__shoal_mv_<…>"` (a one-part engine name; a derived view's is `"__shoal_view_<…>"`);
 * before the engine runs the plan, that name is bound with a leading CTE to what the MV resolved to
 * for THIS query: the published snapshot (`read_parquet` of one immutable file) or, when never
 * materialized, the view_sql computed live (a derived view is always computed live).
 * Binding per query means a reader sees exactly one snapshot, whatever peers publish meanwhile.
 */
import { sha256Hex } from '../../core/hash.js';
import { DERIVED_SOURCE_ID, catalogName, qualifiedName, type TableConfig } from '../config/model.js';

/** Whether a table is defined by view_sql (a materialized view or a derived view). */
export function isDerivedTable(t: Pick<TableConfig, 'source_id' | 'view_sql'>): boolean {
  return t.source_id === DERIVED_SOURCE_ID && typeof t.view_sql === 'string' && t.view_sql.trim() !== '';
}

/** Whether a table is a materialized view (a derived table with view_sql and `materialize: true`). */
export function isMaterializedView(t: Pick<TableConfig, 'source_id' | 'materialize' | 'view_sql'>): boolean {
  return t.materialize && isDerivedTable(t);
}

/** An MV's id in the refresh catalog and the admin API: its qualified name `<domain>.<alias ?? table>`. */
export function mvId(t: Pick<TableConfig, 'domain_id' | 'alias' | 'table'>): string {
  return qualifiedName(t);
}

/** The relation name the governed SQL uses for an MV (unique per MV id, a plain identifier). */
export function mvRelationName(id: string): string {
  return relationName('__shoal_mv_', id);
}

/** The relation name the governed SQL uses for a derived view (view_sql, not materialized). */
export function viewRelationName(id: string): string {
  return relationName('__shoal_view_', id);
}

function relationName(prefix: string, id: string): string {
  return `${prefix}${id.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40)}_${sha256Hex(id).slice(0, 8)}`;
}

/**
 * `catalogFromConfig`'s `engineName`: MVs and derived views get their relation name (bound per
 * query to a snapshot or to their view_sql), every other table its physical three parts (the
 * engine's default exposure).
 */
export function engineNameWithMvs(t: TableConfig): readonly string[] {
  if (isMaterializedView(t)) return [mvRelationName(mvId(t))];
  if (isDerivedTable(t)) return [viewRelationName(mvId(t))];
  return [catalogName(t.source_id), t.schema, t.table];
}

/** What one MV relation is bound to for one query. */
export interface MvBinding {
  readonly relation: string;
  /** A SELECT: `SELECT * FROM read_parquet('…')` or the service-planned view_sql. */
  readonly body: string;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * Prefix `sql` with one CTE per binding. A plan that starts with its own WITH gets the bindings
 * spliced in front of its CTEs (a bound relation is never recursive, so RECURSIVE is kept as is).
 */
export function bindMvRelations(sql: string, bindings: readonly MvBinding[]): string {
  if (bindings.length === 0) return sql;
  const ctes = bindings.map((b) => `${quote(b.relation)} AS (${b.body})`).join(', ');
  const m = /^\s*WITH\s+(RECURSIVE\s+)?/i.exec(sql);
  if (m) return `WITH ${m[1] ?? ''}${ctes}, ${sql.slice(m[0].length)}`;
  return `WITH ${ctes} ${sql}`;
}

/** The relation that reads a snapshot file. */
export function snapshotRelation(path: string): string {
  return `read_parquet('${path.replace(/'/g, "''")}')`;
}

/** The body that reads a published snapshot file. */
export function snapshotBody(path: string): string {
  return `SELECT * FROM ${snapshotRelation(path)}`;
}
