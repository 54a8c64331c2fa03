import type { TableConfig } from '../config/model.js';
import type { MvDefinition } from './refresh-catalog.js';

/** A registered MV as this instance knows it (from the last synced catalog). */
export interface MvInfo {
  readonly id: string;
  readonly table: TableConfig;
  readonly relation: string;
  /** view_sql planned for the service role, as engine SQL; null when it does not plan (see `error`). */
  readonly engineSql: string | null;
  readonly error: string | null;
  /** Keys (`<domain>.<table>`) of the registered tables view_sql reads. */
  readonly sourceTables: readonly string[];
  readonly definition: MvDefinition;
}
