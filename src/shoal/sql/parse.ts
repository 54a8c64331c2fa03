import { ShoalError } from '../errors.js';
import { type Node, offsetToPosition } from './ast-node.js';
import { parseText, strictCheck } from './polyglot.js';

/**
 * Parse one PostgreSQL-flavoured statement. Fails with `SQL_SYNTAX` (with the position of the
 * token where the parser gave up), `SQL_EMPTY` or `SQL_MULTIPLE_STATEMENTS`; runs the strict
 * validator too, since the parser alone accepts `SELEC x` and trailing commas.
 */
export function parseQuery(sql: string): Node {
  if (typeof sql !== 'string') throw new ShoalError('SQL_EMPTY', 'no SQL text was given', { hint: 'send a SELECT statement' });
  const r = parseText(sql, 'postgres');
  if (!r.ok) {
    const position = r.start !== undefined ? offsetToPosition(sql, r.start)
      : r.line !== undefined && r.column !== undefined ? { line: r.line, column: r.column } : undefined;
    throw new ShoalError('SQL_SYNTAX', `syntax error: ${r.message.replace(/^Parse error at line \d+, column \d+: /, '')}`, {
      ...(position ? { position } : {}),
      hint: 'the SQL dialect is PostgreSQL-flavoured; check the statement near the position',
    });
  }
  if (r.statements.length === 0) {
    throw new ShoalError('SQL_EMPTY', 'the SQL text contains no statement', { hint: 'send exactly one SELECT statement' });
  }
  if (r.statements.length > 1) {
    throw new ShoalError('SQL_MULTIPLE_STATEMENTS', `expected exactly one statement, got ${r.statements.length}`, {
      hint: 'send one SELECT statement per request',
    });
  }
  const v = strictCheck(sql);
  if (!v.ok) {
    throw new ShoalError('SQL_SYNTAX', `syntax error: ${v.message}`, {
      ...(v.start !== undefined ? { position: offsetToPosition(sql, v.start) }
        : v.line !== undefined && v.column !== undefined ? { position: { line: v.line, column: v.column } } : {}),
      hint: v.code === 'E004' ? 'the statement is not a valid SELECT; check the first keyword' : 'remove the stray token',
    });
  }
  return r.statements[0]!;
}
