import { ShoalError } from '../errors.js';
import { type Node, dataOf, nullLiteral, numberLiteral, stringLiteral } from './ast-node.js';
import type { CatalogColumn, ColumnMask } from './catalog.js';
import { integerBounds, typeClass } from './column-type.js';
import { parseTemplate } from './template.js';

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
 * Translate an upstream (`$1`-style, as Java/Trino write it) regex replacement into PostgreSQL's
 * (`\1`): `$n` → `\n`, `\$` → `$`, and any other backslash is doubled so it stays literal.
 */
export function pgReplacement(replace: string): string {
  let out = '';
  for (let i = 0; i < replace.length; i++) {
    const c = replace[i]!;
    const next = replace[i + 1];
    if (c === '$' && next !== undefined && /\d/.test(next)) {
      out += `\\${next}`;
      i++;
    } else if (c === '\\' && next === '$') {
      out += '$';
      i++;
    } else if (c === '\\') out += '\\\\';
    else out += c;
  }
  return out;
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
      return fn('regexp_replace', [source, stringLiteral(mask.pattern), stringLiteral(pgReplacement(mask.replace))]);
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
