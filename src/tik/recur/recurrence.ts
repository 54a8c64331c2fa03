import { readEdn } from '../edn/index.js';
import { isMap, Keyword, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import { parseCadence, type Cadence } from './period-label.js';

/** One configured recurrence: open a ticket of `process` every period of `cadence`, as `actor`. */
export interface Recurrence {
  readonly process: string;
  readonly cadence: Cadence;
  /** Must be the same on every replica: it is part of the minted events' bytes. */
  readonly actor: string;
  readonly title?: string;
}

const PROCESS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function processName(v: string, where: string): string {
  if (!PROCESS_NAME.test(v)) throw new TikError('recur/bad-config', `process ${JSON.stringify(v)} is not a process name`, { where, hint: 'the stem of processes/<name>.edn, e.g. :track' });
  return v;
}

const text = (v: EdnValue | undefined): string | undefined => (typeof v === 'string' ? v : v instanceof Keyword ? v.toString().slice(1) : undefined);

/**
 * Reads `recurrences.edn`: a vector of maps
 * `{:process :track :cadence :weekly :actor "tik-backend" :title "…"}` (`:title` optional;
 * `:actor` defaults to `defaultActor`). Throws `recur/bad-config` naming the entry.
 */
export function parseRecurrences(source: string, file: string, defaultActor: string): Recurrence[] {
  const v = readEdn(source, file);
  if (!Array.isArray(v)) throw new TikError('recur/bad-config', `${file} must be a vector of recurrence maps`, { where: file, hint: '[{:process :track :cadence :weekly :actor "tik-backend"}]' });
  return (v as readonly EdnValue[]).map((entry, i) => {
    const where = `${file} entry ${i}`;
    if (!isMap(entry)) throw new TikError('recur/bad-config', `${where} is not a map`, { where, hint: '{:process :track :cadence :weekly}' });
    const get = (k: string): EdnValue | undefined => entry.get(Keyword.of(k));
    const proc = text(get('process'));
    const cadence = text(get('cadence'));
    if (proc === undefined || cadence === undefined) throw new TikError('recur/bad-config', `${where} needs :process and :cadence`, { where, hint: '{:process :track :cadence :weekly}' });
    const actor = get('actor');
    const title = get('title');
    if (actor !== undefined && (typeof actor !== 'string' || actor === '')) throw new TikError('recur/bad-config', `${where}: :actor must be a non-empty string`, { where });
    if (title !== undefined && typeof title !== 'string') throw new TikError('recur/bad-config', `${where}: :title must be a string`, { where });
    return Object.freeze({ process: processName(proc, where), cadence: parseCadence(cadence, where), actor: (actor as string | undefined) ?? defaultActor, ...(title !== undefined ? { title: title as string } : {}) });
  });
}

/** Reads a `--recur PROCESS=CADENCE` flag. */
export function parseRecurFlag(flag: string, actor: string): Recurrence {
  const m = /^([^=]+)=(.+)$/.exec(flag);
  if (!m) throw new TikError('cli/usage', `--recur must be PROCESS=CADENCE, got ${JSON.stringify(flag)}`, { where: '--recur', hint: 'e.g. --recur track=weekly' });
  let cadence: Cadence;
  try {
    cadence = parseCadence(m[2]!, '--recur');
  } catch (e) {
    throw new TikError('cli/usage', `--recur ${flag}: ${(e as TikError).message}`, { where: '--recur', hint: (e as TikError).hint ?? 'e.g. --recur track=weekly' });
  }
  return Object.freeze({ process: processName(m[1]!, '--recur'), cadence, actor });
}
