/**
 * The name patterns catalog queries filter by — psql's anchored regular expressions
 * (`^(sales)$`, `^(ord.*)$`) and pgjdbc's LIKE patterns (`ord%`) — matched without a regular
 * expression engine: a client-chosen regex run by a backtracking engine could pin the event loop
 * (`^(a+)+$`). A pattern is compiled to single characters, "any character" and "any run", and
 * matched in O(pattern × name) time; anything else (alternation, groups, repetition of anything
 * but `.`) matches nothing.
 */

type Token = { readonly kind: 'char'; readonly c: string } | { readonly kind: 'any' } | { readonly kind: 'run' } | { readonly kind: 'set'; readonly chars: ReadonlySet<string> };

/** A compiled pattern; `matches` is false for every name when the pattern was not understood. */
export interface NamePattern {
  matches(name: string): boolean;
}

const NOTHING: NamePattern = { matches: () => false };

function compiled(tokens: readonly Token[]): NamePattern {
  return {
    matches(name: string): boolean {
      const s = [...name];
      // reach[j]: the first i tokens can match the first j characters
      let reach = new Array<boolean>(s.length + 1).fill(false);
      reach[0] = true;
      for (const t of tokens) {
        const next = new Array<boolean>(s.length + 1).fill(false);
        for (let j = 0; j <= s.length; j++) {
          if (t.kind === 'run') next[j] = reach[j]! || (j > 0 && next[j - 1]!);
          else if (j > 0 && reach[j - 1]) {
            const c = s[j - 1]!;
            next[j] = t.kind === 'any' || (t.kind === 'char' ? t.c === c : t.chars.has(c));
          }
        }
        reach = next;
      }
      return reach[s.length]!;
    },
  };
}

/** psql's pattern: `^(` … `)$` around literal characters, `\`-escapes, `.`, `.*` and `[…]` sets. */
export function regexPattern(source: string): NamePattern {
  const m = /^\^\((.*)\)\$$/s.exec(source);
  if (!m || source.length > 500) return NOTHING;
  const p = [...m[1]!];
  const tokens: Token[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) tokens.push({ kind: 'char', c: p[++i]! });
    else if (c === '.' && p[i + 1] === '*') {
      tokens.push({ kind: 'run' });
      i++;
    } else if (c === '.') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const end = p.indexOf(']', i + 1);
      if (end < 0) return NOTHING;
      const chars = new Set(p.slice(i + 1, end));
      if (chars.has('^') || chars.has('-')) return NOTHING;
      tokens.push({ kind: 'set', chars });
      i = end;
    } else if ('()|*+?{}^$'.includes(c)) return NOTHING;
    else tokens.push({ kind: 'char', c });
  }
  return compiled(tokens);
}

/** A LIKE pattern: `%` any run, `_` any character, `\` escapes the next character. */
export function likePattern(source: string): NamePattern {
  if (source.length > 500) return NOTHING;
  const p = [...source];
  const tokens: Token[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) tokens.push({ kind: 'char', c: p[++i]! });
    else if (c === '%') tokens.push({ kind: 'run' });
    else if (c === '_') tokens.push({ kind: 'any' });
    else tokens.push({ kind: 'char', c });
  }
  return compiled(tokens);
}
