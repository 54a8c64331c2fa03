/**
 * The diff lens (tik-model.md §7.3): derive over the first `max(1, n − k)` ordered events and over
 * all of them, both at `now`, and report gained and lost stages and changed facts.
 */
import type { Instant } from '../edn/value.js';
import { emit } from './edn-access.js';
import { foldOrder } from './dag.js';
import type { TikEvent } from './event.js';
import type { ProcessDef, Roles } from './process.js';
import { factMap } from './reduce.js';
import { derive } from './stage.js';

export interface DiffResult {
  /** `k`, the number of trailing events compared. */
  readonly window: number;
  readonly gained: readonly string[];
  readonly lost: readonly string[];
  /** Changed present facts: canonical path text, canonical value text before and after (or null). */
  readonly facts: readonly { readonly path: string; readonly before: string | null; readonly after: string | null }[];
}

export function diff(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles, k: number): DiffResult {
  const ordered = foldOrder(events);
  const m = Math.max(1, ordered.length - k);
  const before = derive(def, ordered.slice(0, m), now, roles);
  const after = derive(def, ordered, now, roles);
  const gained = [...after.reached].filter((s) => !before.reached.has(s)).sort();
  const lost = [...before.reached].filter((s) => !after.reached.has(s)).sort();
  const fb = factMap(before.state);
  const fa = factMap(after.state);
  const keys = [...new Set([...fb.keys(), ...fa.keys()])].sort();
  const facts = [];
  for (const key of keys) {
    const b = fb.get(key);
    const a = fa.get(key);
    const bt = b ? emit(b.value) : null;
    const at = a ? emit(a.value) : null;
    if (bt !== at) facts.push({ path: key, before: bt, after: at });
  }
  return { window: k, gained, lost, facts };
}
