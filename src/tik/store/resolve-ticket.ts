/**
 * Ticket ids may be given as unique prefixes (tik-model.md §10). A prefix is matched
 * case-insensitively against the store's ticket uuids; an exact id always wins.
 */
import { TikError } from '../errors.js';
import type { EventStore } from './store.js';

const PREFIX = /^[0-9a-fA-F-]+$/;
/** How many candidates an ambiguity error lists before eliding. */
const SHOWN = 10;

/** Resolves `prefix` to one ticket uuid of `store`, or throws `ticket/unknown` / `ticket/ambiguous`. */
export async function resolveTicket(store: Pick<EventStore, 'ticketIds'>, prefix: string): Promise<string> {
  const p = typeof prefix === 'string' ? prefix.trim().toLowerCase() : '';
  if (p === '' || !PREFIX.test(p)) {
    throw new TikError('ticket/bad-prefix', `ticket ${JSON.stringify(prefix)} is not a uuid or a hex prefix of one`, {
      where: 'ticket',
      hint: 'give a ticket id or its first few characters, e.g. 018f2f6e',
    });
  }
  const ids = await store.ticketIds();
  if (ids.includes(p)) return p;
  const hits = ids.filter((id) => id.startsWith(p));
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) {
    throw new TikError('ticket/unknown', `no ticket matches ${JSON.stringify(prefix)}`, {
      where: 'ticket',
      hint: ids.length === 0 ? 'the store has no tickets yet; create one with `tik new <process>`' : 'list tickets with `tik ls --all`',
    });
  }
  const shown = hits.slice(0, SHOWN).join(', ');
  const more = hits.length > SHOWN ? ` and ${hits.length - SHOWN} more` : '';
  throw new TikError('ticket/ambiguous', `ticket prefix ${JSON.stringify(prefix)} matches ${hits.length} tickets: ${shown}${more}`, {
    where: 'ticket',
    hint: 'give more characters of the id',
  });
}
