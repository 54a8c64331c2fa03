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
const keywords = new Map<string, WeakRef<Keyword>>();
const keywordGone = new FinalizationRegistry<string>((t) => {
  if (keywords.get(t)?.deref() === undefined) keywords.delete(t);
});

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
    let k = keywords.get(t)?.deref();
    if (!k) {
      k = new Keyword(t);
      keywords.set(t, new WeakRef(k));
      keywordGone.register(k, t);
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

const symbols = new Map<string, WeakRef<EdnSymbol>>();
const symbolGone = new FinalizationRegistry<string>((t) => {
  if (symbols.get(t)?.deref() === undefined) symbols.delete(t);
});

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
    let s = symbols.get(text)?.deref();
    if (!s) {
      s = new EdnSymbol(text);
      symbols.set(text, new WeakRef(s));
      symbolGone.register(s, text);
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
 * How a map key or set member is filed: a scalar by its canonical text (short, and what `get` and
 * `getByText` look up), a collection by the value itself. A collection's text is never computed
 * to file it: for a set of sets nested 500 deep that would write (and hash) the text below every
 * level again, which is quadratic (issue 13). Identity of collections under `=` is the
 * constructor's or the reader's job (structural digests, see `structure.ts`).
 */
export type EntryId = string | object;

function holdsCollection(v: EdnValue): v is readonly EdnValue[] | EdnList | EdnMap | EdnSet {
  return Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
}

/** The id of a key or member; `text`, when given, is its canonical text (the caller computed it). */
export function entryId(v: EdnValue, text?: string): EntryId {
  if (holdsCollection(v)) return v;
  if (text !== undefined) return text;
  return v instanceof Keyword ? ':' + v.text : canonicalText(v);
}

/** Could `text` be the canonical text of a collection? */
const collectionText = (text: string): boolean => {
  const c = text.charCodeAt(0);
  return c === 91 || c === 40 || c === 123 || (c === 35 && text.charCodeAt(1) === 123);
};

/**
 * A map whose identity is the canonical text of each key. `entries` keep insertion order; the
 * writer sorts. Construct through `EdnMap.from` with a key-text function (normally `emit`), so
 * this module does not depend on the writer.
 */
export class EdnMap {
  private readonly keyed: ReadonlyMap<EntryId, readonly [EdnValue, EdnValue]>;
  #memo: unknown = undefined;

  static memo(v: EdnMap): unknown {
    return v.#memo;
  }

  static keep(v: EdnMap, m: unknown): void {
    v.#memo = m;
  }

  private constructor(keyed: Map<EntryId, readonly [EdnValue, EdnValue]>) {
    this.keyed = keyed;
    Object.freeze(this);
  }

  /** A map of one entry (its key's text is computed only if it is a scalar). */
  static single(key: EdnValue, value: EdnValue): EdnMap {
    return new EdnMap(new Map([[entryId(key), Object.freeze([key, value] as const)]]));
  }

  /** Later entries with the same key text replace earlier ones. */
  static from(entries: Iterable<readonly [EdnValue, EdnValue]>, keyText: (v: EdnValue) => string): EdnMap {
    const m = new Map<string, readonly [EdnValue, EdnValue]>();
    for (const [k, v] of entries) m.set(keyText(k), Object.freeze([k, v] as const));
    return EdnMap.fromKeyed([...m].map(([t, [k, v]]) => [t, k, v] as const));
  }

  /**
   * Take ownership of a prepared id → frozen [key, value] map whose ids are `entryId(key)` and
   * whose keys are distinct under `=` (the reader's fast path). The caller must not touch it
   * afterwards.
   */
  static adopt(keyed: Map<EntryId, readonly [EdnValue, EdnValue]>): EdnMap {
    return new EdnMap(keyed);
  }

  /**
   * From entries whose key text is already known (the reader and `ednMap` compute it once).
   * The caller guarantees each text is `emit(key)`; later texts replace earlier ones.
   */
  static fromKeyed(entries: Iterable<readonly [string, EdnValue, EdnValue]>): EdnMap {
    const byText = new Map<string, readonly [EdnValue, EdnValue]>();
    for (const [t, k, v] of entries) byText.set(t, Object.freeze([k, v] as const));
    const m = new Map<EntryId, readonly [EdnValue, EdnValue]>();
    for (const [t, e] of byText) m.set(entryId(e[0], t), e);
    return new EdnMap(m);
  }

  get size(): number {
    return this.keyed.size;
  }

  /** Look up by the canonical text of a key (e.g. `':event/type'`). */
  getByText(text: string): EdnValue | undefined {
    const e = this.keyed.get(text);
    if (e !== undefined || !collectionText(text)) return e?.[1];
    for (const [id, [k, v]] of this.keyed) if (typeof id !== 'string' && canonicalText(k) === text) return v;
    return undefined;
  }

  hasText(text: string): boolean {
    if (this.keyed.has(text)) return true;
    if (!collectionText(text)) return false;
    for (const [id, [k]] of this.keyed) if (typeof id !== 'string' && canonicalText(k) === text) return true;
    return false;
  }

  /** Look up by keyword, the common case in the kernel. */
  get(key: Keyword): EdnValue | undefined {
    return this.keyed.get(':' + key.text)?.[1];
  }

  entries(): IterableIterator<readonly [EdnValue, EdnValue]> {
    return this.keyed.values();
  }

  /** [keyText, key, value] triples (a collection key's text is written here, when asked for). */
  *textEntries(): IterableIterator<readonly [string, EdnValue, EdnValue]> {
    for (const [id, [k, v]] of this.keyed) yield [typeof id === 'string' ? id : canonicalText(k), k, v] as const;
  }
}

/** A set whose identity is the canonical text of each member. */
export class EdnSet {
  private readonly keyed: ReadonlyMap<EntryId, EdnValue>;
  #memo: unknown = undefined;

  static memo(v: EdnSet): unknown {
    return v.#memo;
  }

  static keep(v: EdnSet, m: unknown): void {
    v.#memo = m;
  }

  private constructor(keyed: Map<EntryId, EdnValue>) {
    this.keyed = keyed;
    Object.freeze(this);
  }

  /** A set of one member (its text computed only if it is a scalar). */
  static single(member: EdnValue): EdnSet {
    return new EdnSet(new Map([[entryId(member), member]]));
  }

  static from(members: Iterable<EdnValue>, keyText: (v: EdnValue) => string): EdnSet {
    const m = new Map<string, EdnValue>();
    for (const v of members) {
      const t = keyText(v);
      if (!m.has(t)) m.set(t, v);
    }
    return EdnSet.fromKeyed(m);
  }

  /**
   * Take ownership of a prepared id → member map whose ids are `entryId(member)` and whose
   * members are distinct under `=` (the reader's fast path). The caller must not touch it.
   */
  static adopt(keyed: Map<EntryId, EdnValue>): EdnSet {
    return new EdnSet(keyed);
  }

  /** From members whose text is already known (`emit(member)`); the first of equal texts wins. */
  static fromKeyed(members: Iterable<readonly [string, EdnValue]>): EdnSet {
    const seen = new Set<string>();
    const m = new Map<EntryId, EdnValue>();
    for (const [t, v] of members) {
      if (seen.has(t)) continue;
      seen.add(t);
      m.set(entryId(v, t), v);
    }
    return new EdnSet(m);
  }

  get size(): number {
    return this.keyed.size;
  }

  hasText(text: string): boolean {
    if (this.keyed.has(text)) return true;
    if (!collectionText(text)) return false;
    for (const [id, v] of this.keyed) if (typeof id !== 'string' && canonicalText(v) === text) return true;
    return false;
  }

  values(): IterableIterator<EdnValue> {
    return this.keyed.values();
  }

  /** [memberText, member] pairs (a collection member's text is written here, when asked for). */
  *textEntries(): IterableIterator<readonly [string, EdnValue]> {
    for (const [id, v] of this.keyed) yield [typeof id === 'string' ? id : canonicalText(v), v] as const;
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
