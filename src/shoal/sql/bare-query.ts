/**
 * The client's query alone, for telling whose fault a failed query is: the same SQL planned for the
 * engine, but with no row filter and no mask, and every table it reads replaced by an empty
 * stand-in with the columns the role sees, typed as the catalog declares them. Nothing of
 * governance, no source and no view definition is left in it, so when the engine also refuses to
 * bind this text, the mistake is in the client's own SQL (a column missing from GROUP BY, an
 * aggregate in WHERE, arguments of the wrong types): a 400. When it binds, what failed was
 * something shoal composed or the catalog declares, and the failure stays a 5xx.
 *
 * The stand-ins hold only what the role may see (hidden columns are absent, as from the governed
 * query), so the engine's message about this text reveals no policy and no row.
 */
import type { CatalogColumn, GovernanceCatalog } from './catalog.js';
import { typeClass } from './column-type.js';
import type { EngineDialect } from './generate.js';
import { type PlanRequest, planQuery } from './plan.js';

const STAND_IN = '__shoal_bare_';

/** A statement for `engine` that binds exactly as the client's SQL does over the role's view of the catalog. */
export function bareQuery(req: PlanRequest, catalog: GovernanceCatalog, engine: EngineDialect): string {
  const noPolicy: GovernanceCatalog = {
    resolveTable: (parts) => catalog.resolveTable(parts),
    tableKeys: () => catalog.tableKeys(),
    role: (roleId) => catalog.role(roleId),
    canAccess: (roleId, tableKey) => catalog.canAccess(roleId, tableKey),
    visibleColumns: (roleId, tableKey) => catalog.visibleColumns(roleId, tableKey),
    mask: () => undefined,
    rowFilters: () => [],
  };
  const standIns = new Map<string, string>();
  const plan = planQuery(req, noPolicy, {
    route: 'engine',
    engine,
    pushdown: false,
    hotRelation: (tableKey) => {
      if (!standIns.has(tableKey)) standIns.set(tableKey, `${STAND_IN}${standIns.size + 1}`);
      return [standIns.get(tableKey)!];
    },
  });
  const ctes = [...standIns].map(([tableKey, name]) => {
    const table = catalog.resolveTable(tableKey.split('.')).find((t) => t.tableKey === tableKey);
    const visible = catalog.visibleColumns(req.role, tableKey);
    const columns = (table?.columns ?? []).filter((c) => visible.some((v) => v.toLowerCase() === c.name.toLowerCase()));
    // An untyped NULL binds as the engine likes (an integer), so a query that may read that column
    // (it names it, or says *) could fail here for our stand-in alone: then no verdict at all.
    const untyped = columns.filter((c) => nullOf(c) === 'NULL');
    if (untyped.some((c) => mayRead(req.sql, c.name))) throw new Error(`no typed stand-in for a column of ${tableKey}`);
    const list = columns.length === 0 ? `NULL AS ${quote('__none')}` : columns.map((c) => `${nullOf(c)} AS ${quote(c.name)}`).join(', ');
    return `${quote(name)} AS (SELECT ${list} LIMIT 0)`;
  });
  return `${ctes.length > 0 ? `WITH ${ctes.join(', ')} ` : ''}SELECT * FROM (${plan.sql}) AS ${quote(`${STAND_IN}query`)}`;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Whether `sql` may read column `name`: it says `*` (other than `count(*)`) or the name as a word. Over-approximate on purpose. */
function mayRead(sql: string, name: string): boolean {
  if (sql.replace(/\(\s*\*\s*\)/g, '()').includes('*')) return true; // count(*) reads no column
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_$])${escaped}($|[^A-Za-z0-9_$])`, 'i').test(sql);
}

/** A NULL of the column's declared type, spelled as both engines read it; an untyped NULL when the type says too little. */
function nullOf(c: CatalogColumn): string {
  const declared = (c.type ?? '').toLowerCase().trim();
  const base = declared.replace(/\(.*\)/, '').trim();
  const cast = (t: string) => `CAST(NULL AS ${t})`;
  switch (typeClass(declared)) {
    case 'integer':
      return cast(/^(smallint|int2|smallserial)$/.test(base) ? 'SMALLINT' : /^(bigint|int8|bigserial)$/.test(base) ? 'BIGINT' : base === 'tinyint' ? 'TINYINT' : 'INTEGER');
    case 'numeric': {
      const m = /^(?:decimal|numeric)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(declared);
      if (m) return cast(`DECIMAL(${m[1]}, ${m[2] ?? '0'})`);
      return cast(/^(decimal|numeric|money)$/.test(base) ? 'DECIMAL(38, 9)' : /^(real|float4)$/.test(base) ? 'REAL' : 'DOUBLE');
    }
    case 'string': return cast('VARCHAR');
    case 'date': return cast('DATE');
    case 'timestamp': return cast(/tz$|with time zone/.test(base) ? 'TIMESTAMP WITH TIME ZONE' : 'TIMESTAMP');
    case 'time': return cast('TIME');
    case 'boolean': return cast('BOOLEAN');
    default: return 'NULL';
  }
}
