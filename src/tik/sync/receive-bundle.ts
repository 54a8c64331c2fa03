import { readEdn } from '../edn/index.js';
import { Keyword } from '../edn/value.js';
import { TikError } from '../errors.js';
import { eventSchemaProblems, parentsProblem, parseEvent, parseProcess, type TikEvent } from '../kernel/index.js';
import { canonicalTextProblem } from '../store/canonical-text.js';
import type { EventStore } from '../store/store.js';
import { SIDECAR_NAME, sha256Id } from '../store/store-names.js';
import { decodeBundle, type Bundle } from './bundle.js';
import { parentsFirst } from './parents-first.js';

/** What a received bundle changed. */
export interface ReceiveSummary {
  /** Events stored that were not there before. */
  readonly stored: number;
  /** Events that were already there (idempotent). */
  readonly present: number;
  readonly sidecars: number;
  readonly blobs: number;
  readonly processes: number;
}

const ARTIFACT_HASH = Keyword.of('artifact/hash');
const PROCESS_HASH = Keyword.of('ticket/process-hash');
const MIGRATE_HASH = Keyword.of('process/hash');

/** Tickets written concurrently while receiving a bundle. */
const APPEND_CONCURRENCY = 8;

const refuse = (message: string, where: string, hint: string): TikError => new TikError('sync/refused', message, { where, hint });

/**
 * Checks a whole bundle before storing anything: every event's bytes hash to its id, parse, match
 * the schema and the parents rule and belong to the ticket they travel under; every definition is
 * canonical, parses and is pinned by an event of the bundle; every blob is named by an attach of
 * the bundle; every sidecar is named `<id>.sig|witness.<fpr16>` for an event that is in
 * the bundle or already stored. One bad record refuses the whole bundle and nothing is written.
 */
export async function checkBundle(store: EventStore, bundle: Bundle): Promise<readonly TikEvent[]> {
  const parsed: TikEvent[] = [];
  const ids = new Set<string>();
  for (const e of bundle.events) {
    const where = `tickets/${e.ticket}/events/${e.id}.edn`;
    const actual = sha256Id(e.bytes);
    if (actual !== e.id) throw refuse(`event ${e.id}: its bytes hash to ${actual}, not to its id`, where, 'the peer sent altered or corrupted bytes; nothing from this transfer was stored');
    let ev: TikEvent;
    try {
      ev = parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id, where);
    } catch (err) {
      throw refuse(`event ${e.id} is malformed: ${(err as Error).message}`, where, 'the peer holds a malformed event; run tik verify there');
    }
    const problems = eventSchemaProblems(ev.map);
    const parents = parentsProblem(ev.map);
    if (parents !== undefined) problems.push(parents);
    if (problems.length > 0) throw refuse(`event ${e.id} does not match the event schema: ${problems.join('; ')}`, where, 'the peer holds an invalid event; run tik verify there');
    if (ev.ticket.text !== e.ticket) throw refuse(`event ${e.id} belongs to ticket ${ev.ticket.text}, not ${e.ticket}`, where, 'an event travels under the ticket its :event/ticket names');
    parsed.push(ev);
    ids.add(e.id);
  }
  // Blobs and definitions are accepted only when an event of this bundle names them.
  const named = new Set<string>();
  for (const ev of parsed) {
    for (const k of [ARTIFACT_HASH, PROCESS_HASH, MIGRATE_HASH]) {
      const v = ev.body.get(k);
      if (typeof v === 'string') named.add(v);
    }
  }
  for (const b of bundle.blobs) {
    const h = sha256Id(b.bytes);
    if (!named.has(h)) throw refuse(`blob ${h} is not named by any :artifact/attach in the transfer`, `tickets/${b.ticket}/blobs/${h}`, 'blobs travel with the attach events that name them');
  }
  for (const text of bundle.processes) {
    const h = sha256Id(Buffer.from(text, 'utf8'));
    if (!named.has(h)) throw refuse(`process definition ${h} is not pinned by any event in the transfer`, 'processes/by-hash', 'definitions travel with the create or migrate events that pin them');
    const problem = canonicalTextProblem(text);
    if (problem !== undefined) throw refuse(`a process definition is not canonical: ${problem}`, 'processes/by-hash', 'definitions travel as their canonical bytes');
    try {
      parseProcess(readEdn(text, 'processes/by-hash'), 'processes/by-hash');
    } catch (err) {
      throw refuse(`a process definition (${sha256Id(Buffer.from(text, 'utf8'))}) does not parse: ${(err as Error).message}`, 'processes/by-hash', 'the peer holds a broken definition');
    }
  }
  for (const s of bundle.sidecars) {
    const m = SIDECAR_NAME.exec(s.name);
    const where = `tickets/${s.ticket}/events/${s.name}`;
    if (!m) throw refuse(`sidecar name ${JSON.stringify(s.name)} is not <id>.sig.<fpr16> or <id>.witness.<fpr16>`, where, 'the peer sent an unexpected file');
    if (!ids.has(m[1]!) && !(await store.hasEvent(s.ticket, m[1]!))) throw refuse(`sidecar ${s.name} names an event that is neither sent nor stored`, where, 'sidecars travel with their events');
  }
  return parsed;
}

/**
 * Receives a transfer: decode (a truncated body is an error), check everything, then store
 * definitions, blobs, events parents-first, and sidecars last. Appends are idempotent, so a
 * repeated or overlapping transfer stores nothing twice; an interrupted one left a parent-closed
 * prefix per ticket that the next round completes.
 */
export async function receiveBundle(store: EventStore, body: Uint8Array): Promise<ReceiveSummary> {
  const bundle = decodeBundle(body);
  const parsed = await checkBundle(store, bundle);
  let processes = 0;
  for (const text of bundle.processes) {
    const hash = sha256Id(Buffer.from(text, 'utf8'));
    if ((await store.readProcessByHash(hash)) === undefined) {
      await store.archiveProcess(text);
      processes++;
    }
  }
  let blobs = 0;
  for (const b of bundle.blobs) {
    if ((await store.readBlob(b.ticket, sha256Id(b.bytes))) === undefined) {
      await store.putBlob(b.ticket, b.bytes);
      blobs++;
    }
  }
  const bytesOf = new Map(bundle.events.map((e) => [e.id, e.bytes] as const));
  let stored = 0;
  let present = 0;
  const order = parentsFirst(parsed.map((e) => ({ id: e.id, at: e.at.ms, parents: e.parents, ticket: e.ticket.text })));
  // Parents-first matters within a ticket only, so tickets are written a few at a time (the
  // store's I/O latency, not CPU, bounds a transfer); each ticket's events stay strictly in order.
  const byTicket = new Map<string, typeof order>();
  for (const e of order) {
    const list = byTicket.get(e.ticket);
    if (list) list.push(e);
    else byTicket.set(e.ticket, [e]);
  }
  const queue = [...byTicket.values()];
  const worker = async (): Promise<void> => {
    for (let list = queue.shift(); list !== undefined; list = queue.shift()) {
      for (const e of list) {
        if (await store.append(e.ticket, e.id, bytesOf.get(e.id)!)) stored++;
        else present++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPEND_CONCURRENCY, queue.length) }, worker));
  let sidecars = 0;
  for (const s of bundle.sidecars) {
    // Two valid signatures under one name (a randomized signature scheme signed twice) must not
    // flip-flop between replicas: every replica keeps the bytewise smaller one, so all converge.
    const old = await store.readSidecar(s.ticket, s.name);
    if (old !== undefined && Buffer.compare(old, s.bytes) <= 0) continue;
    if (await store.putSidecar(s.ticket, s.name, s.bytes)) sidecars++;
  }
  return { stored, present, sidecars, blobs, processes };
}
