/**
 * What `shoal config check` can bind without connecting: every RLS filter and view_sql against the
 * tables and columns the config itself declares. Problems that fail every query are errors (a
 * filter that does not parse, a view_sql over an undeclared table or column, a truncate mask on a
 * column with no data_type); a filter column that is not declared is a warning — it may exist at
 * the source (governance reads it there), which only `--connect` can tell.
 */
import { child, item, type ConfigIssue } from '../config/config-issue.js';
import { didYouMean } from '../config/did-you-mean.js';
import { DERIVED_SOURCE_ID, qualifiedName, type CatalogModel } from '../config/model.js';
import { planDerivedTables } from '../mv/derived-graph.js';
import { filterColumns } from '../sql/filter-columns.js';
import { ruleSubject, ruleTargets } from './policy-targets.js';

export interface BindingReport {
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

export interface StaticBindingOptions {
  /** Tables (indices) whose RLS columns are checked against the source instead (`--connect`). */
  readonly boundAtSource?: ReadonlySet<number>;
}

export function bindStatically(catalog: CatalogModel, options: StaticBindingOptions = {}): BindingReport {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];

  // RLS filters: parse once per rule, then each governed table's declared columns
  const parsed = new Map<number, readonly string[] | undefined>();
  for (const target of ruleTargets(catalog)) {
    const { ruleIndex, rule, table, tableIndex } = target;
    if (!parsed.has(ruleIndex)) {
      const cols = filterColumns(rule.filter);
      parsed.set(ruleIndex, cols);
      if (cols === undefined) {
        errors.push({
          code: 'CONFIG_RLS_INVALID',
          path: child(item('rls_rules', ruleIndex), 'filter'),
          subject: ruleSubject(rule),
          message: `filter ${JSON.stringify(rule.filter)} is not a valid PostgreSQL predicate: every query on the table would fail`,
          hint: "write one boolean expression over the table's columns, e.g. region = current_setting('provisa.user_region')",
        });
      }
    }
    const cols = parsed.get(ruleIndex);
    if (cols === undefined || options.boundAtSource?.has(tableIndex) || table.columns.length === 0) continue;
    const declared = table.columns.map((c) => c.name);
    const lower = new Set(declared.map((c) => c.toLowerCase()));
    for (const c of cols) {
      if (lower.has(c.toLowerCase())) continue;
      const guess = didYouMean(c, declared);
      warnings.push({
        code: 'CONFIG_RLS_UNDECLARED_COLUMN',
        path: child(item('rls_rules', ruleIndex), 'filter'),
        subject: ruleSubject(rule),
        message: `filter reads column "${c}", which ${qualifiedName(table)} (tables[${tableIndex}]) does not declare; unless ${table.source_id === DERIVED_SOURCE_ID ? 'its view_sql returns it' : `source ${table.source_id} has it`}, every query on the table fails`,
        hint: guess ? `did you mean "${guess}"?` : 'run `shoal config check --connect` to check the column at the source',
      });

    }
  }

  // view_sql: planned for the service identity, over the declared tables and columns
  let planned: ReturnType<typeof planDerivedTables> | undefined;
  try {
    planned = planDerivedTables(catalog);
  } catch {
    planned = undefined; // a catalog that does not build is reported by the loader's own checks
  }
  catalog.tables.forEach((t, i) => {
    if (planned === undefined || t.source_id !== DERIVED_SOURCE_ID || !t.view_sql) return;
    const d = planned.get(qualifiedName(t).toLowerCase());
    if (!d || d.error === null || / reads itself/.test(d.error)) return; // cycles: CONFIG_DERIVED_CYCLE
    errors.push({
      code: 'CONFIG_VIEW_SQL_INVALID',
      path: child(item('tables', i), 'view_sql'),
      subject: qualifiedName(t),
      message: d.error.replace(/^view_sql of [^:]+: /, '').replace(/ or is not available to role __shoal_service__/, ' among the registered tables'),
      hint: 'view_sql reads registered tables by <domain>.<table> or <source>.<schema>.<table>, and only their declared columns',
    });
  });

  // a truncate mask needs a type to pick date_trunc or trunc; without one every read fails
  catalog.tables.forEach((t, i) =>
    t.columns.forEach((c, j) => {
      if (c.mask_type === 'truncate' && c.data_type === undefined) {
        errors.push({
          code: 'CONFIG_MASK_UNTYPED',
          path: child(item(child(item('tables', i), 'columns'), j), 'mask_type'),
          subject: `${qualifiedName(t)}.${c.name}`,
          message: 'a truncate mask needs the column\'s data_type (date, timestamp or a number): without it every read of the column fails',
          hint: 'set data_type (`shoal introspect` prints it from the source)',
        });
      }
    }),
  );
  return { errors, warnings };
}
