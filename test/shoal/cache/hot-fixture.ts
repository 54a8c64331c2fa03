/**
 * A sales catalog with a hot dimension: `customers` (RLS, a regex mask, a hidden column) on
 * source `dim`, `payments` (RLS) on source `src`, so joins run on the engine route where hot
 * tables are inlined. Shared by the unit tests (SQLite) and the integration tests (PostgreSQL).
 */
import { salesConfigYaml } from '../sql/pushdown-law.js';

export interface HotYamlOptions {
  /** The fact source line (id `src`). */
  readonly src: string;
  /** The dimension source line (id `dim`). */
  readonly dim: string;
  /** Extra top-level YAML (cache, hot_tables). */
  readonly extra?: string;
  /** `hot:` on customers (default true; undefined leaves it automatic). */
  readonly hot?: boolean | 'auto';
}

export function hotSalesYaml(o: HotYamlOptions): string {
  const base = salesConfigYaml(`${o.src}\n  - ${o.dim}`);
  const hot = o.hot === 'auto' ? '' : `\n    hot: ${o.hot ?? true}`;
  const out = base.replace('  - source_id: src\n    domain_id: sales\n    table: customers', `  - source_id: dim\n    domain_id: sales\n    table: customers${hot}`);
  if (out === base) throw new Error('hotSalesYaml: the sales fixture changed shape');
  return `${out}${o.extra ?? ''}`;
}
