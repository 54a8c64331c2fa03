import { type Node, allNodes, dataOf, replaceInPlace, stringLiteral, typeOf } from './ast-node.js';
import { parseTemplate } from './template.js';

/** The instant a query is planned at; injectable so tests and replays are deterministic. */
export type Clock = () => Date;

const TIMESTAMP_FUNCTIONS = new Set(['now', 'current_timestamp', 'localtimestamp', 'transaction_timestamp', 'statement_timestamp']);

/** Names of the time functions the gateway evaluates itself (see `substituteCurrentTime`). */
export const CURRENT_TIME_FUNCTIONS: ReadonlySet<string> = new Set([...TIMESTAMP_FUNCTIONS, 'current_date']);

function castLiteral(value: string, type: 'DATE' | 'TIMESTAMP' | 'TIMESTAMPTZ'): Node {
  const stmts = parseTemplate(`SELECT CAST(NULL AS ${type})`);
  if (!stmts) throw new Error('cast template failed to parse');
  const cast = dataOf(stmts[0]!).expressions[0];
  dataOf(cast).this = stringLiteral(value);
  return cast;
}

/**
 * `now()`, `current_timestamp`, `current_date` and friends become literals of one instant read
 * once per query from the clock, in UTC: every table reference and every route sees the same
 * time, and the answer does not depend on a source's time zone or clock. Each keeps the type
 * PostgreSQL gives it: `now()` and `current_timestamp` are timestamptz, `localtimestamp` is a
 * timestamp (the session zone is UTC), `current_date` a date.
 */
export function substituteCurrentTime(root: Node, clock: Clock): void {
  let instant: Date | undefined;
  const at = () => (instant ??= clock());
  for (const [n] of [...allNodes(root)]) {
    if (typeOf(n) !== 'function') continue;
    const name = String(dataOf(n).name).toLowerCase();
    if (!CURRENT_TIME_FUNCTIONS.has(name)) continue;
    const iso = at().toISOString();
    const stamp = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
    replaceInPlace(n, name === 'current_date' ? castLiteral(iso.slice(0, 10), 'DATE')
      : name === 'localtimestamp' ? castLiteral(stamp, 'TIMESTAMP') : castLiteral(`${stamp}+00`, 'TIMESTAMPTZ'));
  }
}
