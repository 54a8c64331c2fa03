/**
 * The kernel's one seam onto the Java-compatible durations (`duration.ts`) and the malli-subset
 * fact schemas (`schema.ts`). Guards and lint call only these. Compiled schemas are cached by
 * the identity of their (immutable) form.
 */
import type { EdnMap, EdnValue } from '../edn/value.js';
import { parseDuration, toMillis, toMillisCeil } from './duration.js';
import { compileSchema, schemaProblem as schemaFormProblem, validate, validateFactMap, type Schema, type UnsupportedSchema } from './schema.js';

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

const compiled = new WeakMap<object, Schema | UnsupportedSchema>();

/** Compiles (once per form object); throws `TikError('schema/invalid')` for a non-schema. */
function schemaOf(form: EdnValue): Schema | UnsupportedSchema {
  if (typeof form !== 'object' || form === null) return compileSchema(form);
  let s = compiled.get(form);
  if (!s) {
    s = compileSchema(form);
    compiled.set(form, s);
  }
  return s;
}

/** Validates a fact value: `[]` when valid, humanised errors otherwise, `'unsupported'` for `:fn`/`:multi`. */
export function checkFactSchema(schema: EdnValue, value: EdnValue): readonly string[] | 'unsupported' {
  const s = schemaOf(schema);
  return s.kind === 'unsupported' ? 'unsupported' : validate(s, value);
}

/** Validates the fact-map `{[path] value}` for the `[:malli schema]` guard. */
export function checkFactMapSchema(schema: EdnValue, factMap: EdnMap): readonly string[] | 'unsupported' {
  const s = schemaOf(schema);
  return s.kind === 'unsupported' ? 'unsupported' : validateFactMap(s, factMap);
}

/** Why a schema form is unusable: `'unsupported'` (`:fn`, `:multi`, …), a message when invalid, else `undefined`. */
export function schemaProblem(form: EdnValue): 'unsupported' | string | undefined {
  const p = schemaFormProblem(form);
  if (!p) return undefined;
  return p.kind === 'unsupported' ? 'unsupported' : p.message;
}
