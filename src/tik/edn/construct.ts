/**
 * Building values with the canonical writer as the identity of map keys and set members.
 */
import { TikError } from '../errors.js';
import { emit } from './emit.js';
import { equalityKey } from './equals.js';
import { TextKeys, type TextKey } from './text-keys.js';
import { EdnList, EdnMap, EdnSet, Keyword, Uuid, type EdnValue } from './value.js';

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * A map from entries, with Clojure `hash-map` semantics: for keys that are `=`, the first key
 * object is kept and the last value wins. Keys are identified by their canonical text (a long
 * one by digest, confirmed: `text-keys.ts`).
 */
export function ednMap(entries: Iterable<readonly [EdnValue, EdnValue]>): EdnMap {
  const keys = new TextKeys();
  const byId = new Map<TextKey, [string, EdnValue, EdnValue]>();
  for (const [k, v] of entries) {
    const text = emit(k);
    const id = keys.key(typeof k === 'object' && k !== null && !(k instanceof Keyword) ? equalityKey(k) : text);
    const prev = byId.get(id);
    if (prev) prev[2] = v;
    else byId.set(id, [text, k, v]);
  }
  return EdnMap.fromKeyed(byId.values());
}

/** A set from members; of members that are `=`, the first is kept. */
export function ednSet(members: Iterable<EdnValue>): EdnSet {
  const keys = new TextKeys();
  const byId = new Map<TextKey, [string, EdnValue]>();
  for (const v of members) {
    const text = emit(v);
    const id = keys.key(typeof v === 'object' && v !== null && !(v instanceof Keyword) ? equalityKey(v) : text);
    if (!byId.has(id)) byId.set(id, [text, v]);
  }
  return EdnSet.fromKeyed(byId.values());
}

/** A vector (a frozen array). */
export function ednVector(items: Iterable<EdnValue>): readonly EdnValue[] {
  return Object.freeze([...items]);
}

/** A list. */
export function ednList(items: Iterable<EdnValue>): EdnList {
  return new EdnList([...items]);
}

/** A uuid from text, validated as 8-4-4-4-12 hex (any case) and stored in lower case. */
export function uuid(text: string): Uuid {
  if (!UUID_TEXT.test(text)) {
    throw new TikError('edn/malformed', `"${text}" is not a uuid of the form 8-4-4-4-12 hex digits`, {
      hint: 'a uuid looks like 018f2f6e-7c1a-7000-8000-000000000000',
    });
  }
  return new Uuid(text.toLowerCase());
}

/**
 * Look a key up in a map: `ednGet(m, 'event/type')` or `ednGet(m, ':event/type')` for a keyword,
 * or any EDN value as the key. `undefined` if `m` is not a map or lacks the key.
 */
export function ednGet(m: EdnValue | undefined, key: string | EdnValue): EdnValue | undefined {
  if (!(m instanceof EdnMap)) return undefined;
  if (typeof key === 'string') return m.get(Keyword.of(key));
  if (key instanceof Keyword) return m.get(key);
  return m.getByText(emit(key));
}

/** Follow a path of keys through nested maps (`ednGetIn(ev, ['event/body', 'fact/path'])`). */
export function ednGetIn(m: EdnValue | undefined, path: readonly (string | EdnValue)[]): EdnValue | undefined {
  let cur: EdnValue | undefined = m;
  for (const k of path) {
    cur = ednGet(cur, k);
    if (cur === undefined) return undefined;
  }
  return cur;
}
