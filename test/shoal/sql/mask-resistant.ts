/**
 * Values a regex mask's pattern may not match — embedded newlines (LF, CRLF, a final LF), no `@`,
 * unicode outside the BMP, the empty string, very long values — each carrying a secret token
 * placed where the fixtures' e-mail mask `^(.{2}).*(@.*)$` hides it when it matches. A token in
 * an output cell is a raw value leaking through a mask.
 */
import fc from 'fast-check';

/** The fixtures' e-mail mask, as configured (upstream `$1` form). */
export const EMAIL_MASK = { pattern: '^(.{2}).*(@.*)$', replace: '$1***$2' } as const;

/**
 * The reference meaning of a regex mask, in JavaScript: `.` is any code point (newline included),
 * `^`/`$` the ends of the whole value; a value the pattern does not match becomes `***`; NULL stays NULL.
 */
export function referenceMask(value: string | null, pattern: string = EMAIL_MASK.pattern, replace: string = EMAIL_MASK.replace): string | null {
  if (value === null) return null;
  const re = new RegExp(jsUnicodePattern(pattern), 'su');
  return re.test(value) ? value.replace(re, replace) : '***';
}

/** JavaScript's unicode mode accepts `\` only before syntax characters (and `-` in a class): drop the others' backslash. */
function jsUnicodePattern(pattern: string): string {
  let out = '';
  let inClass = false;
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      const n = chars[++i]!;
      out += /[\^$\\.*+?()[\]{}|/]/.test(n) || (inClass && n === '-') ? `\\${n}` : n;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}

export const secretToken = (id: number): string => `tok${id}q`;

const ALPHABET = ['a', 'Z', '.', '\n', '\r\n', 'é', '😀', '€', '\t', "'"];
const piece = (max: number) => fc.array(fc.constantFrom(...ALPHABET), { maxLength: max }).map((cs) => cs.join(''));

/** A mask-resistant value for row `id`: the token sits before the last `@`, so a working mask hides it. */
export function maskResistantArb(id: number): fc.Arbitrary<string> {
  const t = secretToken(id);
  return fc.oneof(
    // no @ at all: the pattern cannot match
    fc.tuple(piece(3), piece(4)).map(([a, b]) => `${a}${t}${b}`),
    // an @, with newlines / unicode around it (and maybe a trailing newline)
    fc.tuple(piece(2), piece(4), piece(4), fc.constantFrom('', '\n', '\r\n')).map(([a, b, c, end]) => `${a}${t}${b}@${c}${end}`),
    // newline inside the first two characters
    fc.constantFrom(`\n${t}@x.example`, `é\n${t}`, `😀😀${t}@ü.de`),
    // very long
    fc.integer({ min: 1000, max: 4000 }).map((n) => `${'x'.repeat(n)}${t}${n % 2 ? '' : '@long.example'}`),
    // an ordinary address
    fc.constant(`u${id}${t}@corp.example`),
  );
}

/** Short values that cannot carry a token but must still be masked (compared through the oracle). */
export const TINY_VALUES = ['', '@', 'a', '\n', 'ab', 'ab@'] as const;
