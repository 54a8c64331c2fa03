import type { Node } from '../ast-node.js';
import { explicitNullOrdering } from './ordering.js';

/** SQLite orders NULLs first ascending (the opposite of PostgreSQL); it accepts NULLS FIRST/LAST since 3.30. */
export function adaptForSqlite(stmt: Node): void {
  explicitNullOrdering(stmt);
}
