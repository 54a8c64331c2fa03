/**
 * Admission of one record on its own (law T7): the checks that need nothing but the bytes. An
 * event must be within the size limit, hash to its id, be well-formed UTF-8, parse as an event of
 * the ticket it travels under, match the schema and the parents rule, and be byte-for-byte the
 * canonical emission of what it parses to (re-emitted and compared: hashing the bytes alone lets
 * a non-canonical file hash to its own name). A definition must be canonical, parse and hash to
 * its pin. A blob must be within its limit.
 *
 * Every refusal is a `TikError` with an `admission/*` code, saying what, where and what to do.
 */
import { emit, readEdn } from '../../edn/index.js';
import type { TikErrorCode } from '../../error-codes.js';
import { TikError } from '../../errors.js';
import { eventSchemaProblems, parentsProblem, parseEvent, parseProcess, type TikEvent } from '../../kernel/index.js';
import { canonicalTextProblem } from '../canonical-text.js';
import { sha256Id } from '../store-names.js';
import { ADMISSION_LIMITS, mebibytes } from './limits.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The suffixes of the `admission/*` codes. */
export type AdmissionCode = TikErrorCode extends infer C ? (C extends `admission/${infer S}` ? S : never) : never;

/** The refusal every admission check throws. */
export function refusal(code: AdmissionCode, message: string, where: string, hint: string): TikError {
  return new TikError(`admission/${code}`, message, { where, hint });
}

/** Refuses a byte length above `limit` (checked before any parsing). */
export function checkSize(what: string, length: number, limit: number, where: string): void {
  if (length > limit) {
    throw refusal('too-large', `${what} is ${mebibytes(length)}, more than the ${mebibytes(limit)} every replica accepts`, where, `keep ${what}s under ${mebibytes(limit)} (the shared admission limit, so that every replica can receive it)`);
  }
}

/**
 * Admits an event's bytes under `ticket` as `id`; returns the parsed event.
 * Codes: too-large, hash-mismatch, not-utf8, malformed, not-canonical, invalid-event, wrong-ticket.
 */
export function admitEventBytes(ticket: string, id: string, bytes: Uint8Array, where = `tickets/${ticket}/events/${id}.edn`): TikEvent {
  checkSize('an event', bytes.length, ADMISSION_LIMITS.event, where);
  const actual = sha256Id(bytes);
  if (actual !== id) throw refusal('hash-mismatch', `event ${id}: its bytes hash to ${actual}, not to its id`, where, 'an event is stored under the SHA-256 of its exact canonical bytes; the sender altered or corrupted them');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw refusal('not-utf8', `event ${id} is not well-formed UTF-8`, where, 'canonical event bytes are UTF-8; the sender holds a damaged file (run tik verify there)');
  }
  let ev: TikEvent;
  try {
    ev = parseEvent(text, id, where);
  } catch (e) {
    throw refusal('malformed', `event ${id} is malformed: ${(e as Error).message}`, where, 'the sender holds a malformed event; run tik verify there');
  }
  const problems = eventSchemaProblems(ev.map);
  const parents = parentsProblem(ev.map);
  if (parents !== undefined) problems.push(parents);
  if (problems.length > 0) throw refusal('invalid-event', `event ${id} does not match the event schema: ${problems.join('; ')}`, where, 'the sender holds an invalid event; run tik verify there');
  if (ev.ticket.text !== ticket) throw refusal('wrong-ticket', `event ${id} belongs to ticket ${ev.ticket.text}, not ${ticket}`, where, 'an event travels under the ticket its :event/ticket names');
  if (emit(ev.map) !== text) {
    throw refusal('not-canonical', `event ${id} is not the canonical emission of its value (format v1)`, where, 'event bytes are exactly the canonical EDN of the event map: sorted keys, single spaces, no comments, no trailing newline');
  }
  return ev;
}

/** Admits a definition text; returns its hash. Codes: too-large, not-canonical, bad-definition, hash-mismatch. */
export function admitProcessText(text: string, expectedHash?: string, where = 'processes/by-hash'): string {
  const bytes = Buffer.from(text, 'utf8');
  checkSize('a process definition', bytes.length, ADMISSION_LIMITS.process, where);
  const hash = sha256Id(bytes);
  if (expectedHash !== undefined && hash !== expectedHash) {
    throw refusal('hash-mismatch', `process definition ${expectedHash}: its text hashes to ${hash}`, where, 'a definition is archived under the SHA-256 of its canonical bytes');
  }
  const problem = canonicalTextProblem(text);
  if (problem !== undefined) throw refusal('not-canonical', `process definition ${hash} is not canonical: ${problem}`, where, 'definitions travel as their canonical bytes');
  try {
    parseProcess(readEdn(text, where), where);
  } catch (e) {
    throw refusal('bad-definition', `process definition ${hash} does not parse: ${(e as Error).message}`, where, 'the sender holds a broken definition');
  }
  return hash;
}
