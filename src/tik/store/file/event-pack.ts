/**
 * Event packs (tik-model.md §1.9, `tik pack`): `events.pack` is canonical event bytes
 * concatenated in id order; `events.pack.idx` is Clojure `pr-str` of
 * `{:pack "sha256-<whole pack>" :entries [{:id … :offset … :length …} …]}` (not canonical: it
 * may hold commas, which the EDN reader treats as whitespace). Loose and packed events merge on
 * read; a slice is returned as stored, so verify's L0 checks that it hashes to its id.
 */
import { EdnMap, isMap, isVector, kw, readEdn, type EdnValue } from '../../edn/index.js';
import { TikError } from '../../errors.js';
import { CONTENT_ID, sha256Id } from '../store-names.js';

export interface PackEntry {
  readonly id: string;
  readonly offset: number;
  readonly length: number;
}

export interface PackIndex {
  /** `sha256-<hex>` of the whole pack file. */
  readonly pack: string;
  readonly entries: readonly PackEntry[];
}

const K_PACK = kw('pack');
const K_ENTRIES = kw('entries');
const K_ID = kw('id');
const K_OFFSET = kw('offset');
const K_LENGTH = kw('length');

function bad(where: string, message: string): TikError {
  return new TikError('store/bad-pack', `${where}: ${message}`, {
    where,
    hint: 'the pack index is written by `tik pack`; restore the ticket\'s events from a replica, or remove the pack and its index if the loose events are all present',
  });
}

function nonNegative(v: EdnValue | undefined): number | undefined {
  return typeof v === 'bigint' && v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined;
}

/** Parses an index file's text. Throws `store/bad-pack` naming the file. */
export function parsePackIndex(text: string, where: string): PackIndex {
  let v: EdnValue;
  try {
    v = readEdn(text, where);
  } catch (e) {
    throw bad(where, `does not parse: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isMap(v)) throw bad(where, 'is not a map');
  const pack = v.get(K_PACK);
  const entries = v.get(K_ENTRIES);
  if (typeof pack !== 'string' || !CONTENT_ID.test(pack)) throw bad(where, ':pack is not a sha256-<hex> string');
  if (!isVector(entries)) throw bad(where, ':entries is not a vector');
  const out: PackEntry[] = entries.map((e, i) => {
    if (!(e instanceof EdnMap)) throw bad(where, `entry ${i} is not a map`);
    const id = e.get(K_ID);
    const offset = nonNegative(e.get(K_OFFSET));
    const length = nonNegative(e.get(K_LENGTH));
    if (typeof id !== 'string' || !CONTENT_ID.test(id)) throw bad(where, `entry ${i} has no sha256-<hex> :id`);
    if (offset === undefined || length === undefined) throw bad(where, `entry ${i} (${id}) needs non-negative integer :offset and :length`);
    return Object.freeze({ id, offset, length });
  });
  return Object.freeze({ pack, entries: Object.freeze(out) });
}

/** Slices a pack by its index: id → bytes. Throws `store/bad-pack` for an entry outside the pack. */
export function slicePack(pack: Uint8Array, index: PackIndex, where: string): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const e of index.entries) {
    if (e.offset + e.length > pack.length) throw bad(where, `entry ${e.id} runs past the end of the pack (${pack.length} bytes)`);
    if (!out.has(e.id)) out.set(e.id, pack.slice(e.offset, e.offset + e.length));
  }
  return out;
}

/**
 * Builds a pack and its index from events (what `tik pack` writes): bytes concatenated in id
 * order, the index in Clojure `pr-str` form.
 */
export function encodePack(events: ReadonlyArray<{ readonly id: string; readonly bytes: Uint8Array }>): { pack: Buffer; index: string } {
  const sorted = [...new Map(events.map((e) => [e.id, e])).values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let offset = 0;
  const entries: string[] = [];
  for (const e of sorted) {
    entries.push(`{:id "${e.id}", :offset ${offset}, :length ${e.bytes.length}}`);
    offset += e.bytes.length;
  }
  const pack = Buffer.concat(sorted.map((e) => Buffer.from(e.bytes)));
  return { pack, index: `{:pack "${sha256Id(pack)}", :entries [${entries.join(' ')}]}` };
}
