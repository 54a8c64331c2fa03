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
 * | map            | `EdnMap` (keyed by the canonical text of the key) |
 * | set            | `EdnSet` (keyed by the canonical text of the member) |
 *
 * Values are immutable. Maps and sets are keyed by canonical text because that is the identity
 * the canonical format uses (§1.2, §1.7); the writer (`emit`) supplies it.
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
 * The canonical text of a value, for the key of a one-entry map or one-member set (computed when
 * asked for, never stored: see `EdnMap.single`). The writer registers itself here, so this module
 * does not import it.
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

  constructor(items: readonly EdnValue[]) {
    this.items = Object.freeze([...items]);
    Object.freeze(this);
  }
}

/**
 * A map whose identity is the canonical text of each key. `entries` keep insertion order; the
 * writer sorts. Construct through `EdnMap.from` with a key-text function (normally `emit`), so
 * this module does not depend on the writer.
 */
export class EdnMap {
  /** Keyed entries; undefined for a one-entry map, which holds `one` instead (see `single`). */
  private readonly keyed: ReadonlyMap<string, readonly [EdnValue, EdnValue]> | undefined;
  private readonly one: readonly [EdnValue, EdnValue] | undefined;

  private constructor(byText: Map<string, readonly [EdnValue, EdnValue]>, one?: readonly [EdnValue, EdnValue]) {
    // one representation per size, so equal maps are also structurally equal
    if (one === undefined && byText.size === 1) one = byText.values().next().value!;
    this.keyed = one === undefined ? byText : undefined;
    this.one = one;
    Object.freeze(this);
  }

  /**
   * A map of one entry. Its key's text is computed when asked for, never stored: there is nothing
   * to sort or deduplicate, so the reader builds nested one-entry maps without any key text (a
   * deep chain reads in linear time).
   */
  static single(key: EdnValue, value: EdnValue): EdnMap {
    return new EdnMap(new Map(), Object.freeze([key, value] as const));
  }

  private get byText(): ReadonlyMap<string, readonly [EdnValue, EdnValue]> {
    return this.keyed ?? new Map([[canonicalText(this.one![0]), this.one!]]);
  }

  /** Later entries with the same key text replace earlier ones. */
  static from(entries: Iterable<readonly [EdnValue, EdnValue]>, keyText: (v: EdnValue) => string): EdnMap {
    const m = new Map<string, readonly [EdnValue, EdnValue]>();
    for (const [k, v] of entries) m.set(keyText(k), Object.freeze([k, v] as const));
    return new EdnMap(m);
  }

  /**
   * Take ownership of a prepared text → frozen [key, value] map (the reader's fast path). The
   * caller must not touch `byText` afterwards.
   */
  static adopt(byText: Map<string, readonly [EdnValue, EdnValue]>): EdnMap {
    return new EdnMap(byText);
  }

  /**
   * From entries whose key text is already known (the reader and `ednMap` compute it once).
   * The caller guarantees each text is `emit(key)`; later texts replace earlier ones.
   */
  static fromKeyed(entries: Iterable<readonly [string, EdnValue, EdnValue]>): EdnMap {
    const m = new Map<string, readonly [EdnValue, EdnValue]>();
    for (const [t, k, v] of entries) m.set(t, Object.freeze([k, v] as const));
    return new EdnMap(m);
  }

  get size(): number {
    return this.keyed?.size ?? 1;
  }

  /** Look up by the canonical text of a key (e.g. `':event/type'`). */
  getByText(text: string): EdnValue | undefined {
    if (this.one !== undefined) return canonicalText(this.one[0]) === text ? this.one[1] : undefined;
    return this.keyed!.get(text)?.[1];
  }

  hasText(text: string): boolean {
    return this.one !== undefined ? canonicalText(this.one[0]) === text : this.keyed!.has(text);
  }

  /** Look up by keyword, the common case in the kernel. */
  get(key: Keyword): EdnValue | undefined {
    if (this.one !== undefined) return this.one[0] === key ? this.one[1] : undefined;
    return this.keyed!.get(key.toString())?.[1];
  }

  entries(): IterableIterator<readonly [EdnValue, EdnValue]> {
    return this.one !== undefined ? [this.one][Symbol.iterator]() : this.keyed!.values();
  }

  /** [keyText, key, value] triples. */
  *textEntries(): IterableIterator<readonly [string, EdnValue, EdnValue]> {
    for (const [t, [k, v]] of this.byText) yield [t, k, v] as const;
  }
}

/** A set whose identity is the canonical text of each member. */
export class EdnSet {
  /** Keyed members; undefined for a one-member set, which holds `one` instead (see `single`). */
  private readonly keyed: ReadonlyMap<string, EdnValue> | undefined;
  private readonly one: readonly [EdnValue] | undefined;

  private constructor(byText: Map<string, EdnValue>, one?: readonly [EdnValue]) {
    if (one === undefined && byText.size === 1) one = Object.freeze([byText.values().next().value as EdnValue] as const);
    this.keyed = one === undefined ? byText : undefined;
    this.one = one;
    Object.freeze(this);
  }

  /** A set of one member, its text computed when asked for (as `EdnMap.single`). */
  static single(member: EdnValue): EdnSet {
    return new EdnSet(new Map(), Object.freeze([member] as const));
  }

  private get byText(): ReadonlyMap<string, EdnValue> {
    return this.keyed ?? new Map([[canonicalText(this.one![0]), this.one![0]]]);
  }

  static from(members: Iterable<EdnValue>, keyText: (v: EdnValue) => string): EdnSet {
    const m = new Map<string, EdnValue>();
    for (const v of members) if (!m.has(keyText(v))) m.set(keyText(v), v);
    return new EdnSet(m);
  }

  /**
   * Take ownership of a prepared text → member map (the reader's fast path). The caller must not
   * touch `byText` afterwards.
   */
  static adopt(byText: Map<string, EdnValue>): EdnSet {
    return new EdnSet(byText);
  }

  /** From members whose text is already known (`emit(member)`); the first of equal texts wins. */
  static fromKeyed(members: Iterable<readonly [string, EdnValue]>): EdnSet {
    const m = new Map<string, EdnValue>();
    for (const [t, v] of members) if (!m.has(t)) m.set(t, v);
    return new EdnSet(m);
  }

  get size(): number {
    return this.keyed?.size ?? 1;
  }

  hasText(text: string): boolean {
    return this.one !== undefined ? canonicalText(this.one[0]) === text : this.keyed!.has(text);
  }

  values(): IterableIterator<EdnValue> {
    return this.one !== undefined ? [this.one[0]][Symbol.iterator]() : this.keyed!.values();
  }

  *textEntries(): IterableIterator<readonly [string, EdnValue]> {
    // a single member's text is not hashed into a map just to be listed
    if (this.one !== undefined) yield [canonicalText(this.one[0]), this.one[0]] as const;
    else yield* this.keyed!;
  }
}

export const isKeyword = (v: unknown): v is Keyword => v instanceof Keyword;
export const isMap = (v: unknown): v is EdnMap => v instanceof EdnMap;
export const isSet = (v: unknown): v is EdnSet => v instanceof EdnSet;
export const isVector = (v: unknown): v is readonly EdnValue[] => Array.isArray(v);
export const isInstant = (v: unknown): v is Instant => v instanceof Instant;
export const isUuid = (v: unknown): v is Uuid => v instanceof Uuid;
