/**
 * Admission of a batch of records against a store (law T7): what a sync bundle, a fetch answer or
 * an imported ticket brings. Per record, `admit-record.ts`; in context:
 *
 * - an event is admitted only when every parent is stored or admitted earlier in the batch (a
 *   non-create event always has a parent, so its ticket's create is present by induction), and a
 *   create or migrate only when the definition it pins is archived or in the batch. Otherwise it
 *   is **deferred**: not stored, reported with its code (`admission/missing-parent`,
 *   `admission/unknown-definition`) so listings never meet an orphan; the sender still holds it
 *   and the next sync brings it again once its parents have arrived;
 * - a definition must be pinned by an event of the batch and hash to its pin;
 * - a blob must be named by an admitted `:artifact/attach` of its own ticket;
 * - a sidecar must belong to an event stored or admitted, and be a valid signature of it; a valid
 *   stored sidecar is never replaced by another unless both are valid (union, `admit-sidecar.ts`);
 * - a definition's publication signature must belong to a definition of the batch and be a valid
 *   `tik-process` signature of its bytes (the same union rule);
 * - a fetch answer may hold only what was asked for (`admission/unrequested`).
 *
 * Any refusal refuses the whole batch before anything is written.
 */
import { Keyword } from '../../edn/value.js';
import type { TikEvent } from '../../kernel/index.js';
import type { EventStore } from '../store.js';
import { CONTENT_ID, SIDECAR_NAME, sha256Id } from '../store-names.js';
import { admitEventBytes, admitProcessText, checkSize, refusal } from './admit-record.js';
import { admitSidecar, definitionSidecarProblem, replacesStored } from './admit-sidecar.js';
import { ADMISSION_LIMITS } from './limits.js';

export interface BatchEvent {
  readonly ticket: string;
  readonly id: string;
  readonly bytes: Uint8Array;
}
export interface BatchSidecar {
  readonly ticket: string;
  readonly name: string;
  readonly bytes: Uint8Array;
}
export interface BatchBlob {
  readonly ticket: string;
  readonly bytes: Uint8Array;
}
/** A definition's publication signature `<hash>.sig.<fpr16>`. */
export interface BatchProcessSidecar {
  readonly name: string;
  readonly bytes: Uint8Array;
}
/** What arrives: the shape of a sync bundle. */
export interface AdmissionBatch {
  readonly processes: readonly string[];
  readonly blobs: readonly BatchBlob[];
  readonly events: readonly BatchEvent[];
  readonly sidecars: readonly BatchSidecar[];
  readonly processSidecars?: readonly BatchProcessSidecar[];
}

/** An event held back, with why. */
export interface DeferredEvent {
  readonly ticket: string;
  readonly id: string;
  readonly code: string;
  readonly message: string;
}

/** What may be written, in this order: definitions, blobs, events (parents first), sidecars. */
export interface AdmittedBatch {
  readonly processes: readonly string[];
  readonly blobs: readonly BatchBlob[];
  readonly events: readonly (BatchEvent & { readonly event: TikEvent })[];
  readonly sidecars: readonly BatchSidecar[];
  /** Definition signatures to store (after the definitions), each naming its definition's hash. */
  readonly processSidecars: readonly (BatchProcessSidecar & { readonly hash: string })[];
  readonly deferred: readonly DeferredEvent[];
}

export interface AdmitOptions {
  /**
   * For a fetch answer: the ids asked for (events and sidecar items) and how a sidecar's item id
   * is computed. An event is allowed if asked for or if a sidecar asked for names it.
   */
  readonly requested?: { readonly ids: ReadonlySet<string>; readonly sidecarItemId: (ticket: string, name: string, bytes: Uint8Array) => string };
  /** More definitions that count as known (an import tree's own archive). */
  readonly knownProcess?: (hash: string) => Promise<boolean>;
}

const ARTIFACT_HASH = Keyword.of('artifact/hash');
const PROCESS_HASH = Keyword.of('ticket/process-hash');
const MIGRATE_HASH = Keyword.of('process/hash');

/** The definition hash an event pins (create or migrate), if any. */
export function pinnedHash(ev: TikEvent): string | undefined {
  const t = ev.type.text;
  const v = t === 'ticket/create' ? ev.body.get(PROCESS_HASH) : t === 'process/migrate' ? ev.body.get(MIGRATE_HASH) : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Orders events so a parent in the list comes before its children (iterative, cycle-free by hashing). */
function parentsFirst<E extends { readonly event: TikEvent }>(events: readonly E[]): E[] {
  const byId = new Map(events.map((e) => [e.event.id, e] as const));
  const sorted = [...events].sort((a, b) => a.event.at.ms - b.event.at.ms || (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0));
  const done = new Set<string>();
  const out: E[] = [];
  for (const first of sorted) {
    const stack: { e: E; i: number }[] = [{ e: first, i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (done.has(top.e.event.id)) {
        stack.pop();
        continue;
      }
      if (top.i < top.e.event.parents.length) {
        const p = byId.get(top.e.event.parents[top.i++]!);
        if (p && !done.has(p.event.id)) stack.push({ e: p, i: 0 });
        continue;
      }
      done.add(top.e.event.id);
      out.push(top.e);
      stack.pop();
    }
  }
  return out;
}

/** Checks a batch against `store`; throws the first refusal, returns what may be written. */
export async function admitBatch(store: EventStore, batch: AdmissionBatch, options: AdmitOptions = {}): Promise<AdmittedBatch> {
  // 1. every record on its own
  const parsed = new Map<string, BatchEvent & { readonly event: TikEvent }>();
  for (const e of batch.events) {
    if (parsed.has(e.id)) continue;
    parsed.set(e.id, { ...e, event: admitEventBytes(e.ticket, e.id, e.bytes) });
  }
  for (const s of batch.sidecars) {
    const where = `tickets/${s.ticket}/events/${s.name}`;
    checkSize('a sidecar', s.bytes.length, ADMISSION_LIMITS.sidecar, where);
    if (!SIDECAR_NAME.test(s.name)) throw refusal('bad-sidecar', `sidecar name ${JSON.stringify(s.name)} is not <id>.sig.<fpr16> or <id>.witness.<fpr16>`, where, 'the sender sent an unexpected file');
  }
  for (const b of batch.blobs) checkSize('a blob', b.bytes.length, ADMISSION_LIMITS.blob, `tickets/${b.ticket}/blobs`);

  // 2. a fetch answer holds only what was asked for
  if (options.requested !== undefined) {
    const { ids, sidecarItemId } = options.requested;
    const allowed = new Set<string>();
    for (const s of batch.sidecars) if (ids.has(sidecarItemId(s.ticket, s.name, s.bytes))) allowed.add(SIDECAR_NAME.exec(s.name)![1]!);
    for (const e of parsed.values()) {
      if (!ids.has(e.id) && !allowed.has(e.id)) {
        throw refusal('unrequested', `the fetch answer holds event ${e.id}, which was not asked for`, `tickets/${e.ticket}/events/${e.id}.edn`, 'a peer answers a fetch with the asked-for events (and the events of asked-for sidecars) only; this peer is misbehaving');
      }
    }
    for (const s of batch.sidecars) {
      const ev = SIDECAR_NAME.exec(s.name)![1]!;
      if (!ids.has(sidecarItemId(s.ticket, s.name, s.bytes)) && !parsed.has(ev)) {
        throw refusal('unrequested', `the fetch answer holds sidecar ${s.name}, which was not asked for`, `tickets/${s.ticket}/events/${s.name}`, 'a peer answers a fetch with the asked-for items only; this peer is misbehaving');
      }
    }
  }

  // 3. definitions: hash-true, canonical, parse, pinned by an event of the batch
  const pins = new Set<string>();
  for (const e of parsed.values()) {
    const h = pinnedHash(e.event);
    if (h !== undefined) pins.add(h);
  }
  const processes = new Map<string, string>();
  for (const text of batch.processes) {
    const h = sha256Id(Buffer.from(text, 'utf8'));
    if (!pins.has(h)) throw refusal('unpinned-definition', `process definition ${h} is not pinned by any event in the transfer`, 'processes/by-hash', 'definitions travel with the create or migrate events that pin them');
    admitProcessText(text, h);
    if (!processes.has(h) && (await store.readProcessByHash(h)) === undefined) processes.set(h, text);
  }
  const definitionKnown = new Map<string, boolean>();
  const knows = async (h: string): Promise<boolean> => {
    let k = definitionKnown.get(h);
    if (k === undefined) {
      k = CONTENT_ID.test(h) && (batch.processes.some((t) => sha256Id(Buffer.from(t, 'utf8')) === h) || (await storedDefinitionIsTrue(store, h)) || ((await options.knownProcess?.(h)) ?? false));
      definitionKnown.set(h, k);
    }
    return k;
  };

  // 4. events in context: parents present, pinned definitions known
  const admitted = new Set<string>();
  const events: (BatchEvent & { readonly event: TikEvent })[] = [];
  const deferred: DeferredEvent[] = [];
  for (const e of parentsFirst([...parsed.values()])) {
    const missing: string[] = [];
    for (const p of e.event.parents) if (!admitted.has(p) && !(await store.hasEvent(e.ticket, p))) missing.push(p);
    if (missing.length > 0) {
      deferred.push({ ticket: e.ticket, id: e.id, code: 'admission/missing-parent', message: `event ${e.id} of ticket ${e.ticket} waits for its parent(s) ${missing.join(', ')}` });
      continue;
    }
    const pin = pinnedHash(e.event);
    if (pin !== undefined && !(await knows(pin))) {
      deferred.push({ ticket: e.ticket, id: e.id, code: 'admission/unknown-definition', message: `event ${e.id} of ticket ${e.ticket} pins the definition ${pin}, which is neither archived nor sent` });
      continue;
    }
    admitted.add(e.id);
    events.push(e);
  }

  // 5. blobs: named by an admitted attach of their own ticket (a deferred attach's blob waits with it)
  const attached = new Map<string, string>(); // `${ticket} ${hash}` → ticket
  const deferredNames = new Set<string>();
  for (const e of parsed.values()) {
    const h = e.event.type.text === 'artifact/attach' ? e.event.body.get(ARTIFACT_HASH) : undefined;
    if (typeof h !== 'string') continue;
    if (admitted.has(e.id)) attached.set(`${e.ticket} ${h}`, e.ticket);
    else deferredNames.add(`${e.ticket} ${h}`);
  }
  const blobs: BatchBlob[] = [];
  for (const b of batch.blobs) {
    const key = `${b.ticket} ${sha256Id(b.bytes)}`;
    if (attached.has(key)) blobs.push(b);
    else if (!deferredNames.has(key)) {
      throw refusal('unnamed-blob', `blob ${sha256Id(b.bytes)} is not named by any :artifact/attach of ticket ${b.ticket} in the transfer`, `tickets/${b.ticket}/blobs/${sha256Id(b.bytes)}`, 'blobs travel with the attach events of their own ticket that name them');
    }
  }

  // 6. sidecars: valid signatures of an admitted or stored event; union with what is stored
  const sidecars: BatchSidecar[] = [];
  const deferredIds = new Set(deferred.map((d) => d.id));
  for (const s of batch.sidecars) {
    const ev = SIDECAR_NAME.exec(s.name)![1]!;
    if (deferredIds.has(ev)) continue;
    const own = parsed.get(ev);
    const eventBytes = own !== undefined && own.ticket === s.ticket ? own.bytes : await store.eventBytes(s.ticket, ev);
    if (eventBytes === undefined) {
      throw refusal('orphan-sidecar', `sidecar ${s.name} names an event that is neither sent nor stored`, `tickets/${s.ticket}/events/${s.name}`, 'sidecars travel with their events');
    }
    await admitSidecar(s.ticket, s.name, s.bytes, eventBytes);
    if (await replacesStored(s.name, s.bytes, await store.readSidecar(s.ticket, s.name), eventBytes)) sidecars.push(s);
  }

  // 7. definition signatures: valid over a definition sent in this batch; union with what is stored
  const sentDefinitions = new Map<string, Uint8Array>();
  for (const text of batch.processes) {
    const b = Buffer.from(text, 'utf8');
    sentDefinitions.set(sha256Id(b), b);
  }
  const processSidecars: (BatchProcessSidecar & { readonly hash: string })[] = [];
  for (const s of batch.processSidecars ?? []) {
    const where = `processes/by-hash/${s.name}`;
    checkSize('a definition signature', s.bytes.length, ADMISSION_LIMITS.sidecar, where);
    const m = SIDECAR_NAME.exec(s.name);
    if (m?.[2] !== 'sig') throw refusal('bad-sidecar', `definition signature name ${JSON.stringify(s.name)} is not <hash>.sig.<fpr16>`, where, 'the sender sent an unexpected file');
    const hash = m[1]!;
    const definition = sentDefinitions.get(hash);
    if (definition === undefined) throw refusal('orphan-sidecar', `definition signature ${s.name} names a definition that is not sent`, where, 'definition signatures travel with their definition');
    const problem = await definitionSidecarProblem(s.name, s.bytes, definition);
    if (problem !== undefined) throw refusal('bad-sidecar', `definition signature ${s.name} is refused: ${problem}`, where, "a definition's signature must be an SSHSIG (namespace tik-process) over its canonical bytes by the key its name names");
    if (await replacesStored(s.name, s.bytes, await store.readProcessSidecar(hash, s.name), definition, definitionSidecarProblem)) processSidecars.push({ ...s, hash });
  }
  return { processes: [...processes.values()], blobs, events, sidecars, processSidecars, deferred };
}

/** True if the store archives `hash` and the archived text hashes to it. */
async function storedDefinitionIsTrue(store: EventStore, hash: string): Promise<boolean> {
  const text = await store.readProcessByHash(hash);
  return text !== undefined && sha256Id(Buffer.from(text, 'utf8')) === hash;
}
