import { isCodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import { parseEvent, type TikEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import type { BundleEvent } from '../sync/bundle.js';
import type { ReceiveFilter, ReceiveRefusal } from '../sync/receive-bundle.js';
import type { TokenGrant } from './authorship.js';
import { keepEvents, sidecarEvent } from './keep-events.js';

const actorOf = (e: BundleEvent): TikEvent | undefined => {
  try {
    return parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id, `tickets/${e.ticket}/events/${e.id}.edn`);
  } catch (err) {
    if (!isCodedError(err)) throw err;
    return undefined; // malformed: left for the bundle check, which refuses it with its own code
  }
};

/**
 * A push by a person's token (not a peer's) under `--tokens`: the same rule as the write API,
 * event by event — every new event must name an actor `grant` may write as, and every sidecar
 * (a signature, a witness) must belong to such an event, sent along or already stored. The rest
 * is refused (`auth/forbidden`, reported in the push summary's `refused`, never stored); a push
 * whose every new item is refused is a 403. Events already stored are idempotent and pass.
 */
export function actorFilter(store: EventStore, grant: TokenGrant): ReceiveFilter {
  const may = new Set(grant.actors);
  const forbidden = (ticket: string, id: string, what: string, actor: string): ReceiveRefusal => ({
    ticket,
    id,
    code: 'auth/forbidden',
    message: `principal ${grant.principal} may not push ${what} as ${JSON.stringify(actor)}`,
  });
  return async (bundle) => {
    const kept: BundleEvent[] = [];
    const keptParsed: TikEvent[] = [];
    const refused: ReceiveRefusal[] = [];
    const refusedEvents = new Set<string>();
    const actorById = new Map<string, string>();
    let fresh = 0;
    for (const e of bundle.events) {
      const ev = actorOf(e);
      if (ev) actorById.set(e.id, ev.actor);
      if (await store.hasEvent(e.ticket, e.id)) {
        kept.push(e);
        continue;
      }
      fresh++;
      if (ev === undefined || may.has(ev.actor)) {
        kept.push(e);
        if (ev) keptParsed.push(ev);
      } else {
        refusedEvents.add(e.id);
        refused.push(forbidden(e.ticket, e.id, `event ${e.id} of ticket ${e.ticket}`, ev.actor));
      }
    }
    const refusedSidecars = new Set<string>();
    for (const s of bundle.sidecars) {
      const id = sidecarEvent(s.name);
      let actor = actorById.get(id);
      if (actor === undefined) {
        const bytes = await store.eventBytes(s.ticket, id);
        const ev = bytes ? actorOf({ ticket: s.ticket, id, bytes }) : undefined;
        if (ev === undefined) continue; // an orphan or a broken event: the bundle check refuses it
        actor = ev.actor;
      }
      fresh++;
      if (!may.has(actor)) {
        refusedSidecars.add(`${s.ticket}/${s.name}`);
        refused.push(forbidden(s.ticket, id, `sidecar ${s.name} of an event`, actor));
      }
    }
    if (refused.length > 0 && refused.length === fresh) {
      const first = refused[0]!;
      throw new TikError('auth/forbidden', refused.length === 1 ? first.message : `${first.message} (and ${refused.length - 1} more refused)`, {
        where: `tickets/${first.ticket}/events/${first.id}.edn`,
        hint: grant.actors.length > 0 ? `this token may push events of: ${grant.actors.join(', ')}; a peer replica needs a token with "sync": true` : 'this token may not push',
      });
    }
    if (refused.length === 0) return { bundle, refused };
    return { bundle: keepEvents(bundle, kept, keptParsed, refusedEvents, refusedSidecars), refused };
  };
}
