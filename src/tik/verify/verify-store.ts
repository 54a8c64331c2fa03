/**
 * `tik verify`: the ladder L0 → L1 → L2 (and L3, head witnesses) per ticket, and the store-wide
 * checks (tik-model.md §8.4). Reads only; never writes, never throws for bad data (only for a
 * malformed ticket argument or an I/O failure). `now` is injected: the kernel reads no clock.
 * It reads the store through its own ladder, not the application's ticket loader (app/): an
 * audit reports every problem of every level under its own code (`L0/…`, `L2/…`) and goes on past
 * each, where the loader's strict policy stops at the first and its lenient one skips the ticket;
 * the conformance corpus pins these reports byte for byte.
 */
import { CodedError } from '../../core/errors.js';
import { fpr16, parseSshSignature, type AllowedSigner } from '../../core/sshsig.js';
import { checkSignature } from './check-signature.js';
import type { Instant } from '../edn/index.js';
import { canonicalTextProblem } from '../store/canonical-text.js';
import { problem, type StoreProblem } from '../store/problem.js';
import { LoadContext } from '../store/resolve-pin.js';
import { storeRoot } from '../store/store-root.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { SIDECAR_NAME, checkTicket, sha256Id } from '../store/store-names.js';
import { checkL0 } from './level-l0.js';
import { checkL1 } from './level-l1.js';
import { checkL2 } from './level-l2.js';
import { checkL3 } from './level-l3.js';
import { levelReport, type LevelReport, type TicketReport, type VerifyReport } from './verify-report.js';

export const PROCESS_NAMESPACE = 'tik-process';
export const WITNESS_NAMESPACE = 'tik-witness';

export interface VerifyOptions {
  /** Verify only this ticket (a full uuid; resolve prefixes first). */
  readonly ticket?: string;
  /** The instant events are checked against (future-dated notes) and derived at. */
  readonly now?: Instant;
}

async function readActors(store: EventStore): Promise<readonly AllowedSigner[] | StoreProblem> {
  try {
    return await store.readActors();
  } catch (e) {
    if (e instanceof CodedError && e.code === 'store/bad-actors') {
      return problem('store/bad-actors', `actors: ${e.message}`, {
        where: e.where ?? 'actors',
        ...(e.hint ? { hint: e.hint } : {}),
      });
    }
    throw e;
  }
}

/** Verifies one ticket through L0, L1, L2 and L3. */
export async function verifyTicket(
  store: EventStore,
  ticket: string,
  options: { readonly now?: Instant; readonly context?: LoadContext; readonly actors?: readonly AllowedSigner[] | StoreProblem } = {},
): Promise<TicketReport> {
  checkTicket(ticket);
  const context = options.context ?? new LoadContext(store);
  const actors = options.actors ?? (await readActors(store));
  let stored: readonly StoredEvent[];
  try {
    stored = await store.events(ticket);
  } catch (e) {
    // A log the store cannot read (e.g. a corrupt pack index) fails L0; the other tickets go on.
    if (!(e instanceof CodedError) || e.code === 'store/io') throw e;
    const p = problem('L0/unreadable', `ticket ${ticket} cannot be read: ${e.message}`, {
      where: e.where ?? `tickets/${ticket}`,
      ...(e.hint ? { hint: e.hint } : {}),
    });
    const none = levelReport([]);
    return Object.freeze({
      ticket,
      ok: false,
      levels: Object.freeze({
        L0: levelReport([p]),
        L1: none,
        L2: levelReport([problem('L2/no-events', `ticket ${ticket} has no readable events to derive`)]),
        L3: none,
      }),
      events: 0,
      signed: 0,
    });
  }
  const l0 = checkL0(ticket, stored, options.now);
  const l1 = await checkL1(store, ticket, stored, l0.events, actors);
  const l2 = await checkL2(context, ticket, l0.events, options.now);
  const l3 = await checkL3(store, ticket, stored, l0.events, actors, WITNESS_NAMESPACE);
  return Object.freeze({
    ticket,
    ok: l0.report.ok && l1.report.ok && l2.ok && l3.ok,
    levels: Object.freeze({ L0: l0.report, L1: l1.report, L2: l2, L3: l3 }),
    events: stored.length,
    signed: l1.signed,
  });
}

/** Store-wide: every archived definition hashes to its name and is canonical; its signatures verify. */
export async function verifyArchive(store: EventStore, actors: readonly AllowedSigner[] | StoreProblem): Promise<LevelReport> {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  if (!Array.isArray(actors)) problems.push(actors as StoreProblem);
  for (const hash of await store.archivedProcessHashes()) {
    const where = `processes/by-hash/${hash}.edn`;
    const text = await store.readProcessByHash(hash);
    if (text === undefined) continue;
    const bytes = Buffer.from(text, 'utf8');
    const actual = sha256Id(bytes);
    if (actual !== hash) {
      problems.push(
        problem('store/by-hash-mismatch', `${where} hashes to ${actual}, not to its name`, {
          where,
          hint: 'archived definitions never change; restore the file from a replica',
        }),
      );
      continue;
    }
    const canon = canonicalTextProblem(text);
    if (canon !== undefined) problems.push(problem('store/by-hash-not-canonical', `${where}: ${canon}`, { where }));
    for (const name of await store.processSidecarNames(hash)) {
      const m = SIDECAR_NAME.exec(name);
      if (m?.[2] !== 'sig') continue;
      const sigWhere = `processes/by-hash/${name}`;
      const sig = await store.readProcessSidecar(hash, name);
      if (sig === undefined) continue;
      let keyFpr: string;
      try {
        keyFpr = fpr16(Buffer.from(parseSshSignature(sig).publicKeyBlob).toString('base64'));
      } catch (e) {
        problems.push(problem('store/malformed-signature', `${sigWhere} is not an SSH signature: ${e instanceof Error ? e.message : String(e)}`, { where: sigWhere }));
        continue;
      }
      if (keyFpr !== m[3]) {
        problems.push(problem('store/fingerprint-mismatch', `${sigWhere} is named for key ${m[3]} but was made by key ${keyFpr}`, { where: sigWhere }));
        continue;
      }
      if (!Array.isArray(actors)) continue;
      const r = await checkSignature(sig, bytes, PROCESS_NAMESPACE, undefined, actors);
      if (!r.ok) problems.push(problem('store/bad-process-signature', `${sigWhere}: ${r.reason}`, { where: sigWhere }));
    }
  }
  return levelReport(problems, notes);
}

/**
 * Store-wide: root witnesses. A witness of the current root must verify (namespace
 * `tik-witness`, a key in `actors`) over the regenerated root document; a witness of an earlier
 * root cannot be checked (the document is not kept) and is noted.
 */
export async function verifyRootWitnesses(store: EventStore, actors: readonly AllowedSigner[] | StoreProblem): Promise<LevelReport> {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  const names = await store.rootWitnessNames();
  if (names.length === 0) return levelReport([]);
  const current = await storeRoot(store);
  const doc = Buffer.from(current.document, 'utf8');
  for (const name of names) {
    const [, root, , fpr] = SIDECAR_NAME.exec(name)!;
    const where = `roots/${name}`;
    if (root !== current.root) {
      notes.push(problem('store/stale-root-witness', `${where} witnesses an earlier root (the store's root is now ${current.root})`, { where }));
      continue;
    }
    const sig = await store.readRootWitness(name);
    if (sig === undefined) continue;
    let keyFpr: string;
    try {
      keyFpr = fpr16(Buffer.from(parseSshSignature(sig).publicKeyBlob).toString('base64'));
    } catch (e) {
      problems.push(problem('store/malformed-signature', `${where} is not an SSH signature: ${e instanceof Error ? e.message : String(e)}`, { where }));
      continue;
    }
    if (keyFpr !== fpr) {
      problems.push(problem('store/fingerprint-mismatch', `${where} is named for key ${fpr} but was made by key ${keyFpr}`, { where }));
      continue;
    }
    if (!Array.isArray(actors)) continue;
    const r = await checkSignature(sig, doc, WITNESS_NAMESPACE, undefined, actors);
    if (!r.ok) problems.push(problem('store/bad-root-witness', `${where}: ${r.reason}`, { where }));
  }
  return levelReport(problems, notes);
}

/**
 * Verifies the whole store (or one ticket with `options.ticket`): each ticket through the
 * ladder, plus the store-wide checks. `ok` is true only if every ticket and the store pass.
 */
export async function verifyStore(store: EventStore, options: VerifyOptions = {}): Promise<VerifyReport> {
  const context = new LoadContext(store);
  const actors = await readActors(store);
  let tickets: readonly string[];
  if (options.ticket !== undefined) {
    checkTicket(options.ticket);
    tickets = [options.ticket];
  } else {
    tickets = await store.ticketIds();
  }
  const reports: TicketReport[] = [];
  for (const t of tickets) {
    reports.push(await verifyTicket(store, t, { ...(options.now ? { now: options.now } : {}), context, actors }));
  }
  const archive = await verifyArchive(store, actors);
  const witnesses = await verifyRootWitnesses(store, actors);
  const storeLevel = levelReport([...archive.problems, ...witnesses.problems], [...archive.notes, ...witnesses.notes]);
  return Object.freeze({
    ok: storeLevel.ok && reports.every((r) => r.ok),
    tickets: Object.freeze(reports),
    store: storeLevel,
  });
}
