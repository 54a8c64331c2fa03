import { ShoalError } from '../../errors.js';
import { type Node, allNodes, dataOf, replaceInPlace, typeOf } from '../ast-node.js';
import { parseTemplate } from '../template.js';
import { isMaskPattern } from './mask-patterns.js';
import { explicitNullOrdering } from './ordering.js';

function isFunction(n: Node, name: string): boolean {
  return typeOf(n) === 'function' && String(dataOf(n).name).toLowerCase() === name;
}

/** The first select expression of a template, with every `NULL` placeholder replaced in order by `args`. */
function fromTemplate(text: string, args: readonly Node[]): Node {
  const stmts = parseTemplate(text);
  if (!stmts) throw new Error(`Trino template failed to parse: ${text}`);
  const expr = dataOf(stmts[0]!).expressions[0] as Node;
  let i = 0;
  for (const [n] of [...allNodes(expr)]) {
    if (typeOf(n) === 'null' && i < args.length) replaceInPlace(n, structuredClone(args[i++]!));
  }
  return expr;
}

/**
 * Masks' `regexp_replace(x, P, '\1***\2')`: Trino reads group references as `$1` (its
 * replacement is Java's). Runs before the mask patterns are rendered (their marker identifies
 * the calls); mask replacements hold no other backslash or dollar (mask-regex.ts refuses them).
 */
export function trinoMaskReplacements(stmt: Node): void {
  for (const [n] of [...allNodes(stmt)]) {
    if (!isFunction(n, 'regexp_replace')) continue;
    const args = dataOf(n).args as Node[];
    if (args.length !== 3 || !isMaskPattern(args[1])) continue;
    const r = dataOf(args[2]!);
    if (typeOf(args[2]!) === 'literal' && typeof r.value === 'string') r.value = r.value.replace(/\\(\d)/g, '$$$1');
    (dataOf(n) as Record<string, unknown>)['_shoal_mask'] = true;
  }
}

const INTERVAL_UNITS: Readonly<Record<string, readonly [unit: string, factor: number]>> = {
  year: ['Year', 1], years: ['Year', 1], month: ['Month', 1], months: ['Month', 1], mon: ['Month', 1], mons: ['Month', 1],
  week: ['Day', 7], weeks: ['Day', 7], day: ['Day', 1], days: ['Day', 1], hour: ['Hour', 1], hours: ['Hour', 1],
  minute: ['Minute', 1], minutes: ['Minute', 1], min: ['Minute', 1], mins: ['Minute', 1],
  second: ['Second', 1], seconds: ['Second', 1], sec: ['Second', 1], secs: ['Second', 1],
};

const unsupported = (what: string, hint: string) => new ShoalError('SQL_UNSUPPORTED', `${what} is not certified on the Trino engine`, { hint });

/** PostgreSQL's `INTERVAL '90 days'` is Trino's `INTERVAL '90' DAY` (Trino refuses the one-string form). */
function adaptInterval(n: Node): void {
  const d = dataOf(n);
  if (d.unit !== null && d.unit !== undefined) return;
  const lit = d.this as Node | undefined;
  const text = lit && typeOf(lit) === 'literal' ? dataOf(lit).value : undefined;
  const m = typeof text === 'string' ? /^\s*([+-]?\d+)\s*([a-z]+)\s*$/i.exec(text) : null;
  const unit = m ? INTERVAL_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || !unit) {
    throw unsupported(`INTERVAL ${JSON.stringify(text ?? '?')}`, "write one whole number and one unit, e.g. INTERVAL '90 days' or INTERVAL '3 months'");
  }
  dataOf(lit!).value = String(Number(m[1]) * unit[1]);
  d.unit = { type: 'simple', unit: unit[0], use_plural: false };
}

/**
 * Trino semantics that differ from PostgreSQL's, made explicit or refused (certified by the
 * corpus against a real Trino, test/trino/corpus-parity.test.ts):
 * - NULL ordering: Trino puts NULLs last in both directions; PostgreSQL first when descending;
 * - `INTERVAL '90 days'` becomes `INTERVAL '90' DAY` (weeks as days);
 * - `concat()` skips NULLs and takes any type in PostgreSQL; Trino's returns NULL and takes only
 *   strings: each argument becomes `COALESCE(CAST(a AS VARCHAR), '')`;
 * - `x IS [NOT] TRUE|FALSE` (absent in Trino) becomes its COALESCE form;
 * - `ILIKE` (absent in Trino) becomes `lower(a) LIKE lower(b)`;
 * - `avg(decimal)` keeps the input's scale in Trino (avg of 1.00 and 2.00 is 1.50, of 0.03 and
 *   0.04 is 0.04): the argument is cast to DOUBLE, as the DuckDB engine computes it;
 * - a user's `regexp_replace` is refused: PostgreSQL replaces the first match unless flagged `g`
 *   and reads `\1`; Trino replaces every match and reads `$1` (masks are rewritten, see above).
 */
export function adaptForTrino(stmt: Node): void {
  explicitNullOrdering(stmt);
  for (const [n] of [...allNodes(stmt)]) {
    const t = typeOf(n);
    if (isFunction(n, 'regexp_replace')) {
      const d = dataOf(n) as Record<string, unknown>;
      if (d['_shoal_mask'] === true) {
        delete d['_shoal_mask'];
        continue;
      }
      throw unsupported('regexp_replace', 'PostgreSQL replaces the first match (all with the g flag) and reads \\1 back-references; Trino replaces every match and reads $1');
    } else if (t === 'avg' || isFunction(n, 'avg')) {
      const d = dataOf(n);
      if (t === 'avg' && d.this) d.this = fromTemplate('SELECT CAST(NULL AS DOUBLE)', [d.this as Node]);
      else if (t !== 'avg' && Array.isArray(d.args) && d.args.length === 1) d.args = [fromTemplate('SELECT CAST(NULL AS DOUBLE)', [d.args[0] as Node])];
    } else if (t === 'interval') {
      adaptInterval(n);
    } else if (isFunction(n, 'concat')) {
      const d = dataOf(n);
      d.args = (d.args as Node[]).map((a) => fromTemplate("SELECT COALESCE(CAST(NULL AS VARCHAR), '')", [a]));
    } else if (t === 'is_true' || t === 'is_false') {
      const d = dataOf(n);
      const not = d.not === true;
      const text = t === 'is_true' ? (not ? 'SELECT NOT COALESCE(NULL, FALSE)' : 'SELECT COALESCE(NULL, FALSE)') : not ? 'SELECT COALESCE(NULL, TRUE)' : 'SELECT NOT COALESCE(NULL, TRUE)';
      replaceInPlace(n, fromTemplate(text, [d.this as Node]));
    } else if (t === 'i_like') {
      const d = dataOf(n);
      if (d.quantifier !== null && d.quantifier !== undefined) throw unsupported('ILIKE ANY/ALL', 'write lower(a) LIKE lower(b) for each pattern');
      const like = fromTemplate("SELECT lower(NULL) LIKE lower(NULL)", [d.left as Node, d.right as Node]);
      if (d.escape !== null && d.escape !== undefined) dataOf(like).escape = d.escape;
      replaceInPlace(n, like);
    }
  }
}
