import { ShoalError } from '../../errors.js';
import { type Node, allNodes, dataOf, replaceInPlace, typeOf } from '../ast-node.js';
import { MASK_PATTERN_KEY } from '../mask.js';
import { type MaskRegexFlavour, parseMaskPattern, renderMaskPattern } from '../mask-regex.js';

/** Whether a node is a regex mask's pattern literal (built by mask.ts, carrying its configured pattern). */
export function isMaskPattern(n: Node | undefined): boolean {
  return !!n && typeOf(n) === 'literal' && typeof dataOf(n)[MASK_PATTERN_KEY] === 'string';
}

/**
 * Render every regex mask's pattern for the regex engine that will run it, and remove the marker
 * so the generator never sees it. `undefined` means the target has no certified rendering (SQLite,
 * MySQL 8): a mask there fails closed (the router keeps such queries on the engine).
 * On MariaDB the whole-value test `x ~ P` becomes `REGEXP_INSTR(x, P)` (MariaDB has no
 * REGEXP_LIKE; a CASE WHEN on 1/0 reads it as true/false).
 */
export function renderMaskRegexes(stmt: Node, flavour: MaskRegexFlavour | undefined, target: string): void {
  const nodes = [...allNodes(stmt)].map(([n]) => n);
  if (flavour === 'mariadb') {
    for (const n of nodes) {
      if (typeOf(n) !== 'regexp_like' || dataOf(n).flags || !isMaskPattern(dataOf(n).pattern)) continue;
      const d = dataOf(n);
      replaceInPlace(n, {
        function: { name: 'REGEXP_INSTR', args: [d.this, d.pattern], distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
      });
    }
  }
  for (const n of nodes) {
    if (!isMaskPattern(n)) continue;
    if (flavour === undefined) {
      throw new ShoalError('SQL_GENERATE', `a regex mask cannot be rendered for ${target}`, { hint: 'report this as a bug: masked queries run on the engine for this source type' });
    }
    const d = dataOf(n);
    const parsed = parseMaskPattern(String(d[MASK_PATTERN_KEY]));
    if (!parsed.ok) throw new ShoalError('SQL_BAD_MASK', `mask pattern: ${parsed.reason}`, { hint: parsed.hint });
    d.value = renderMaskPattern(parsed.regex, flavour);
    delete d[MASK_PATTERN_KEY];
  }
}
