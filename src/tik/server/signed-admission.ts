import { TikError } from '../errors.js';
import { parseEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import type { Bundle } from '../sync/bundle.js';
import { EVENT_NAMESPACE } from '../verify/index.js';
import { checkSignature } from '../verify/check-signature.js';

/**
 * The `signed` admission policy on a push: every event the bundle would add must carry (in the
 * bundle, or already stored beside it) a valid `tik-event` signature by a key the replica's
 * `actors` register lists for the event's own `:event/actor`. Who relayed the bundle does not
 * matter — events are judged by their signatures — so a fleet can relay through replicas it does
 * not trust. One event without such a signature refuses the whole push, before anything is written.
 */
export async function checkSignedBundle(store: EventStore, bundle: Bundle): Promise<void> {
  const actors = await store.readActors();
  const sidecarsOf = new Map<string, { name: string; bytes: Uint8Array }[]>();
  for (const s of bundle.sidecars) {
    const id = s.name.slice(0, s.name.indexOf('.'));
    if (!s.name.startsWith(`${id}.sig.`)) continue;
    const list = sidecarsOf.get(id) ?? [];
    list.push(s);
    sidecarsOf.set(id, list);
  }
  for (const e of bundle.events) {
    if (await store.hasEvent(e.ticket, e.id)) continue; // admitted when it first arrived
    let actor: string;
    try {
      actor = parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id, `tickets/${e.ticket}/events/${e.id}.edn`).actor;
    } catch {
      continue; // the bundle check that follows refuses a malformed event with its own code
    }
    const candidates = [...(sidecarsOf.get(e.id) ?? [])];
    for (const name of await store.sidecarNames(e.ticket)) {
      if (!name.startsWith(`${e.id}.sig.`)) continue;
      const bytes = await store.readSidecar(e.ticket, name);
      if (bytes !== undefined) candidates.push({ name, bytes });
    }
    if (candidates.length === 0) {
      throw new TikError('auth/unsigned', `event ${e.id} of ticket ${e.ticket} (actor ${JSON.stringify(actor)}) carries no signature`, {
        where: `tickets/${e.ticket}/events/${e.id}.edn`,
        hint: 'this replica admits only signed events: sign with TIK_KEY (or tik sign) before pushing',
      });
    }
    const reasons: string[] = [];
    let ok = false;
    for (const c of candidates) {
      const r = await checkSignature(c.bytes, e.bytes, EVENT_NAMESPACE, actor, actors);
      if (r.ok) {
        ok = true;
        break;
      }
      reasons.push(r.reason);
    }
    if (!ok) {
      throw new TikError('auth/bad-signature', `event ${e.id} of ticket ${e.ticket} is not signed by a key registered for its actor ${JSON.stringify(actor)}: ${reasons.join('; ')}`, {
        where: `tickets/${e.ticket}/events/${e.id}.edn`,
        hint: "register the actor's public key in this replica's actors register (tik actor add NAME KEY.pub), or sign with that actor's key",
      });
    }
  }
}
