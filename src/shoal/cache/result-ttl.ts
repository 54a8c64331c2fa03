/**
 * How long a cached result may be served: each table's TTL resolves table `cache_ttl` > its
 * source's `cache_ttl` > `cache.default_ttl` (seconds), and a query's TTL is the least over the
 * tables it reads, so no answer outlives the freshness promise of any of its inputs. A view (a
 * table with `view_sql`) also counts the tables its SQL names; over-counting only lowers the TTL.
 * 0 means uncacheable.
 */
import { type CatalogModel, type TableConfig, qualifiedName } from '../config/model.js';

function ownTtl(model: CatalogModel, t: TableConfig, defaultTtl: number): number {
  if (t.cache_ttl !== undefined) return t.cache_ttl;
  const source = model.sources.find((s) => s.id === t.source_id);
  return source?.cache_ttl ?? defaultTtl;
}

function mentions(sql: string, t: TableConfig): boolean {
  const name = t.table.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_$])${name}($|[^a-z0-9_$])`).test(sql.toLowerCase());
}

/**
 * The TTL in seconds of a result reading `tableKeys` (`<domain>.<table>`, lower case, as the plan
 * lists them). A key the model does not know (it cannot happen for a planned query) gives 0.
 */
export function resultTtlSeconds(model: CatalogModel, tableKeys: readonly string[], defaultTtl: number): number {
  let ttl = Number.POSITIVE_INFINITY;
  for (const key of tableKeys) {
    const t = model.tables.find((x) => qualifiedName(x).toLowerCase() === key.toLowerCase());
    if (!t) return 0;
    ttl = Math.min(ttl, ownTtl(model, t, defaultTtl));
    if (t.view_sql) {
      for (const base of model.tables) if (base !== t && mentions(t.view_sql, base)) ttl = Math.min(ttl, ownTtl(model, base, defaultTtl));
    }
  }
  // a query that reads no table (`SELECT 1`) keeps the default
  return Math.max(0, ttl === Number.POSITIVE_INFINITY ? defaultTtl : ttl);
}
