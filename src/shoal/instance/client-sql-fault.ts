/**
 * Whose fault a query that failed to bind is. The client's names and syntax are checked before
 * anything runs, but some mistakes only the engine sees: a column missing from GROUP BY, an
 * aggregate in WHERE, an operator given a string and a number. The failed statement also holds
 * what governance composed (RLS filters, masks) and what the catalog declares (views, registered
 * columns), so its failure alone cannot tell. The rule: the client's SQL, planned with no policy
 * over empty stand-ins of the tables it reads (src/shoal/sql/bare-query.ts), is bound by the
 * engine; if the engine refuses that too, the mistake is the client's (400 SQL_INVALID_QUERY,
 * with the engine's words about the client's own SQL); otherwise the failure stays as it was (5xx).
 * Runs only after a failure, and reads no source.
 */
import { bindFailureText } from '../engine/bind-error.js';
import type { Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import { bareQuery } from '../sql/bare-query.js';
import { isClientSqlRejection } from '../sources/source-errors.js';
import type { GovernanceCatalog } from '../sql/catalog.js';
import type { PlanRequest } from '../sql/plan.js';

export interface ClientSqlCheck {
  readonly engine: Engine;
  readonly request: PlanRequest;
  /** The catalog as the request sees it (domain-scoped when the identity is). */
  readonly catalog: GovernanceCatalog;
  readonly signal: AbortSignal;
}

/** SQL_INVALID_QUERY when `failure` reproduces on the client's SQL alone; undefined otherwise. */
export async function clientSqlFault(failure: unknown, check: ClientSqlCheck): Promise<ShoalError | undefined> {
  if (!(failure instanceof ShoalError)) return undefined;
  // on the engine route, only a bind failure; on the direct route, only a source's grouping,
  // aggregate or typing refusal (any other refusal is the source's, whatever the engine thinks)
  const engineBind = failure.code === 'ENGINE_QUERY_FAILED' && bindFailureText(failure) !== undefined;
  const sourceRefusal = failure.code === 'SOURCE_QUERY_FAILED' && isClientSqlRejection(failure.cause);
  if (!engineBind && !sourceRefusal) return undefined;
  if (check.signal.aborted) return undefined;
  let sql: string;
  try {
    sql = bareQuery(check.request, check.catalog, check.engine.name === 'trino' ? 'trino' : 'duckdb');
  } catch {
    return undefined; // it planned once already; a plan that cannot be stood in for proves nothing
  }
  let text: string | undefined;
  try {
    for await (const batch of check.engine.execute(sql, { signal: check.signal })) void batch;
    return undefined;
  } catch (e) {
    text = bindFailureText(e);
  }
  if (text === undefined) return undefined;
  // a name of ours (a stand-in, a renamed CTE) would only confuse: then the class alone
  const told = /__shoal_|__cte_/i.test(text) ? 'the engine refuses the SQL as written' : text;
  return new ShoalError('SQL_INVALID_QUERY', `the query does not bind: ${told}`, {
    hint: 'fix the SQL: every selected column must be grouped or aggregated, aggregates belong in SELECT or HAVING, and functions and operators need arguments of the types they take (cast them)',
    cause: failure,
  });
}
