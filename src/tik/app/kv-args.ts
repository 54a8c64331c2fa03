import { readEdn } from '../edn/index.js';
import { EdnSymbol, isKeyword, isMap, isVector, Keyword, type EdnMap, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';

/**
 * Command-line keys and values (tik-model.md §10): keys are dotted (`resolution.ref` →
 * `[:resolution :ref]`); a value is one EDN form if it parses, a bare word becomes a keyword,
 * anything else is a string. Paths declared `:string` and `[:link …]` paths keep the raw text.
 */

const SEGMENT = /^[A-Za-z*+!_?<>=-][A-Za-z0-9*+!_?<>=/'.#$%&-]*$/;

/** `a.b` → `[:a :b]`; a leading colon on each segment is allowed (`:a.:b`). */
export function parseKeyPath(text: string, where = 'key'): readonly Keyword[] {
  const segments = text.split('.');
  if (text === '' || segments.some((s) => s === '' || s === ':')) {
    throw new TikError('cli/bad-key', `${where}: "${text}" is not a dotted key`, {
      where,
      hint: 'write a key such as category or resolution.ref',
    });
  }
  return segments.map((raw) => {
    const s = raw.startsWith(':') ? raw.slice(1) : raw;
    if (!SEGMENT.test(s)) {
      throw new TikError('cli/bad-key', `${where}: "${raw}" in "${text}" is not a keyword name`, {
        where,
        hint: 'key segments start with a letter and hold no spaces, e.g. customer.ack',
      });
    }
    return Keyword.of(s);
  });
}

/** The dotted text of a path: `[:resolution :ref]` → `resolution.ref`. */
export function dottedPath(path: readonly Keyword[]): string {
  return path.map((k) => k.text).join('.');
}

/**
 * Read a command-line value: one EDN form if it parses (a symbol becomes a keyword), else the
 * string. With `raw` (a path that holds text, see `keepsRawText`), a value that reads as a string
 * keeps that reading (`"abc"` is `abc`) and anything else is the trimmed text itself
 * (`12345678` is the string `"12345678"`), as upstream's `typed-value`.
 */
export function parseCliValue(text: string, options: { raw?: boolean } = {}): EdnValue {
  let value: EdnValue;
  try {
    value = readEdn(text, 'argument');
  } catch {
    return text;
  }
  if (options.raw) return typeof value === 'string' ? value : text.trim();
  if (value instanceof EdnSymbol) return Keyword.of(value.text);
  return value;
}

export interface Assignment {
  readonly key: string;
  readonly path: readonly Keyword[];
  readonly valueText: string;
}

/** Split `k=v` at the first `=`. */
export function parseAssignment(arg: string): Assignment {
  const i = arg.indexOf('=');
  if (i <= 0) {
    throw new TikError('cli/usage', `"${arg}" is not a key=value assignment`, {
      where: 'argument',
      hint: 'write key=value, e.g. severity=high or resolution.ref="abc123"',
    });
  }
  const key = arg.slice(0, i);
  return { key, path: parseKeyPath(key, `argument "${arg}"`), valueText: arg.slice(i + 1) };
}

/**
 * Whether a path keeps raw text: `[:link …]` paths, and paths the process declares as `:string`
 * or `[:string {…}]` in `:process/facts`.
 */
export function keepsRawText(processRaw: EdnMap | undefined, path: readonly Keyword[]): boolean {
  if (path[0] === Keyword.of('link')) return true;
  const facts = processRaw?.get(Keyword.of('process/facts'));
  if (!isMap(facts)) return false;
  for (const [k, schema] of facts.entries()) {
    if (!isVector(k) || k.length !== path.length || !k.every((seg, i) => seg === path[i])) continue;
    if (schema === Keyword.of('string')) return true;
    if (isVector(schema) && isKeyword(schema[0]) && schema[0] === Keyword.of('string')) return true;
  }
  return false;
}
