/**
 * The kernel's one seam onto the Java-compatible durations (`duration.ts`) and the malli-subset
 * fact schemas (`schema.ts`), both written by the EDN helper. Guards and lint call only these.
 *
 * INTERIM: until `duration.ts`/`schema.ts` land, a minimal local version of both lives here.
 */
import { TikError } from '../errors.js';
import { EdnMap, Keyword, type EdnValue } from '../edn/value.js';
import { emit } from './edn-access.js';

const DURATION = /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;

/** Milliseconds of a `java.time.Duration.parse` text; throws `TikError('duration/invalid')`. */
export function durationMillis(text: string): number {
  const m = DURATION.exec(text);
  const bad = (): TikError => new TikError('duration/invalid', `${JSON.stringify(text)} is not an ISO-8601 duration`, { hint: 'e.g. "PT48H" or "P2D"' });
  if (!m || (m[2] === undefined && m[3] === undefined) || m[3] === 'T' || m[3] === 't') throw bad();
  const n = (s: string | undefined): number => (s === undefined ? 0 : Number(s));
  let ms = n(m[2]) * 86_400_000 + n(m[4]) * 3_600_000 + n(m[5]) * 60_000 + n(m[6]) * 1000;
  if (m[7]) ms += (m[6]?.startsWith('-') ? -1 : 1) * Math.floor(Number(`0.${m[7]}`) * 1000);
  return m[1] === '-' ? -ms : ms;
}

/** Whether `text` is a duration Java accepts. */
export function isDuration(text: string): boolean {
  try {
    durationMillis(text);
    return true;
  } catch {
    return false;
  }
}

function validateInterim(schema: EdnValue, value: EdnValue): string[] | 'unsupported' {
  if (schema instanceof Keyword) {
    switch (schema.toString()) {
      case ':boolean':
        return typeof value === 'boolean' ? [] : ['should be a boolean'];
      case ':string':
        return typeof value === 'string' ? [] : ['should be a string'];
      case ':int':
        return typeof value === 'bigint' ? [] : ['should be an integer'];
      case ':keyword':
        return value instanceof Keyword ? [] : ['should be a keyword'];
      case ':any':
        return [];
      case ':fn':
      case ':multi':
        return 'unsupported';
    }
    throw new TikError('schema/invalid', `unknown schema ${emit(schema)}`);
  }
  if (Array.isArray(schema) && schema[0] instanceof Keyword) {
    const op = schema[0].toString();
    const props = schema[1] instanceof EdnMap ? schema[1] : undefined;
    const args = schema.slice(props ? 2 : 1);
    switch (op) {
      case ':enum':
        return args.some((a) => emit(a) === emit(value)) ? [] : [`should be either ${args.map(emit).join(', ')}`];
      case ':string': {
        if (typeof value !== 'string') return ['should be a string'];
        const min = props?.get(Keyword.of('min'));
        if (typeof min === 'bigint' && value.length < Number(min)) return [`should be at least ${min} characters`];
        return [];
      }
      case ':fn':
      case ':multi':
        return 'unsupported';
    }
  }
  throw new TikError('schema/invalid', `unsupported schema form ${emit(schema)}`);
}

/** Validates a fact value: `[]` when valid, humanised errors otherwise, `'unsupported'` for `:fn`/`:multi`. */
export function checkFactSchema(schema: EdnValue, value: EdnValue): readonly string[] | 'unsupported' {
  return validateInterim(schema, value);
}

/** Validates the fact-map `{[path] value}` for the `[:malli schema]` guard. */
export function checkFactMapSchema(schema: EdnValue, factMap: EdnValue): readonly string[] | 'unsupported' {
  return validateInterim(schema, factMap);
}

/** Why a schema form is unusable: `'unsupported'` (`:fn`, `:multi`), a message when invalid, else `undefined`. */
export function schemaProblem(form: EdnValue): 'unsupported' | string | undefined {
  try {
    const r = validateInterim(form, null);
    return r === 'unsupported' ? 'unsupported' : undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
