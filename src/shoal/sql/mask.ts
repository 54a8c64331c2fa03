import { ShoalError } from '../errors.js';
import { type Node, dataOf, nullLiteral, numberLiteral, stringLiteral } from './ast-node.js';
import type { CatalogColumn, ColumnMask } from './catalog.js';
import { integerBounds, typeClass } from './column-type.js';
import { checkMaskReplacement, parseMaskPattern, renderMaskPattern, renderMaskReplacement } from './mask-regex.js';
import { parseTemplate } from './template.js';

/** What a value a regex mask's pattern does not match is masked to, on every route. */
export const MASK_FALLBACK = '***';

/**
 * The property a regex mask's pattern literal carries in the governed AST: the configured
 * pattern, so generation renders it for its target (see renderMaskRegexes). Never sent to the
 * generator: generateFor replaces the literal's value and removes the property.
 */
export const MASK_PATTERN_KEY = 'shoal_mask_pattern';

const TEMPORAL_PRECISIONS = new Set(['microseconds', 'milliseconds', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium']);

const fn = (name: string, args: Node[]): Node => ({
  function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
});

/** `CAST(<expr> AS <type>)`, built by parsing a trusted template so the node shape is the SDK's own. */
function castTo(expr: Node, type: 'date' | 'timestamp'): Node {
  const stmts = parseTemplate(`SELECT CAST(NULL AS ${type.toUpperCase()})`);
  if (!stmts) throw new Error('cast template failed to parse');
  const cast = dataOf(stmts[0]!).expressions[0];
  dataOf(cast).this = expr;
  return cast;
}

/**
 * The masked value of `column` read from `source` (an expression, usually the raw column), in
 * PostgreSQL form. Regex masks apply to strings, truncate to dates/times (date_trunc) and
 * numbers (trunc to `precision` decimals), constant to any type.
 */
export function maskExpression(mask: ColumnMask, column: CatalogColumn, source: Node, where: string): Node {
  const cls = typeClass(column.type);
  const bad = (why: string) => new ShoalError('SQL_BAD_MASK', `mask on ${where}: ${why}`, { where, hint: 'fix the column mask in the config' });
  switch (mask.kind) {
    case 'regex': {
      if (cls !== 'string' && cls !== 'other') throw bad(`a regex mask needs a string column, not ${column.type}`);
      return regexMask(mask.pattern, mask.replace, source, bad);
    }
    case 'constant': {
      const v = mask.value;
      if (v === null || v.toUpperCase() === 'NULL') return nullLiteral();
      if (cls === 'integer' && /^(MAX|MIN)$/i.test(v)) return numberLiteral(integerBounds(column.type)[v.toLowerCase() as 'min' | 'max']);
      if ((cls === 'integer' || cls === 'numeric') && /^-?\d+(\.\d+)?$/.test(v)) {
        return v.startsWith('-') ? { neg: { this: numberLiteral(v.slice(1)) } } : numberLiteral(v);
      }
      if (cls === 'integer' || cls === 'numeric') throw bad(`constant '${v}' is not a number`);
      if (cls === 'date' || cls === 'timestamp') return castTo(stringLiteral(v), cls);
      return stringLiteral(v);
    }
    case 'truncate': {
      const p = mask.precision.toLowerCase();
      if (cls === 'date' || cls === 'timestamp') {
        if (!TEMPORAL_PRECISIONS.has(p)) throw bad(`unknown date precision '${mask.precision}'`);
        const t = fn('date_trunc', [stringLiteral(p), source]);
        // PostgreSQL's date_trunc on a date returns a timestamp; cast back so every route agrees on the type
        return castTo(t, cls);
      }
      if (cls === 'integer' || cls === 'numeric') {
        if (!/^-?\d+$/.test(p)) throw bad(`truncate on a number needs an integer precision, not '${mask.precision}'`);
        return fn('trunc', [source, p.startsWith('-') ? { neg: { this: numberLiteral(p.slice(1)) } } : numberLiteral(p)]);
      }
      throw bad(`a truncate mask needs a date, timestamp or number column, not ${column.type ?? 'an untyped column'}`);
    }
  }
}

/**
 * A regex mask that fails closed: `CASE WHEN x IS NULL THEN NULL WHEN x ~ P THEN
 * regexp_replace(x, P, R) ELSE '***' END`, where P is the whole-value pattern in the certified
 * subset (mask-regex.ts). A value P does not match (no `@`, an unexpected newline, the empty
 * string) is masked entirely rather than passed through; NULL stays NULL on every route. Because
 * P is anchored at both ends and has no alternation, it matches once or not at all, so
 * PostgreSQL's first-match and MySQL's every-match replacement agree.
 */
function regexMask(pattern: string, replace: string, source: Node, bad: (why: string) => ShoalError): Node {
  const parsed = parseMaskPattern(pattern);
  if (!parsed.ok) throw bad(`mask_pattern ${JSON.stringify(pattern)}: ${parsed.reason}`);
  const repl = checkMaskReplacement(replace, parsed.regex);
  if (!repl.ok) throw bad(`mask_replace ${JSON.stringify(replace)}: ${repl.reason}`);
  const stmts = parseTemplate("SELECT CASE WHEN NULL IS NULL THEN NULL WHEN NULL ~ 'p' THEN regexp_replace(NULL, 'p', 'r') ELSE 'f' END");
  if (!stmts) throw new Error('mask template failed to parse');
  const expr = dataOf(stmts[0]!).expressions[0];
  const d = dataOf(expr);
  const [[isNull], [test, replaced]] = d.whens as [Node[], Node[]];
  const pat = (): Node => ({ literal: { literal_type: 'string', value: renderMaskPattern(parsed.regex, 'postgres'), [MASK_PATTERN_KEY]: pattern } });
  dataOf(isNull!).this = structuredClone(source);
  dataOf(test!).this = structuredClone(source);
  dataOf(test!).pattern = pat();
  dataOf(replaced!).args = [structuredClone(source), pat(), stringLiteral(renderMaskReplacement(replace))];
  d.else_ = stringLiteral(MASK_FALLBACK);
  return expr;
}
