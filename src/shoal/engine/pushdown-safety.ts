/**
 * Which pushed-down predicates a source can evaluate without changing an answer. Pushdown only
 * narrows what is landed (the engine re-applies every filter), so a source may return *more*
 * rows than the predicate selects, never fewer. Sources compare text under their own collation
 * (MySQL/MariaDB case-insensitively, PostgreSQL by locale), so for a text value:
 * `=`, `IN` and `LIKE` are safe (a case-insensitive source returns a superset), while `<>` and the
 * range operators could drop rows the engine would keep, and are kept in the engine unless the
 * column is declared with a non-text type (dates, times, numbers), where the source casts the
 * value and compares by type.
 */
import type { CatalogEntry } from './catalog-entry.js';
import type { SimplePredicate } from '../sources/simple-predicate.js';

const NON_TEXT = /^\s*(date|time|timestamp|timestamptz|datetime|interval|integer|int\d*|bigint|smallint|tinyint|decimal|numeric|double|float\d*|real|boolean|bool)\b/i;

function declaredNonText(entry: CatalogEntry, column: string): boolean {
  const t = entry.columns.find((c) => c.name === column)?.dataType;
  return t !== undefined && NON_TEXT.test(t);
}

/** The subset of `predicates` that is safe to evaluate at the entry's source. */
export function pushablePredicates(entry: CatalogEntry, predicates: readonly SimplePredicate[]): SimplePredicate[] {
  return predicates.filter((p) => {
    if (p.op === 'IN') return p.values.every((v) => typeof v !== 'boolean');
    if (!('value' in p)) return true; // IS NULL, IS NOT NULL
    const v = p.value;
    if (typeof v === 'number') return Number.isFinite(v) && p.op !== 'LIKE';
    if (typeof v === 'bigint') return p.op !== 'LIKE';
    if (typeof v === 'boolean') return p.op === '=' || p.op === '<>';
    if (p.op === '=' || p.op === 'LIKE') return true;
    return declaredNonText(entry, p.column);
  });
}
