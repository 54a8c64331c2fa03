/**
 * A sales catalog with a hot dimension: `customers` (RLS, a regex mask, a hidden column) on
 * source `dim`, `payments` (RLS) on source `src`, so joins run on the engine route where hot
 * tables are inlined. Shared by the unit tests (SQLite) and the integration tests (PostgreSQL).
 */
import { ShoalError } from '../../../src/shoal/errors.js';
import type { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { type Viewer, salesConfigYaml } from '../sql/pushdown-law.js';

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

/** One query's outcome: sorted rows (bigints kept distinct), columns, and whether hot rows were read. */
export type Answer = { ok: true; rows: string[]; columns: string; hot: boolean } | { ok: false; code: string };

export async function answer(instance: ShoalInstance, sql: string, v: Viewer): Promise<Answer> {
  try {
    const r = await instance.query({ sql, role: v.role, vars: v.vars }, new AbortController().signal);
    const rows: string[] = [];
    for await (const b of r.batches) for (const row of b) rows.push(JSON.stringify(row, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)));
    return { ok: true, rows: rows.sort(), columns: JSON.stringify(r.columns), hot: r.headers?.['x-shoal-hot'] !== undefined };
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
}

/** What must be equal between the hot and the live path (everything but where rows came from). */
export const same = (a: Answer) => (a.ok ? { ok: true, rows: a.rows, columns: a.columns } : a);
