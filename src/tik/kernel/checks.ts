/**
 * The kernel's one seam onto the Java-compatible durations (`duration.ts`) and the malli-subset
 * fact schemas (`schema.ts`), both written by the EDN helper. Guards and lint call only these.
 *
 * INTERIM: until `schema.ts` lands, a minimal local fact-schema validator lives here.
 */
import { TikError } from '../errors.js';
import { EdnMap, Keyword, type EdnValue } from '../edn/value.js';
import { emit } from './edn-access.js';
import { parseDuration, toMillis, toMillisCeil } from './duration.js';

/**
 * Milliseconds to add to an instant so that `now ≥ t + ms` iff `now ≥ t + d` exactly
 * (`:elapsed-since`): Java's exact duration, rounded up to whole milliseconds.
 * Throws `TikError('duration/invalid')`.
 */
export function durationMillisCeil(text: string): number {
  return Number(toMillisCeil(parseDuration(text)));
}

/**
 * Milliseconds so that `t ≥ now − ms` iff `t ≥ now − d` exactly (`:attested-within`): Java's
 * `Duration.toMillis` (floor). Throws `TikError('duration/invalid')`.
 */
export function durationMillisFloor(text: string): number {
  return Number(toMillis(parseDuration(text)));
}

/** Whether `text` is a duration Java accepts. */
export function isDuration(text: string): boolean {
  try {
    parseDuration(text);
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
