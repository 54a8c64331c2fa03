/**
 * JSON parsing that keeps every number as its source text. Trino's protocol sends BIGINT and
 * large DECIMAL-free integers as JSON numbers; `JSON.parse` would round values above 2^53, and
 * the engine contract promises exact BIGINT text. The caller converts per column type.
 */

/** A JSON number kept as written (`"9007199254740993"`, `"1.5"`, `"-2e3"`). */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type LosslessJson = null | boolean | string | JsonNumber | readonly LosslessJson[] | { readonly [key: string]: LosslessJson };

const WS = /[ \t\n\r]*/y;
const NUM = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

export function parseLosslessJson(text: string): LosslessJson {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON from the engine: ${what} at offset ${i}`);
  };
  const ws = () => {
    WS.lastIndex = i;
    WS.exec(text);
    i = WS.lastIndex;
  };
  const str = (): string => {
    // text[i] is the opening quote; JSON.parse handles the escapes of the literal exactly
    let j = i + 1;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j += 2;
      else if (c === 0x22) break;
      else j++;
    }
    if (j >= text.length) fail('unterminated string');
    const s = JSON.parse(text.slice(i, j + 1)) as string;
    i = j + 1;
    return s;
  };
  const value = (): LosslessJson => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, LosslessJson> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = str();
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        o[k] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return o;
        } else fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const a: LosslessJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return a;
        } else fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (m === null) return fail('unexpected character');
    i = NUM.lastIndex;
    return new JsonNumber(m[0]);
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

/** Turn a lossless value into plain JSON (numbers as `number`), for protocol fields. */
export function plainJson(v: LosslessJson): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(plainJson);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainJson(x as LosslessJson)]));
  return v;
}
