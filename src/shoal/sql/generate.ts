import { ShoalError } from '../errors.js';
import { type Node, dataOf, typeOf } from './ast-node.js';
import type { CatalogTable } from './catalog.js';
import { adaptForDuckdb } from './dialects/duckdb.js';
import { renderMaskRegexes } from './dialects/mask-patterns.js';
import { type MysqlFlavour, adaptForMysql } from './dialects/mysql.js';
import { adaptForPostgres } from './dialects/postgres.js';
import { adaptForSqlite } from './dialects/sqlite.js';
import { adaptForTrino, trinoMaskReplacements } from './dialects/trino.js';
import type { GovernedStatement } from './govern.js';
import { type SqlDialect, generateText, parseText } from './polyglot.js';
import { enumerateTables } from './scope.js';

/** The federation engines SQL is generated for (engine names; each has a dialect folder). */
export type EngineDialect = 'duckdb' | 'trino';

/** Where generated SQL runs: the engine (DuckDB by default, or Trino; engine names) or a source in its own dialect. */
export type GenerationTarget =
  | { readonly kind: 'engine'; readonly engine?: EngineDialect }
  | { readonly kind: 'direct'; readonly dialect: 'postgres' | 'sqlite' }
  | { readonly kind: 'direct'; readonly dialect: 'mysql'; readonly flavour: MysqlFlavour };

/** Remove every comment and optimizer hint before generation (H11). */
export function stripCommentsAndHints(root: Node): void {
  const scrub = (v: unknown) => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(scrub);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (/comments$/.test(k) && Array.isArray(o[k])) o[k] = [];
      else if (k === 'hint' || k === 'hints') o[k] = k === 'hints' ? [] : null;
      else scrub(o[k]);
    }
  };
  scrub(root);
}

const quotedIdent = (name: string) => ({ name, quoted: true, trailing_comments: [] });

function nameParts(table: CatalogTable, target: GenerationTarget): readonly string[] {
  if (target.kind === 'engine') return table.engineName;
  return table.sourceName.schema ? [table.sourceName.schema, table.sourceName.table] : [table.sourceName.table];
}

/** The table-reference signature of a statement: base tables by name, CTE references by name. */
function signature(stmt: Node): string[] {
  return enumerateTables(stmt).map((r) => (r.cte ? `cte:${r.parts.join('.')}` : `table:${r.parts.join('.')}`)).sort();
}

/**
 * Render a governed statement for a target, then verify it (study §12.8a): re-parse the text in
 * the target dialect and require exactly one statement with the same multiset of table
 * references. This is what catches a literal that re-opens as SQL (H1) whatever its origin.
 */
export function generateFor(gov: GovernedStatement, target: GenerationTarget): string {
  const stmt = structuredClone(gov.stmt);
  stripCommentsAndHints(stmt);
  for (const r of enumerateTables(stmt)) {
    if (r.cte) continue;
    const table = gov.placeholders.get(r.parts.join('.'));
    if (!table) throw new ShoalError('SQL_INTERNAL', `unexpected relation ${r.parts.join('.')} after governance`, { hint: 'report this as a bug' });
    const parts = nameParts(table, target);
    const d = dataOf(r.node);
    d.name = quotedIdent(parts[parts.length - 1]!);
    d.schema = parts.length > 1 ? quotedIdent(parts[parts.length - 2]!) : null;
    d.catalog = parts.length > 2 ? quotedIdent(parts[parts.length - 3]!) : null;
  }
  const engine: EngineDialect | undefined = target.kind === 'engine' ? (target.engine ?? 'duckdb') : undefined;
  const dialect: SqlDialect = target.kind === 'engine' ? engine! : target.dialect;
  // regex masks: rendered for the regex engine that runs them (never left in PostgreSQL form)
  const maskFlavour = target.kind === 'engine' ? engine! : target.dialect === 'postgres' ? 'postgres'
    : target.dialect === 'mysql' && target.flavour === 'mariadb' ? 'mariadb' : undefined;
  // Trino reads group references as $n: rewrite mask replacements while their patterns are still marked
  if (engine === 'trino') trinoMaskReplacements(stmt);
  renderMaskRegexes(stmt, maskFlavour, target.kind === 'engine' ? `the ${engine} engine` : target.kind === 'direct' && target.dialect === 'mysql' ? target.flavour : target.dialect);
  if (engine === 'trino') adaptForTrino(stmt);
  else if (target.kind === 'engine') adaptForDuckdb(stmt);
  else if (target.dialect === 'postgres') adaptForPostgres(stmt);
  else if (target.dialect === 'sqlite') adaptForSqlite(stmt);
  else if (target.dialect === 'mysql') adaptForMysql(stmt, target.flavour);

  const text = generateText(stmt, dialect);
  if (text === undefined) {
    throw new ShoalError('SQL_GENERATE', `the query cannot be rendered for ${dialect}`, { hint: 'simplify the query; the construct has no translation' });
  }
  const expected = signature(stmt);
  const re = parseText(text, dialect);
  const ok = re.ok && re.statements.length === 1 && typeOf(re.statements[0]!) === typeOf(stmt)
    && signature(re.statements[0]!).join('\n') === expected.join('\n');
  if (!ok) {
    throw new ShoalError('SQL_GENERATE', `generated ${dialect} SQL failed verification (it does not re-parse to the governed query)`, {
      hint: 'the query contains a construct that does not survive translation; simplify it',
    });
  }
  return text;
}
