import { Keyword } from '../edn/value.js';
import type { TikEvent } from '../kernel/index.js';

/** What a ticket pins: the process name (from the create) and hash (from the last create or migrate). */
export interface Pin {
  readonly name: string | undefined;
  readonly hash: string | undefined;
}

const CREATE = Keyword.of('ticket/create');
const MIGRATE = Keyword.of('process/migrate');
const later = (a: TikEvent, b: TikEvent | undefined): boolean => b === undefined || a.at.ms > b.at.ms || (a.at.ms === b.at.ms && a.id > b.id);

/**
 * The pin as the reducer would leave it (§4.2: the last create or migrate in fold order), found
 * without folding the whole log: a store-wide read resolves thousands of pins.
 */
export function pinOf(events: readonly TikEvent[]): Pin {
  let create: TikEvent | undefined;
  let last: TikEvent | undefined;
  for (const e of events) {
    if (e.type === CREATE) {
      if (later(e, create)) create = e;
      if (later(e, last)) last = e;
    } else if (e.type === MIGRATE && later(e, last)) {
      last = e;
    }
  }
  const name = create?.body.get(Keyword.of('ticket/process'));
  const hash = last === undefined ? undefined : last.type === CREATE ? last.body.get(Keyword.of('ticket/process-hash')) : last.body.get(Keyword.of('process/hash'));
  return { name: name instanceof Keyword ? name.text : undefined, hash: typeof hash === 'string' ? hash : undefined };
}
