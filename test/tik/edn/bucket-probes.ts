/**
 * V8 hashes a string of more than 16,383 units by its length alone. JS cannot see its bucket work,
 * so tests count it from outside: while `f` runs, each Map or Set operation on a string key that
 * long adds (keys of its length already in that table) × (its length), the characters the
 * comparisons may read. Tables keyed by long texts through their digest do none of it.
 */
export const V8_FULL_HASH = 16_383;

export function withBucketProbes<T>(f: () => T): { value: T | Error; probes: number } {
  const M = Map.prototype;
  const S = Set.prototype;
  const orig = { mget: M.get, mhas: M.has, mset: M.set, mdel: M.delete, mclear: M.clear, shas: S.has, sadd: S.add, sdel: S.delete, sclear: S.clear };
  const counts = new WeakMap<object, Record<number, number>>();
  let probes = 0;
  /** Count the probes of an operation on `key` in `table`; `change` is +1 (adds), -1 (deletes) or 0. */
  const probe = (table: object, key: unknown, present: () => boolean, change: number): void => {
    if (typeof key !== 'string' || key.length <= V8_FULL_HASH) return;
    let c = counts.get(table);
    if (c === undefined) counts.set(table, (c = {}));
    const same = c[key.length] ?? 0;
    probes += same * key.length;
    if (change !== 0 && present() === (change < 0)) c[key.length] = same + change;
  };
  const patched = {
    get(this: Map<unknown, unknown>, k: unknown) { probe(this, k, () => true, 0); return orig.mget.call(this, k); },
    has(this: Map<unknown, unknown>, k: unknown) { probe(this, k, () => true, 0); return orig.mhas.call(this, k); },
    set(this: Map<unknown, unknown>, k: unknown, v: unknown) { probe(this, k, () => orig.mhas.call(this, k), 1); return orig.mset.call(this, k, v); },
    delete(this: Map<unknown, unknown>, k: unknown) { probe(this, k, () => orig.mhas.call(this, k), -1); return orig.mdel.call(this, k); },
    clear(this: Map<unknown, unknown>) { counts.delete(this); orig.mclear.call(this); },
    shas(this: Set<unknown>, k: unknown) { probe(this, k, () => true, 0); return orig.shas.call(this, k); },
    add(this: Set<unknown>, k: unknown) { probe(this, k, () => orig.shas.call(this, k), 1); return orig.sadd.call(this, k); },
    sdel(this: Set<unknown>, k: unknown) { probe(this, k, () => orig.shas.call(this, k), -1); return orig.sdel.call(this, k); },
    sclear(this: Set<unknown>) { counts.delete(this); orig.sclear.call(this); },
  };
  Object.assign(M, { get: patched.get, has: patched.has, set: patched.set, delete: patched.delete, clear: patched.clear });
  Object.assign(S, { has: patched.shas, add: patched.add, delete: patched.sdel, clear: patched.sclear });
  try {
    let value: T | Error;
    try {
      value = f();
    } catch (e) {
      value = e as Error;
    }
    return { value, probes };
  } finally {
    Object.assign(M, { get: orig.mget, has: orig.mhas, set: orig.mset, delete: orig.mdel, clear: orig.mclear });
    Object.assign(S, { has: orig.shas, add: orig.sadd, delete: orig.sdel, clear: orig.sclear });
  }
}

