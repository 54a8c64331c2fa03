/**
 * The EDN value model used by the whole tik kernel (tik-model.md §1.1).
 *
 * | EDN            | TypeScript                                  |
 * |----------------|---------------------------------------------|
 * | nil            | `null`                                      |
 * | true / false   | `boolean`                                   |
 * | integer        | `bigint` (always; signed 64-bit range)      |
 * | string         | `string`                                    |
 * | keyword        | `Keyword` (interned weakly: compare with `===`) |
 * | symbol         | `EdnSymbol` (interned)                      |
 * | #uuid          | `Uuid` (lower-case text)                    |
 * | #inst          | `Instant` (epoch milliseconds)              |
 * | vector         | `readonly EdnValue[]` (a frozen JS array)   |
 * | list           | `EdnList`                                   |
 * | map            | `EdnMap` (a scalar key filed by its canonical text, a collection key by itself) |
 * | set            | `EdnSet` (filed the same way)               |
 *
 * Values are immutable. Identity of keys and members is their canonical text (§1.2, §1.7); the
 * writer (`emit`) supplies a scalar's, and a collection's is decided structurally (`structure.ts`).
 */

import { LONG_TEXT, LongText, TextKeys, type TextKey } from './text-keys.js';

export type EdnValue =
  | null
  | boolean
  | bigint
  | string
  | Keyword
  | EdnSymbol
  | Uuid
  | Instant
  | readonly EdnValue[]
  | EdnList
  | EdnMap
  | EdnSet;

/**
 * The intern tables hold keywords and symbols weakly: while any value holds one, `of` returns that
 * same instance (so `===` compares them), and once nothing does, it is collected and its entry
 * dropped. A stream of refused pushes full of fresh keywords therefore leaks nothing.
 */
const keywords = new Map<TextKey, WeakRef<Keyword>>();
const keywordKeys = new TextKeys();
const keywordGone = new FinalizationRegistry<TextKey>((k) => forget(keywords, keywordKeys, k));

/** Drop a collected keyword's or symbol's entry (unless the text was interned again since). */
function forget(table: Map<TextKey, WeakRef<object>>, keys: TextKeys, k: TextKey): void {
  if (table.get(k)?.deref() !== undefined) return;
  table.delete(k);
  if (k instanceof LongText) keys.drop(k);
}

/** A keyword, interned by its text without the leading colon (`ns/name` or `name`). */
export class Keyword {
  private constructor(
    /** Text without the colon, e.g. `event/type`. */
    readonly text: string,
  ) {
    Object.freeze(this);
  }

  static of(text: string): Keyword {
    const t = text.startsWith(':') ? text.slice(1) : text;
    const key = keywordKeys.key(t);
    let k = keywords.get(key)?.deref();
    if (!k) {
      k = new Keyword(t);
      keywords.set(key, new WeakRef(k));
      keywordGone.register(k, key);
    }
    return k;
  }

  get namespace(): string | undefined {
    const i = this.text.indexOf('/');
    return i > 0 ? this.text.slice(0, i) : undefined;
  }

  get name(): string {
    const i = this.text.indexOf('/');
    return i > 0 ? this.text.slice(i + 1) : this.text;
  }

  toString(): string {
    return `:${this.text}`;
  }
}

/** Shorthand: `kw('event/type')` or `kw(':event/type')`. */
export const kw = (text: string): Keyword => Keyword.of(text);

const symbols = new Map<TextKey, WeakRef<EdnSymbol>>();
const symbolKeys = new TextKeys();
const symbolGone = new FinalizationRegistry<TextKey>((k) => forget(symbols, symbolKeys, k));

/** How many keywords and symbols are interned right now (for tests of the bound). */
export function internedCount(): number {
  return keywords.size + symbols.size;
}

/**
 * The canonical text of a value, for scalar keys and for text lookups. The writer registers
 * itself here, so this module does not import it.
 */
let canonicalText: (v: EdnValue) => string = () => {
  throw new Error('the EDN writer is not loaded');
};

/** Called once by the writer module. */
export function registerCanonicalText(f: (v: EdnValue) => string): void {
  canonicalText = f;
}

export class EdnSymbol {
  private constructor(readonly text: string) {
    Object.freeze(this);
  }

  static of(text: string): EdnSymbol {
    const key = symbolKeys.key(text);
    let s = symbols.get(key)?.deref();
    if (!s) {
      s = new EdnSymbol(text);
      symbols.set(key, new WeakRef(s));
      symbolGone.register(s, key);
    }
    return s;
  }

  toString(): string {
    return this.text;
  }
}

/** A UUID; `text` is the canonical lower-case 8-4-4-4-12 form. */
export class Uuid {
  constructor(readonly text: string) {
    Object.freeze(this);
  }

  toString(): string {
    return this.text;
  }
}

/** An instant at millisecond precision (the only time type, §1.4). */
export class Instant {
  constructor(
    /** Milliseconds since the epoch, an integer. */
    readonly ms: number,
  ) {
    if (!Number.isSafeInteger(ms)) throw new RangeError(`instant milliseconds must be a safe integer, got ${ms}`);
    Object.freeze(this);
  }

  toString(): string {
    return `#inst ${this.ms}`;
  }
}

export class EdnList {
  readonly items: readonly EdnValue[];
  /** The structure module's cache (see `memoOf`): a private field, so a frozen value can fill it. */
  #memo: unknown = undefined;

  static memo(v: EdnList): unknown {
    return v.#memo;
  }

  static keep(v: EdnList, m: unknown): void {
    v.#memo = m;
  }

  constructor(items: readonly EdnValue[]) {
    this.items = Object.freeze([...items]);
    Object.freeze(this);
  }
}

/**
 * How a map key or set member is filed: a scalar by its canonical text (what `get` and `getByText`
 * look up; from `LONG_TEXT` units on, by the `LongText` key of that text in the collection's own
 * `TextKeys`, since V8 hashes a long string by its length alone), a collection by the value itself.
 * A collection's text is never computed to file it: for a set of sets nested 500 deep that would
 * write (and hash) the text below every level again, which is quadratic (issue 13). Identity of
 * collections under `=` is the constructor's or the reader's job (structural digests, see
 * `structure.ts`).
 */
export type EntryId = TextKey | object;

function holdsCollection(v: EdnValue): v is readonly EdnValue[] | EdnList | EdnMap | EdnSet {
  return Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
}

/** The canonical text of a scalar key (the caller may know it already). */
const scalarKeyText = (v: EdnValue, text: string | undefined): string => text ?? (v instanceof Keyword ? ':' + v.text : canonicalText(v));

/** Is `id` a collection filed by itself (rather than a scalar filed by its text)? */
const collectionId = (id: EntryId): boolean => typeof id !== 'string' && !(id instanceof LongText);

/** The canonical text of the key or member `v` filed under `id`. */
const idText = (id: EntryId, v: EdnValue): string => (typeof id === 'string' ? id : id instanceof LongText ? id.text : canonicalText(v));

/** Could `text` be the canonical text of a collection? */
const collectionText = (text: string): boolean => {
  const c = text.charCodeAt(0);
  return c === 91 || c === 40 || c === 123 || (c === 35 && text.charCodeAt(1) === 123);
};

/** The id a scalar of canonical text `text` is filed under in a table whose long keys are `keys`. */
const scalarId = (keys: TextKeys | undefined, text: string): EntryId | undefined => (text.length < LONG_TEXT ? text : keys?.find(text));

/**
 * A map whose identity is the canonical text of each key. `entries` keep insertion order; the
 * writer sorts. Construct through `EdnMap.from` with a key-text function (normally `emit`), so
 * this module does not depend on the writer.
 */
export class EdnMap {
  private readonly keyed: ReadonlyMap<EntryId, readonly [EdnValue, EdnValue]>;
  /** The keys of long key texts (undefined: none). */
  private readonly keys: TextKeys | undefined;
  #memo: unknown = undefined;

  static memo(v: EdnMap): unknown {
    return v.#memo;
  }

  static keep(v: EdnMap, m: unknown): void {
    v.#memo = m;
  }

  private constructor(keyed: Map<EntryId, readonly [EdnValue, EdnValue]>, keys: TextKeys | undefined) {
    this.keyed = keyed;
    this.keys = keys;
    Object.freeze(this);
  }

  /** A map of one entry (its key's text is computed only if it is a scalar). */
  static single(key: EdnValue, value: EdnValue): EdnMap {
    const entry = Object.freeze([key, value] as const);
    if (holdsCollection(key)) return new EdnMap(new Map([[key, entry]]), undefined);
    const keys = new TextKeys();
    return new EdnMap(new Map([[keys.key(scalarKeyText(key, undefined)), entry]]), keys);
  }

  /** Later entries with the same key text replace earlier ones. */
  static from(entries: Iterable<readonly [EdnValue, EdnValue]>, keyText: (v: EdnValue) => string): EdnMap {
    const keyedByText: (readonly [string, EdnValue, EdnValue])[] = [];
    for (const [k, v] of entries) keyedByText.push([keyText(k), k, v]);
    return EdnMap.fromKeyed(keyedByText);
  }

  /**
   * Take ownership of a prepared id → frozen [key, value] map whose ids are a collection key itself
   * or a scalar key's `keys.key(text)`, and whose keys are distinct under `=` (the reader's fast
   * path). The caller must not touch either afterwards.
   */
  static adopt(keyed: Map<EntryId, readonly [EdnValue, EdnValue]>, keys: TextKeys): EdnMap {
    return new EdnMap(keyed, keys);
  }

  /**
   * From entries whose key text is already known (the reader and `ednMap` compute it once).
   * The caller guarantees each text is `emit(key)`; later texts replace earlier ones.
   */
  static fromKeyed(entries: Iterable<readonly [string, EdnValue, EdnValue]>): EdnMap {
    const keys = new TextKeys();
    const byText = new Map<TextKey, readonly [EdnValue, EdnValue]>();
    for (const [t, k, v] of entries) byText.set(keys.key(t), Object.freeze([k, v] as const));
    const m = new Map<EntryId, readonly [EdnValue, EdnValue]>();
    for (const [t, e] of byText) m.set(holdsCollection(e[0]) ? e[0] : t, e);
    return new EdnMap(m, keys);
  }

  get size(): number {
    return this.keyed.size;
  }

  /** Look up by the canonical text of a key (e.g. `':event/type'`). */
  getByText(text: string): EdnValue | undefined {
    const id = scalarId(this.keys, text);
    const e = id === undefined ? undefined : this.keyed.get(id);
    if (e !== undefined || !collectionText(text)) return e?.[1];
    for (const [id, [k, v]] of this.keyed) if (collectionId(id) && canonicalText(k) === text) return v;
    return undefined;
  }

  hasText(text: string): boolean {
    return this.getByText(text) !== undefined;
  }

  /** Look up by keyword, the common case in the kernel. */
  get(key: Keyword): EdnValue | undefined {
    const id = scalarId(this.keys, ':' + key.text);
    return id === undefined ? undefined : this.keyed.get(id)?.[1];
  }

  entries(): IterableIterator<readonly [EdnValue, EdnValue]> {
    return this.keyed.values();
  }

  /** [keyText, key, value] triples (a collection key's text is written here, when asked for). */
  *textEntries(): IterableIterator<readonly [string, EdnValue, EdnValue]> {
    for (const [id, [k, v]] of this.keyed) yield [idText(id, k), k, v] as const;
  }
}

/** A set whose identity is the canonical text of each member. */
export class EdnSet {
  private readonly keyed: ReadonlyMap<EntryId, EdnValue>;
  /** The keys of long member texts (undefined: none). */
  private readonly keys: TextKeys | undefined;
  #memo: unknown = undefined;

  static memo(v: EdnSet): unknown {
    return v.#memo;
  }

  static keep(v: EdnSet, m: unknown): void {
    v.#memo = m;
  }

  private constructor(keyed: Map<EntryId, EdnValue>, keys: TextKeys | undefined) {
    this.keyed = keyed;
    this.keys = keys;
    Object.freeze(this);
  }

  /** A set of one member (its text computed only if it is a scalar). */
  static single(member: EdnValue): EdnSet {
    if (holdsCollection(member)) return new EdnSet(new Map([[member, member]]), undefined);
    const keys = new TextKeys();
    return new EdnSet(new Map([[keys.key(scalarKeyText(member, undefined)), member]]), keys);
  }

  static from(members: Iterable<EdnValue>, keyText: (v: EdnValue) => string): EdnSet {
    const withText: (readonly [string, EdnValue])[] = [];
    for (const v of members) withText.push([keyText(v), v]);
    return EdnSet.fromKeyed(withText);
  }

  /**
   * Take ownership of a prepared id → member map whose ids are a collection member itself or a
   * scalar member's `keys.key(text)`, and whose members are distinct under `=` (the reader's fast
   * path). The caller must not touch either afterwards.
   */
  static adopt(keyed: Map<EntryId, EdnValue>, keys: TextKeys): EdnSet {
    return new EdnSet(keyed, keys);
  }

  /** From members whose text is already known (`emit(member)`); the first of equal texts wins. */
  static fromKeyed(members: Iterable<readonly [string, EdnValue]>): EdnSet {
    const keys = new TextKeys();
    const seen = new Set<TextKey>();
    const m = new Map<EntryId, EdnValue>();
    for (const [t, v] of members) {
      const key = keys.key(t);
      if (seen.has(key)) continue;
      seen.add(key);
      m.set(holdsCollection(v) ? v : key, v);
    }
    return new EdnSet(m, keys);
  }

  get size(): number {
    return this.keyed.size;
  }

  hasText(text: string): boolean {
    const id = scalarId(this.keys, text);
    if (id !== undefined && this.keyed.has(id)) return true;
    if (!collectionText(text)) return false;
    for (const [id, v] of this.keyed) if (collectionId(id) && canonicalText(v) === text) return true;
    return false;
  }

  values(): IterableIterator<EdnValue> {
    return this.keyed.values();
  }

  /** [memberText, member] pairs (a collection member's text is written here, when asked for). */
  *textEntries(): IterableIterator<readonly [string, EdnValue]> {
    for (const [id, v] of this.keyed) yield [idText(id, v), v] as const;
  }
}

/**
 * A collection's derived facts, computed once by the structure module (a value is immutable, so
 * they never change). Held in the value itself, not in a side table: a WeakMap entry per
 * collection made garbage collection dominate reading. A vector is a frozen array with no slot:
 * `undefined`, and the caller keeps its own table.
 */
export function memoOf(v: object): unknown {
  if (v instanceof EdnMap) return EdnMap.memo(v);
  if (v instanceof EdnSet) return EdnSet.memo(v);
  if (v instanceof EdnList) return EdnList.memo(v);
  return undefined;
}

/** Fill a collection's memo slot; false for a vector (no slot). */
export function keepMemo(v: object, m: unknown): boolean {
  if (v instanceof EdnMap) EdnMap.keep(v, m);
  else if (v instanceof EdnSet) EdnSet.keep(v, m);
  else if (v instanceof EdnList) EdnList.keep(v, m);
  else return false;
  return true;
}

export const isKeyword = (v: unknown): v is Keyword => v instanceof Keyword;
export const isMap = (v: unknown): v is EdnMap => v instanceof EdnMap;
export const isSet = (v: unknown): v is EdnSet => v instanceof EdnSet;
export const isVector = (v: unknown): v is readonly EdnValue[] => Array.isArray(v);
export const isInstant = (v: unknown): v is Instant => v instanceof Instant;
export const isUuid = (v: unknown): v is Uuid => v instanceof Uuid;
