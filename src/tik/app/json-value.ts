import { emit } from '../edn/index.js';
import { formatInstant } from '../edn/instant-text.js';
import { EdnList, EdnSymbol, Instant, Keyword, Uuid, isMap, isSet, isVector, type EdnValue } from '../edn/value.js';

/** JSON as our `--json` outputs carry it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * EDN data → JSON for `--json` renderings (ADR 0016: data is the contract). Keywords become their
 * printed text (`":triaged"`), instants ISO text, uuids their text, integers numbers (strings past
 * 2^53), sets sorted arrays (by canonical text), vectors and lists arrays. Map keys that are
 * keywords become field names without the colon (`:fact/path` → `"fact/path"`); other keys use
 * their canonical text.
 */
export function ednToJson(v: EdnValue): Json {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (v instanceof Keyword) return v.toString();
  if (v instanceof EdnSymbol) return v.text;
  if (v instanceof Uuid) return v.text;
  if (v instanceof Instant) return formatInstant(v.ms);
  if (v instanceof EdnList) return v.items.map(ednToJson);
  if (isVector(v)) return v.map(ednToJson);
  if (isSet(v)) return [...v.textEntries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, x]) => ednToJson(x));
  if (isMap(v)) {
    const o: { [key: string]: Json } = {};
    for (const [text, key, value] of [...v.textEntries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const name = key instanceof Keyword ? key.text : typeof key === 'string' ? key : text;
      o[name] = ednToJson(value);
    }
    return o;
  }
  return emit(v as EdnValue);
}

/** ISO text of an instant (Java `Instant.toString`). */
export const instantText = (at: Instant): string => formatInstant(at.ms);

/** A sorted array of stage keyword strings from a set of them. */
export const sortedStages = (s: Iterable<string>): string[] => [...s].sort();
