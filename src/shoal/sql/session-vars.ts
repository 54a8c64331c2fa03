import { ShoalError } from '../errors.js';
import { type Node, allNodes, dataOf, nullLiteral, positionOf, replaceInPlace, stringLiteral, typeOf } from './ast-node.js';

/** Session variables of a request, e.g. `{'provisa.user_region': 'EU'}`. */
export type SessionVars = Readonly<Record<string, string>>;

const PREFIX = 'provisa.';

/**
 * Replace `current_setting('provisa.<var>')` by a string-literal node holding the variable's value.
 * The value never passes through SQL text: the generator escapes plain string literals, and the
 * post-generation check re-parses the output (literal re-quoting, hazard H1). A missing variable
 * is `SQL_MISSING_VAR`, never an empty string; with `missing_ok` (`current_setting(k, true)`) it is
 * NULL, as PostgreSQL does, which denies in a row filter.
 */
export function substituteSessionVars(root: Node, vars: SessionVars, where: string, sql?: string): void {
  for (const [n] of [...allNodes(root)]) {
    if (typeOf(n) !== 'function' || String(dataOf(n).name).toLowerCase() !== 'current_setting') continue;
    const args: Node[] = dataOf(n).args ?? [];
    const a = args[0];
    const key = a && typeOf(a) === 'literal' && dataOf(a).literal_type === 'string' ? String(dataOf(a).value) : undefined;
    const position = positionOf(n, sql);
    const details = { where, ...(position ? { position } : {}) };
    if (key === undefined || args.length > 2) {
      throw new ShoalError('SQL_FUNCTION_NOT_ALLOWED', "current_setting() takes one string literal naming a session variable", {
        ...details, hint: "write current_setting('provisa.<var>')",
      });
    }
    if (!key.toLowerCase().startsWith(PREFIX)) {
      throw new ShoalError('SQL_FUNCTION_NOT_ALLOWED', `current_setting('${key}') reads a server setting; only '${PREFIX}<var>' session variables are available`, {
        ...details, hint: `name a session variable, e.g. current_setting('${PREFIX}user_region')`,
      });
    }
    const missingOk = args[1] !== undefined && typeOf(args[1]) === 'boolean' && dataOf(args[1]).value === true;
    const value = lookup(vars, key);
    if (value === undefined) {
      if (missingOk) {
        replaceInPlace(n, nullLiteral());
        continue;
      }
      throw new ShoalError('SQL_MISSING_VAR', `session variable '${key}' is not set`, {
        ...details, hint: `pass it with the request (vars: {"${key}": "…"}, or --var ${key}=…)`,
      });
    }
    if (typeof value !== 'string') {
      throw new ShoalError('SQL_MISSING_VAR', `session variable '${key}' must be a string`, { ...details, hint: 'pass session variables as strings' });
    }
    replaceInPlace(n, stringLiteral(value));
  }
}

function lookup(vars: SessionVars, key: string): string | undefined {
  const k = key.toLowerCase();
  for (const [name, v] of Object.entries(vars)) if (name.toLowerCase() === k) return v;
  for (const [name, v] of Object.entries(vars)) if (`${PREFIX}${name.toLowerCase()}` === k) return v;
  return undefined;
}
