/**
 * The malli subset used by fact schemas (tik-model.md §4.4) and the `[:malli schema]` guard.
 *
 * Supported forms (properties maps are optional everywhere a malli form takes them):
 * - types: `:any :some :nil :boolean :int :string :keyword :qualified-keyword :symbol :uuid :inst`
 *   (`:inst` is `inst?`), with `[:int {:min :max}]` and `[:string {:min :max}]` (`:min`/`:max`
 *   count UTF-16 units, as Java's `String.length` and JS `.length` do);
 * - `[:enum v…]`, `[:= v]`, `[:not= v]`, `[:> n]`, `[:>= n]`, `[:< n]`, `[:<= n]`;
 * - `[:maybe s]`, `[:and s…]` (reports the first failing child, as malli does), `[:or s…]`
 *   (valid if any child is; otherwise every child's errors);
 * - `[:vector s]`, `[:sequential s]`, `[:set s]` (each with `{:min :max}`), `[:tuple s…]`,
 *   `[:map-of ks vs]`, `[:map {:closed bool}? [k {:optional bool}? s]…]` (open unless closed; keys
 *   may be any EDN value, so the fact-map's vector keys work);
 * - malli's predicate symbols for the same types (`string?`, `int?`, `pos-int?`, `boolean?`, …).
 *
 * `:fn` and `:multi` are `:schema/unsupported` (upstream's registry removes them); so are the other
 * malli schemas this subset does not implement (`:re`, `:not`, `:orn`, `:ref`, `:double`, …),
 * each with a reason saying so. Anything that is not a malli schema at all throws
 * `TikError('schema/invalid')`.
 *
 * Error texts follow `malli.error/humanize`'s English ("should be a boolean", "should be at least
 * 8 characters", "should be either :a or :b", "missing required key", "invalid type"…). Errors
 * below the top level are prefixed with the malli `:in` path, e.g. `[:items 0]: should be an integer`.
 */
import { TikError } from '../errors.js';
import { emit, ednEquals, ednMap, equalityKey } from '../edn/index.js';
import { EdnList, EdnMap, EdnSet, EdnSymbol, Instant, Keyword, Uuid, type EdnValue } from '../edn/value.js';

/** One validation failure: where (malli's `:in`) and the humanised message. */
export interface SchemaError {
  readonly in: readonly EdnValue[];
  readonly message: string;
}

/** A compiled schema. */
export interface Schema {
  readonly kind: 'schema';
  /** The form it was compiled from. */
  readonly form: EdnValue;
  /** @internal the checker */
  readonly check: Check;
}

/** A schema tik cannot evaluate (`:fn`, `:multi`, or a malli form outside the subset). */
export interface UnsupportedSchema {
  readonly kind: 'unsupported';
  readonly form: EdnValue;
  readonly reason: string;
}

type Check = (value: EdnValue, at: readonly EdnValue[], out: SchemaError[]) => void;

class Unsupported extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

const FORBIDDEN = new Set([':fn', ':multi']);
// The rest of malli's default registry: valid malli, but outside the subset tik implements.
const UNIMPLEMENTED = new Set([
  ':not', ':orn', ':re', ':ref', ':schema', ':malli.core/schema', ':=>', ':function', ':merge', ':union', ':select-keys',
  ':catn', ':cat', ':alt', ':altn', ':?', ':*', ':+', ':repeat', ':double', ':float', ':qualified-symbol', ':uuid?',
  ':tuple?', ':-', ':seqable', ':every', ':and-then',
]);

const COMPOSITES = new Set([
  ':and', ':or', ':map', ':vector', ':enum', ':maybe', ':set', ':sequential', ':tuple', ':map-of', ':=', ':not=', ':>', ':>=', ':<', ':<=',
]);

const isSeq = (v: EdnValue): v is readonly EdnValue[] => Array.isArray(v);
const items = (v: EdnValue): readonly EdnValue[] | undefined => (isSeq(v) ? v : v instanceof EdnList ? v.items : undefined);
const plural = (n: bigint, word: string): string => `${n} ${word}${n === 1n ? '' : 's'}`;
const pr = (v: EdnValue): string => emit(v);

function invalidSchema(form: EdnValue, why: string): TikError {
  return new TikError('schema/invalid', `${safeText(form)} is not a valid schema: ${why}`, {
    hint: 'fact schemas use malli data forms such as :boolean, [:enum :a :b], [:string {:min 8}], [:map [:k :int]]',
  });
}

function safeText(v: EdnValue): string {
  try {
    return emit(v);
  } catch {
    return String(v);
  }
}

function simple(message: string, pred: (v: EdnValue) => boolean): Check {
  return (v, at, out) => {
    if (!pred(v)) out.push({ in: at, message });
  };
}

const TYPES: Readonly<Record<string, readonly [string, (v: EdnValue) => boolean]>> = {
  ':any': ['should be any', () => true],
  ':some': ["shouldn't be nil", (v) => v !== null],
  ':nil': ['should be nil', (v) => v === null],
  ':boolean': ['should be a boolean', (v) => typeof v === 'boolean'],
  ':int': ['should be an integer', (v) => typeof v === 'bigint'],
  ':string': ['should be a string', (v) => typeof v === 'string'],
  ':keyword': ['should be a keyword', (v) => v instanceof Keyword],
  ':qualified-keyword': ['should be a qualified keyword', (v) => v instanceof Keyword && v.namespace !== undefined],
  ':symbol': ['should be a symbol', (v) => v instanceof EdnSymbol],
  ':uuid': ['should be a uuid', (v) => v instanceof Uuid],
  ':inst': ['should be an inst', (v) => v instanceof Instant],
};

const PREDICATES: Readonly<Record<string, readonly [string, (v: EdnValue) => boolean]>> = {
  'any?': ['should be any', () => true],
  'some?': ["shouldn't be nil", (v) => v !== null],
  'nil?': ['should be nil', (v) => v === null],
  'boolean?': ['should be a boolean', (v) => typeof v === 'boolean'],
  'int?': ['should be an int', (v) => typeof v === 'bigint'],
  'integer?': ['should be an integer', (v) => typeof v === 'bigint'],
  'number?': ['should be a number', (v) => typeof v === 'bigint'],
  'pos-int?': ['should be a positive int', (v) => typeof v === 'bigint' && v > 0n],
  'neg-int?': ['should be a negative int', (v) => typeof v === 'bigint' && v < 0n],
  'nat-int?': ['should be a non-negative int', (v) => typeof v === 'bigint' && v >= 0n],
  'string?': ['should be a string', (v) => typeof v === 'string'],
  'keyword?': ['should be a keyword', (v) => v instanceof Keyword],
  'qualified-keyword?': ['should be a qualified keyword', (v) => v instanceof Keyword && v.namespace !== undefined],
  'symbol?': ['should be a symbol', (v) => v instanceof EdnSymbol],
  'uuid?': ['should be a uuid', (v) => v instanceof Uuid],
  'inst?': ['should be an inst', (v) => v instanceof Instant],
  'map?': ['should be a map', (v) => v instanceof EdnMap],
  'vector?': ['should be a vector', (v) => isSeq(v)],
  'set?': ['should be a set', (v) => v instanceof EdnSet],
  'sequential?': ['should be sequential', (v) => items(v) !== undefined],
};

function bound(form: EdnValue, props: EdnMap | undefined, key: string): bigint | undefined {
  const b = props?.get(Keyword.of(key));
  if (b === undefined || b === null) return undefined;
  if (typeof b !== 'bigint') throw invalidSchema(form, `:${key} must be an integer`);
  return b;
}

function compile(form: EdnValue, depth: number): Check {
  if (depth > 64) throw invalidSchema(form, 'nested more than 64 deep');
  if (form instanceof Keyword) {
    const k = form.toString();
    const t = TYPES[k];
    if (t) return simple(t[0], t[1]);
    if (FORBIDDEN.has(k)) throw new Unsupported(`${k} is not available to fact schemas (not data)`);
    if (UNIMPLEMENTED.has(k)) throw new Unsupported(`${k} is a malli schema this tik does not implement`);
    if (COMPOSITES.has(k)) return compile(Object.freeze([form]), depth + 1); // e.g. bare :map = [:map]
    throw invalidSchema(form, `unknown schema type ${k}`);
  }
  if (form instanceof EdnSymbol) {
    const p = PREDICATES[form.text];
    if (p) return simple(p[0], p[1]);
    throw new Unsupported(`the predicate ${form.text} is not in the supported subset`);
  }
  if (!isSeq(form) || form.length === 0 || !(form[0] instanceof Keyword)) {
    throw invalidSchema(form, 'expected a keyword such as :string or a vector such as [:enum :a :b]');
  }
  const op = (form[0] as Keyword).toString();
  const props = form[1] instanceof EdnMap ? form[1] : undefined;
  const args = form.slice(props ? 2 : 1);
  const children = (n?: number): Check[] => {
    if (n !== undefined && args.length !== n) throw invalidSchema(form, `${op} takes ${n === 1 ? 'one child' : `${n} children`}`);
    return args.map((a) => compile(a, depth + 1));
  };

  switch (op) {
    case ':int': {
      if (args.length) throw invalidSchema(form, ':int takes only a properties map');
      const min = bound(form, props, 'min');
      const max = bound(form, props, 'max');
      return (v, at, out) => {
        let message: string | undefined;
        if (typeof v !== 'bigint') message = 'should be an integer';
        else if (min !== undefined && min === max && v !== min) message = `should be ${min}`;
        else if (min !== undefined && v < min) message = `should be at least ${min}`;
        else if (max !== undefined && v > max) message = `should be at most ${max}`;
        if (message) out.push({ in: at, message });
      };
    }
    case ':string': {
      if (args.length) throw invalidSchema(form, ':string takes only a properties map');
      const min = bound(form, props, 'min');
      const max = bound(form, props, 'max');
      return (v, at, out) => {
        let message: string | undefined;
        if (typeof v !== 'string') message = 'should be a string';
        else {
          const n = BigInt(v.length);
          if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
            if (min !== undefined && min === max) message = `should be ${plural(min, 'character')}`;
            else if (min !== undefined && max !== undefined) message = `should be between ${min} and ${max} characters`;
            else if (min !== undefined) message = `should be at least ${plural(min, 'character')}`;
            else message = `should be at most ${plural(max as bigint, 'character')}`;
          }
        }
        if (message) out.push({ in: at, message });
      };
    }
    case ':enum': {
      if (args.length === 0) throw invalidSchema(form, ':enum needs at least one value');
      const texts = new Set(args.map(equalityKey)); // malli tests membership with Clojure =
      const shown = args.map(pr);
      const message =
        shown.length === 1
          ? `should be ${shown[0]}`
          : `should be either ${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}`;
      return (v, at, out) => {
        let id: string;
        try {
          id = equalityKey(v);
        } catch {
          id = '';
        }
        if (!texts.has(id)) out.push({ in: at, message });
      };
    }
    case ':=':
    case ':not=': {
      if (args.length !== 1) throw invalidSchema(form, `${op} takes one value`);
      const want = args[0] as EdnValue;
      const eq = op === ':=';
      const message = eq ? `should be ${pr(want)}` : `should not be ${pr(want)}`;
      return (v, at, out) => {
        if (ednEquals(v, want) !== eq) out.push({ in: at, message });
      };
    }
    case ':>':
    case ':>=':
    case ':<':
    case ':<=': {
      if (args.length !== 1 || typeof args[0] !== 'bigint') throw invalidSchema(form, `${op} takes one integer`);
      const n = args[0];
      const [message, ok] = {
        ':>': [`should be larger than ${n}`, (x: bigint) => x > n],
        ':>=': [`should be at least ${n}`, (x: bigint) => x >= n],
        ':<': [`should be smaller than ${n}`, (x: bigint) => x < n],
        ':<=': [`should be at most ${n}`, (x: bigint) => x <= n],
      }[op] as [string, (x: bigint) => boolean];
      return (v, at, out) => {
        if (typeof v !== 'bigint' || !ok(v)) out.push({ in: at, message });
      };
    }
    case ':maybe': {
      const [c] = children(1) as [Check];
      return (v, at, out) => {
        if (v !== null) c(v, at, out);
      };
    }
    case ':and': {
      if (args.length === 0) throw invalidSchema(form, ':and needs at least one child');
      const cs = children();
      return (v, at, out) => {
        for (const c of cs) {
          const before = out.length;
          c(v, at, out);
          if (out.length > before) return;
        }
      };
    }
    case ':or': {
      if (args.length === 0) throw invalidSchema(form, ':or needs at least one child');
      const cs = children();
      return (v, at, out) => {
        const all: SchemaError[] = [];
        for (const c of cs) {
          const mine: SchemaError[] = [];
          c(v, at, mine);
          if (mine.length === 0) return;
          all.push(...mine);
        }
        out.push(...all);
      };
    }
    case ':vector':
    case ':sequential':
    case ':set': {
      const [c] = children(1) as [Check];
      const min = bound(form, props, 'min');
      const max = bound(form, props, 'max');
      const elements = (v: EdnValue): readonly EdnValue[] | undefined =>
        op === ':vector' ? (isSeq(v) ? v : undefined) : op === ':set' ? (v instanceof EdnSet ? [...v.values()] : undefined) : items(v);
      return (v, at, out) => {
        const xs = elements(v);
        if (!xs) {
          out.push({ in: at, message: 'invalid type' });
          return;
        }
        const n = BigInt(xs.length);
        if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
          let message: string;
          if (min !== undefined && min === max) message = `should have ${plural(min, 'element')}`;
          else if (min !== undefined && n < min) message = `should have at least ${plural(min, 'element')}`;
          else message = `should have at most ${plural(max as bigint, 'element')}`;
          out.push({ in: at, message });
          return;
        }
        // malli reports set members under the member itself
        xs.forEach((x, i) => c(x, [...at, op === ':set' ? x : BigInt(i)], out));
      };
    }
    case ':tuple': {
      const cs = children();
      return (v, at, out) => {
        if (!isSeq(v)) {
          out.push({ in: at, message: 'invalid type' });
          return;
        }
        if (v.length !== cs.length) {
          out.push({ in: at, message: `invalid tuple size ${v.length}, expected ${cs.length}` });
          return;
        }
        cs.forEach((c, i) => c(v[i] as EdnValue, [...at, BigInt(i)], out));
      };
    }
    case ':map-of': {
      const [ck, cv] = children(2) as [Check, Check];
      return (v, at, out) => {
        if (!(v instanceof EdnMap)) {
          out.push({ in: at, message: 'invalid type' });
          return;
        }
        for (const [k, x] of v.entries()) {
          ck(k, [...at, k], out);
          cv(x, [...at, k], out);
        }
      };
    }
    case ':map': {
      const closed = props?.get(Keyword.of('closed')) === true;
      const entries = args.map((e) => {
        if (!isSeq(e) || e.length < 2 || e.length > 3) throw invalidSchema(form, `map entry ${safeText(e)} must be [key schema] or [key {:optional true} schema]`);
        const key = e[0] as EdnValue;
        const eprops = e.length === 3 ? e[1] : undefined;
        if (eprops !== undefined && !(eprops instanceof EdnMap)) throw invalidSchema(form, `map entry ${safeText(e)} has properties that are not a map`);
        const optional = eprops?.get(Keyword.of('optional')) === true;
        return { key, text: emit(key), optional, check: compile(e[e.length - 1] as EdnValue, depth + 1) };
      });
      const seen = new Set<string>();
      for (const e of entries) {
        if (seen.has(e.text)) throw invalidSchema(form, `map key ${e.text} is declared twice`);
        seen.add(e.text);
      }
      return (v, at, out) => {
        if (!(v instanceof EdnMap)) {
          out.push({ in: at, message: 'invalid type' });
          return;
        }
        for (const e of entries) {
          const x = v.getByText(e.text);
          if (x === undefined) {
            if (!e.optional) out.push({ in: [...at, e.key], message: 'missing required key' });
          } else {
            e.check(x, [...at, e.key], out);
          }
        }
        if (closed) {
          for (const [t, k] of v.textEntries()) if (!seen.has(t)) out.push({ in: [...at, k], message: 'disallowed key' });
        }
      };
    }
  }
  if (FORBIDDEN.has(op)) throw new Unsupported(`${op} is not available to fact schemas (not data)`);
  if (UNIMPLEMENTED.has(op)) throw new Unsupported(`${op} is a malli schema this tik does not implement`);
  const t = TYPES[op];
  if (t) {
    if (args.length) throw invalidSchema(form, `${op} takes no children`);
    return simple(t[0], t[1]);
  }
  throw invalidSchema(form, `unknown schema type ${op}`);
}

/**
 * Compile a schema form. Returns an `UnsupportedSchema` for `:fn`, `:multi` and malli forms outside
 * the subset (anywhere inside the form); throws `TikError('schema/invalid')` for non-schemas.
 */
export function compileSchema(form: EdnValue): Schema | UnsupportedSchema {
  try {
    return Object.freeze({ kind: 'schema', form, check: compile(form, 0) });
  } catch (e) {
    if (e instanceof Unsupported) return Object.freeze({ kind: 'unsupported', form, reason: e.reason });
    throw e;
  }
}

export const isUnsupportedSchema = (s: Schema | UnsupportedSchema): s is UnsupportedSchema => s.kind === 'unsupported';

/** Every validation error with its `:in` path (empty when the value is valid). */
export function explain(schema: Schema, value: EdnValue): readonly SchemaError[] {
  const out: SchemaError[] = [];
  schema.check(value, [], out);
  return out;
}

/** Humanised errors, `[]` when valid; errors below the top level are prefixed with their path. */
export function validate(schema: Schema, value: EdnValue): string[] {
  return explain(schema, value).map((e) => (e.in.length === 0 ? e.message : `${emit(Object.freeze([...e.in]))}: ${e.message}`));
}

/**
 * Validate the fact-map of the `[:malli schema]` guard: `{[path] value}` for every present fact,
 * given as an EDN map or as `[path, value]` pairs (paths are keyword vectors).
 */
export function validateFactMap(
  schema: Schema,
  facts: EdnMap | Iterable<readonly [readonly EdnValue[], EdnValue]>,
): string[] {
  const m = facts instanceof EdnMap ? facts : ednMap([...facts].map(([p, v]) => [Object.freeze([...p]), v] as const));
  return validate(schema, m);
}

/** For lint: `undefined` if `form` is a usable schema, else what is wrong with it. */
export function schemaProblem(form: EdnValue): { kind: 'invalid' | 'unsupported'; message: string } | undefined {
  try {
    const s = compileSchema(form);
    return s.kind === 'unsupported' ? { kind: 'unsupported', message: s.reason } : undefined;
  } catch (e) {
    if (e instanceof TikError) return { kind: 'invalid', message: e.message };
    throw e;
  }
}

/** True if `form` is a malli schema form (usable or `:schema/unsupported`), false if it is not a schema. */
export function isSchemaForm(form: EdnValue): boolean {
  return schemaProblem(form)?.kind !== 'invalid';
}
