import type { SshPrivateKey } from '../../core/sshsig.js';
import { ednMap } from '../edn/index.js';
import { Keyword, Uuid, type EdnMap, type EdnValue, type Instant } from '../edn/value.js';
import { heads, mintEvent, type TikEvent } from '../kernel/index.js';
import { admitEventBytes } from '../store/admission/index.js';
import type { EventStore } from '../store/store.js';
import type { WriterClock } from './writer-clock.js';

/** One event an operation wants to write: its type and body; the envelope is filled in here. */
export interface Intent {
  readonly type: string;
  /** The body, or a function of the event's `:at` (a comment's path names its own instant). */
  readonly body: EdnMap | ((at: Instant) => EdnMap | Promise<EdnMap>);
}

/**
 * A signing identity: the key signs an event only when the event's actor is `actor` — a replica
 * never signs as anyone but itself, so a client's write through a server stays unsigned (or is
 * signed by the client, before it arrives).
 */
export interface Signer {
  readonly actor: string;
  readonly key: SshPrivateKey;
}

/**
 * Mint and append a chain of events to a ticket. The first event's parents are the ticket's
 * current heads; each later one names the previous as its parent ("one chained assert each",
 * §10). Instants come from the writer clock and are never earlier than a parent's (§2.5).
 * Everything is minted (and so validated) before the first byte is written: a bad intent writes
 * nothing. Bytes go through the store's own `append` (its admission checks apply).
 */
export async function appendChain(
  w: { readonly store: EventStore; readonly clock: WriterClock; readonly actor: string; readonly signer?: Signer | undefined },
  ticket: string,
  existing: readonly TikEvent[],
  intents: readonly Intent[],
  /** Runs after every event is minted and before the first is written (e.g. archive a definition). */
  beforeWrite?: () => Promise<void>,
): Promise<TikEvent[]> {
  const byId = new Map(existing.map((e) => [e.id, e] as const));
  let parents = heads(existing);
  let floor: Instant | undefined;
  for (const p of parents) {
    const at = byId.get(p)?.at;
    if (at && (floor === undefined || at.ms > floor.ms)) floor = at;
  }
  const minted: { event: TikEvent; text: string }[] = [];
  for (const intent of intents) {
    const at = w.clock.next(floor);
    const body = typeof intent.body === 'function' ? await intent.body(at) : intent.body;
    const m = mintEvent({ ticket: new Uuid(ticket), type: Keyword.of(intent.type), actor: w.actor, at, parents, body });
    minted.push(m);
    parents = [m.event.id];
    floor = at;
  }
  // the same admission a sync receiver applies (size limits included): nothing written here can
  // later fail to replicate
  const admitted = minted.map((m) => ({ ...m, bytes: Buffer.from(m.text, 'utf8') }));
  for (const m of admitted) admitEventBytes(ticket, m.event.id, m.bytes);
  if (beforeWrite) await beforeWrite();
  const key = w.signer !== undefined && w.signer.actor === w.actor ? w.signer.key : undefined;
  // the signer (and the trust ladder it belongs to) is loaded only by a run that signs, before the first write
  const signEvent = key ? (await import('../verify/sign-event.js')).signEvent : undefined;
  for (const m of admitted) {
    await w.store.append(ticket, m.event.id, m.bytes);
    if (key && signEvent) await signEvent(w.store, ticket, m.event.id, key);
  }
  return minted.map((m) => m.event);
}

/** Build a body map from keyword-named entries, skipping undefined values. */
export function body(entries: Record<string, EdnValue | undefined>): EdnMap {
  return ednMap(
    Object.entries(entries)
      .filter((e): e is [string, EdnValue] => e[1] !== undefined)
      .map(([k, v]) => [Keyword.of(k), v] as const),
  );
}
