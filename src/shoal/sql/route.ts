import type { CatalogTable } from './catalog.js';
import { type DirectDialect, certify } from './certified-subset.js';
import type { MysqlFlavour } from './dialects/mysql.js';
import type { EngineDialect, GenerationTarget } from './generate.js';
import type { GovernedStatement } from './govern.js';

/** Where a governed query runs. */
export type Route =
  | { readonly kind: 'engine' }
  | { readonly kind: 'direct'; readonly sourceId: string; readonly dialect: DirectDialect };

export interface RouteOptions {
  /** The federation engine the engine route generates for (default duckdb). */
  readonly engine?: EngineDialect;
  /** `engine` forces the engine route; `auto` (default) runs directly when certified. */
  readonly route?: 'auto' | 'engine';
  /** Whether a source may be queried directly (e.g. false while it is down or landed-only). */
  readonly directAllowed?: (sourceId: string) => boolean;
}

export interface RouteDecision {
  readonly route: Route;
  readonly target: GenerationTarget;
  /** Why the query is not on the direct route (or why it is). */
  readonly reason: string;
}

/** Source types with a direct driver, and the dialect (and MySQL flavour) they speak. */
export function directDialectOf(sourceType: string): { dialect: DirectDialect; flavour?: MysqlFlavour } | undefined {
  switch (sourceType.toLowerCase()) {
    case 'postgresql':
    case 'postgres': return { dialect: 'postgres' };
    case 'mysql': return { dialect: 'mysql', flavour: 'mysql8' };
    case 'mariadb': return { dialect: 'mysql', flavour: 'mariadb' };
    case 'sqlite': return { dialect: 'sqlite' };
    default: return undefined;
  }
}


/**
 * PostgreSQL semantics are the contract on every route: a query runs directly on its one
 * source only when every table lives there, the source speaks a direct dialect, and every
 * construct of the governed query is in the subset certified for that dialect.
 */
export function decideRoute(gov: GovernedStatement, options: RouteOptions = {}): RouteDecision {
  const engineTarget: GenerationTarget = options.engine === undefined || options.engine === 'duckdb' ? { kind: 'engine' } : { kind: 'engine', engine: options.engine };
  const engine = (reason: string): RouteDecision => ({ route: { kind: 'engine' }, target: engineTarget, reason });
  if (options.route === 'engine') return engine('engine route requested');
  const tables: readonly CatalogTable[] = gov.tables;
  if (tables.length === 0) return engine('no source table');
  const sourceIds = new Set(tables.map((t) => t.source.id));
  if (sourceIds.size > 1) return engine(`tables span ${sourceIds.size} sources`);
  const source = tables[0]!.source;
  const direct = directDialectOf(source.type);
  if (!direct) return engine(`source type ${source.type} has no direct route`);
  if (options.directAllowed && !options.directAllowed(source.id)) return engine(`direct route to ${source.id} is not allowed`);
  // SQLite and MySQL have no boolean type: they would answer 1/0 where PostgreSQL answers true/false
  if (direct.dialect !== 'postgres' && gov.columns.some((col) => col.type === 'boolean')) {
    return engine(`boolean result columns are not certified for ${direct.dialect}`);
  }
  const c = certify(gov.stmt, direct.dialect, tables, direct.flavour);
  if (!c.ok) return engine(c.reason);
  const route: Route = { kind: 'direct', sourceId: source.id, dialect: direct.dialect };
  const target: GenerationTarget = direct.dialect === 'mysql'
    ? { kind: 'direct', dialect: 'mysql', flavour: direct.flavour ?? 'mysql8' }
    : { kind: 'direct', dialect: direct.dialect };
  return { route, target, reason: `every construct is certified for ${direct.dialect}` };
}
