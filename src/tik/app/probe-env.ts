import { formatInstant } from '../edn/instant-text.js';
import { prStr } from '../edn/pr-str.js';
import { Instant, Keyword, Uuid, type EdnValue } from '../edn/value.js';
import { factStatusByKey, type TicketState } from '../kernel/index.js';

/**
 * The environment a probe sees besides `TIK_TICKET` and `TIK_REPO` (upstream's `fact-env`): each
 * PRESENT fact of the ticket as `TIK_FACT_<PATH>`, so that one repository holding many subjects
 * (a package, a tenant per ticket) can tell which one this run is about. A retracted, disputed or
 * conflicted fact is not exported: the environment must not answer what the log does not.
 */

/** `[:candidate :repo]` → `TIK_FACT_CANDIDATE__REPO`: segments joined by `__`, upper-cased, anything outside [A-Z0-9_] → `_`. */
export function factEnvName(path: readonly EdnValue[]): string {
  const segment = (s: EdnValue): string => (s instanceof Keyword ? s.text : typeof s === 'string' ? s : prStr(s).replace(/^:/, ''));
  return `TIK_FACT_${path.map(segment).join('__').toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/** A value as a shell wants it: a keyword without its colon, a string as is, an instant as ISO text, anything else as EDN. */
export function factEnvValue(v: EdnValue): string {
  if (v instanceof Keyword) return v.text;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Uuid) return v.text;
  if (v instanceof Instant) return formatInstant(v.ms);
  return prStr(v);
}

export interface FactEnv {
  readonly env: Readonly<Record<string, string>>;
  /** Names two or more paths map to (`[:a-b]` and `[:a_b]` both give `TIK_FACT_A_B`): exported for neither. */
  readonly collisions: readonly { readonly name: string; readonly paths: readonly string[] }[];
  /** Paths whose value holds a NUL character, which no environment variable can carry: not exported. */
  readonly unexportable: readonly string[];
}

/**
 * The present facts as variables. A name two paths sanitise to is dropped for both rather than
 * given to an arbitrary winner: a probe reading the wrong subject's value could not notice, while
 * a missing variable shows on the first run.
 */
export function factEnv(state: TicketState): FactEnv {
  const byName = new Map<string, { path: string; value: string }[]>();
  const unexportable: string[] = [];
  for (const [key, entry] of state.facts) {
    const s = factStatusByKey(state, key);
    if (s.status !== 'present') continue;
    const name = factEnvName(entry.path);
    const value = factEnvValue(s.value);
    if (value.includes('\0')) {
      // a synced fact may hold one (EDN allows "\u0000"); spawning with it would fail the whole run
      unexportable.push(prStr([...entry.path]));
      continue;
    }
    const list = byName.get(name) ?? [];
    list.push({ path: prStr([...entry.path]), value });
    byName.set(name, list);
  }
  const env: Record<string, string> = {};
  const collisions: { name: string; paths: string[] }[] = [];
  for (const name of [...byName.keys()].sort()) {
    const list = byName.get(name)!;
    if (list.length === 1) env[name] = list[0]!.value;
    else collisions.push({ name, paths: list.map((x) => x.path).sort() });
  }
  return { env, collisions, unexportable: unexportable.sort() };
}
