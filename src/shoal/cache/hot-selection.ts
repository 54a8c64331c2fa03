/**
 * Which registered tables are hot-table candidates (federation-fleet.md §5.4):
 * - `hot: true`: loaded at start, bounded by `max_rows`;
 * - `hot` absent: automatic, when the table is the target of a many-to-one relationship
 *   (bounded by `max_rows`) or has at most `auto_threshold` rows (and at least one); automatic
 *   candidates are promoted lazily, after a query first reads them;
 * - `hot: false`: never.
 * `auto_threshold: 0` turns automatic selection off (only `hot: true` tables are cached).
 * Derived tables (view_sql, MVs) are never hot: they have no rows of their own to cache. Tables of
 * tik sources are never automatic: their stages are derived from `now` at query time. A table with
 * no change signal (hot-signal.ts) is never automatic either: its copy could only be bounded by
 * `refresh_interval`, which an operator must ask for (`hot: true`).
 */
import { sha256Hex } from '../../core/hash.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { connectionFingerprint } from './connection-fingerprint.js';
import { type HotSignalSpec, hotSignalSpec } from './hot-signal.js';
import { type CatalogModel, DERIVED_SOURCE_ID, type HotTablesConfig, type TableConfig, qualifiedName, tableId } from '../config/model.js';

export type HotReason = 'explicit' | 'relationship' | 'auto';

/** One candidate: the table, why it is a candidate and its row bound. */
export interface HotCandidate {
  /** The governance table key (`<domain>.<alias ?? table>`, lower case). */
  readonly key: string;
  readonly table: TableConfig;
  readonly reason: HotReason;
  /** At most this many rows are cached; one more and the table is served live. */
  readonly maxRows: number;
  /** A digest of the table's and its source's definitions: rows stored under another are ignored. */
  readonly fingerprint: string;
  /** Where the table's change signal comes from (`none`: the copy is bounded by refresh_interval alone). */
  readonly signal: HotSignalSpec;
}

/** The candidates of a catalog; `reachable` says whether a table's source can be read by the engine. */
export function hotCandidates(model: CatalogModel, bounds: HotTablesConfig, reachable: (t: TableConfig) => boolean): HotCandidate[] {
  const manyToOneTargets = new Set(model.relationships.filter((r) => r.cardinality === 'many-to-one').map((r) => r.target_table_id.toLowerCase()));
  const out: HotCandidate[] = [];
  for (const t of model.tables) {
    if (t.hot === false || t.source_id === DERIVED_SOURCE_ID || t.view_sql !== undefined || !reachable(t)) continue;
    const key = qualifiedName(t).toLowerCase();
    const source = model.sources.find((s) => s.id === t.source_id);
    // the table's definition and where its source points (never its secret): rows of another are ignored
    const fingerprint = sha256Hex(canonicalJson({ table: t, source: source ?? null, connection: source ? connectionFingerprint(source) : null }));
    const signal = hotSignalSpec(t, source);
    const base = { key, table: t, fingerprint, signal };
    if (t.hot === true) out.push({ ...base, reason: 'explicit', maxRows: bounds.max_rows });
    else if (bounds.auto_threshold === 0) continue; // automatic selection off
    // a tik table's stages are derived at query time from `now`: a copy would freeze them
    else if (source?.type === 'tik') continue;
    // no change signal: a copy could differ from the source for a whole refresh_interval
    else if (signal.kind === 'none') continue;
    else if (manyToOneTargets.has(tableId(t).toLowerCase()) || manyToOneTargets.has(key)) out.push({ ...base, reason: 'relationship', maxRows: bounds.max_rows });
    else out.push({ ...base, reason: 'auto', maxRows: Math.min(bounds.auto_threshold, bounds.max_rows) });
  }
  return out;
}
