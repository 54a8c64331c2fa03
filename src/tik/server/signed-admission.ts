import { isCodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import { parseEvent, type TikEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import type { Bundle, BundleEvent } from '../sync/bundle.js';
import type { ReceiveFilter } from '../sync/receive-bundle.js';
import type { AllowedSigner } from '../../core/sshsig.js';
import { pinnedHash } from '../store/admission/index.js';
import { sha256Id } from '../store/store-names.js';
import { EVENT_NAMESPACE, PROCESS_NAMESPACE } from '../verify/index.js';
import { checkSignature } from '../verify/check-signature.js';
import { keepEvents, sidecarEvent } from './keep-events.js';

/** An event a `signed` replica refused, and why. */
export interface RefusedEvent {
  readonly ticket: string;
  readonly id: string;
  readonly code: 'auth/unsigned' | 'auth/bad-signature';
  readonly message: string;
}

/**
 * Why `e` may not enter a `signed` replica, or undefined when it may: it must carry (in the
 * bundle, or already stored beside it) a valid `tik-event` signature by a key the replica's
 * `actors` register lists for the event's own `:event/actor`.
 */
async function refusal(store: EventStore, e: BundleEvent, actor: string, sent: readonly Uint8Array[], actors: readonly AllowedSigner[]): Promise<RefusedEvent | undefined> {
  const candidates = [...sent];
  for (const name of await store.sidecarNames(e.ticket)) {
    if (!name.startsWith(`${e.id}.sig.`)) continue;
    const bytes = await store.readSidecar(e.ticket, name);
    if (bytes !== undefined) candidates.push(bytes);
  }
  if (candidates.length === 0) return { ticket: e.ticket, id: e.id, code: 'auth/unsigned', message: `event ${e.id} of ticket ${e.ticket} (actor ${JSON.stringify(actor)}) carries no signature` };
  const reasons: string[] = [];
  for (const c of candidates) {
    const r = await checkSignature(c, e.bytes, EVENT_NAMESPACE, actor, actors);
    if (r.ok) return undefined;
    reasons.push(r.reason);
  }
  return { ticket: e.ticket, id: e.id, code: 'auth/bad-signature', message: `event ${e.id} of ticket ${e.ticket} is not signed by a key registered for its actor ${JSON.stringify(actor)}: ${reasons.join('; ')}` };
}

/**
 * Why a definition the bundle brings may not enter a `signed` replica, or undefined when it may:
 * it must carry (in the bundle, or already stored beside it) a valid `tik-process` publication
 * signature (`tik process sign`) by any key the replica's `actors` register lists. As upstream's
 * `verify` (ADR 0015), who may publish is the register, not a role: a definition is executable
 * governance, so one nobody registered vouches for must not decide stages here.
 */
async function definitionRefusal(store: EventStore, hash: string, text: string, sent: readonly Uint8Array[], actors: readonly AllowedSigner[]): Promise<{ code: RefusedEvent['code']; why: string } | undefined> {
  const candidates = [...sent];
  for (const name of await store.processSidecarNames(hash)) {
    if (!name.startsWith(`${hash}.sig.`)) continue;
    const bytes = await store.readProcessSidecar(hash, name);
    if (bytes !== undefined) candidates.push(bytes);
  }
  if (candidates.length === 0) return { code: 'auth/unsigned', why: 'carries no publication signature' };
  const bytes = Buffer.from(text, 'utf8');
  const reasons: string[] = [];
  for (const c of candidates) {
    const r = await checkSignature(c, bytes, PROCESS_NAMESPACE, undefined, actors);
    if (r.ok) return undefined;
    reasons.push(r.reason);
  }
  return { code: 'auth/bad-signature', why: `is not signed by a key in the actors register: ${reasons.join('; ')}` };
}

/**
 * The `signed` admission policy, for every bundle a `signed` replica receives: pushed to it
 * (`sync-routes`) or pulled by it from its peers (anti-entropy), through `receiveBundle`'s
 * `filter` (`signedFilter`). Events are judged by their signatures, not by who
 * relayed them, so a fleet can relay through replicas it does not trust: the returned bundle
 * keeps the events that are signed by their own actor's registered key (or already stored), with
 * the sidecars, blobs and definitions they name; every other event is refused and reported. A
 * definition the replica does not hold yet enters only with a publication signature by a
 * registered key (`definitionRefusal`); otherwise it is dropped and every new event pinning it
 * (a create or migrate) is refused, however well signed the event itself is. With
 * `whollyRefused: 'error'` (a push), a bundle whose every new event is refused is an error
 * (`auth/unsigned` / `auth/bad-signature`, 403); with `'report'` (a pull) it is only reported,
 * so a peer holding unsigned events is not a failing peer.
 * Malformed events are left for the bundle check that follows, which refuses them with its own code.
 */
export async function admitSigned(store: EventStore, bundle: Bundle, options: { readonly whollyRefused?: 'error' | 'report' } = {}): Promise<{ bundle: Bundle; refused: readonly RefusedEvent[] }> {
  const actors = await store.readActors();
  const sigs = new Map<string, Uint8Array[]>();
  for (const s of bundle.sidecars) {
    const id = sidecarEvent(s.name);
    if (!s.name.startsWith(`${id}.sig.`)) continue;
    const list = sigs.get(id) ?? [];
    list.push(s.bytes);
    sigs.set(id, list);
  }
  const defSigs = new Map<string, Uint8Array[]>();
  for (const s of bundle.processSidecars ?? []) {
    const hash = s.name.slice(0, Math.max(0, s.name.indexOf('.')));
    const list = defSigs.get(hash) ?? [];
    list.push(s.bytes);
    defSigs.set(hash, list);
  }
  // definitions entering here: each must be published by a registered key
  const badDefinitions = new Map<string, { code: RefusedEvent['code']; why: string }>();
  for (const text of bundle.processes) {
    const hash = sha256Id(Buffer.from(text, 'utf8'));
    if (badDefinitions.has(hash) || (await store.readProcessByHash(hash)) !== undefined) continue;
    const why = await definitionRefusal(store, hash, text, defSigs.get(hash) ?? [], actors);
    if (why) badDefinitions.set(hash, why);
  }
  const kept: BundleEvent[] = [];
  const keptParsed: TikEvent[] = [];
  const refused: RefusedEvent[] = [];
  const byDefinition = new Set<string>();
  let fresh = 0;
  for (const e of bundle.events) {
    if (await store.hasEvent(e.ticket, e.id)) {
      kept.push(e); // admitted when it first arrived
      continue;
    }
    fresh++;
    let ev: TikEvent;
    try {
      ev = parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id, `tickets/${e.ticket}/events/${e.id}.edn`);
    } catch (err) {
      if (!isCodedError(err)) throw err;
      kept.push(e);
      continue;
    }
    const pin = pinnedHash(ev);
    const badPin = pin !== undefined ? badDefinitions.get(pin) : undefined;
    const why = badPin
      ? { ticket: e.ticket, id: e.id, code: badPin.code, message: `event ${e.id} of ticket ${e.ticket} pins the definition ${pin}, which ${badPin.why}` }
      : await refusal(store, e, ev.actor, sigs.get(e.id) ?? [], actors);
    if (badPin) byDefinition.add(e.id);
    if (why) refused.push(why);
    else {
      kept.push(e);
      keptParsed.push(ev);
    }
  }
  if (refused.length > 0 && refused.length === fresh && (options.whollyRefused ?? 'error') === 'error') {
    const first = refused[0]!;
    throw new TikError(first.code, refused.length === 1 ? first.message : `${first.message} (and ${refused.length - 1} more event(s) refused)`, {
      where: `tickets/${first.ticket}/events/${first.id}.edn`,
      hint: byDefinition.has(first.id)
        ? "this replica admits only definitions published by a registered key: sign it with tik process sign NAME --key KEY (a key in this replica's actors register) before pushing"
        : first.code === 'auth/unsigned'
          ? 'this replica admits only signed events: sign with TIK_KEY (or tik sign) before pushing'
          : "register the actor's public key in this replica's actors register (tik actor add NAME KEY.pub), or sign with that actor's key",
    });
  }
  if (refused.length === 0 && badDefinitions.size === 0) return { bundle, refused };
  return { bundle: keepEvents(bundle, kept, keptParsed, new Set(refused.map((r) => r.id))), refused };
}

/** The `signed` policy as a receive filter over `store` (`receiveBundle`'s `filter`). */
export function signedFilter(store: EventStore, whollyRefused: 'error' | 'report'): ReceiveFilter {
  return (bundle) => admitSigned(store, bundle, { whollyRefused });
}
