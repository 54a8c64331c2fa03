/**
 * L0, integrity of one ticket's log (tik-model.md §8.4): every file's bytes are the canonical
 * emission of the map they hold, its name is their hash, the map passes the event schema and
 * the parents rule and belongs to this ticket; every parent is present; there is exactly one
 * root. Events dated after `now` are noted, not failed.
 */
import { EdnMap, emitBytes, formatInstant, readEdnBytes, type EdnValue, type Instant } from '../edn/index.js';
import { eventFromMap, eventSchemaProblems, parentsProblem, roots, type TikEvent } from '../kernel/index.js';
import { eventFile } from '../store/load-ticket.js';
import { problem, type StoreProblem } from '../store/problem.js';
import { describe } from '../store/resolve-pin.js';
import type { StoredEvent } from '../store/store.js';
import { sha256Id } from '../store/store-names.js';
import { levelReport, type LevelReport } from './verify-report.js';

export interface L0Result {
  readonly report: LevelReport;
  /** Events whose bytes hash to their names and parse as this ticket's events (L1/L2 use them). */
  readonly events: readonly TikEvent[];
}

export function checkL0(ticket: string, stored: readonly StoredEvent[], now: Instant | undefined): L0Result {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  const events: TikEvent[] = [];
  // The DAG checks see every parsed file under its name, so one damaged file is reported once
  // (as itself) rather than again as a missing parent of its children.
  const dag: TikEvent[] = [];
  if (stored.length === 0) {
    problems.push(problem('L0/no-events', `ticket ${ticket} has no events`, { where: `tickets/${ticket}` }));
  }
  for (const s of stored) {
    const where = eventFile(ticket, s.id);
    const at = { where, event: s.id };
    const actual = sha256Id(s.bytes);
    const hashOk = actual === s.id;
    if (!hashOk) {
      problems.push(
        problem('L0/hash-mismatch', `${where}: the bytes hash to ${actual}, not to the file name`, {
          ...at,
          hint: 'an event file is never edited or renamed; restore it from a replica',
        }),
      );
    }
    let value: EdnValue;
    try {
      value = readEdnBytes(s.bytes, where);
    } catch (e) {
      problems.push(problem('L0/malformed', `${where} does not parse: ${describe(e)}`, at));
      continue;
    }
    if (!emitBytes(value).equals(s.bytes)) {
      problems.push(
        problem('L0/not-canonical', `${where} is not in canonical form (format v1)`, {
          ...at,
          hint: 'event bytes are exactly the canonical emission of the event map: sorted keys, single spaces, no trailing newline',
        }),
      );
    }
    if (!(value instanceof EdnMap)) {
      problems.push(problem('L0/schema', `${where} holds no map`, at));
      continue;
    }
    for (const p of eventSchemaProblems(value)) problems.push(problem('L0/schema', `${where}: ${p}`, at));
    const parents = parentsProblem(value);
    if (parents !== undefined) problems.push(problem('L0/parents-rule', `${where}: ${parents}`, at));
    let e: TikEvent;
    try {
      e = eventFromMap(value, s.id, where);
    } catch {
      continue; // its schema problems are already reported
    }
    if (e.ticket.text !== ticket) {
      problems.push(problem('L0/wrong-ticket', `${where} names ticket ${e.ticket.text}`, at));
      continue;
    }
    if (now !== undefined && e.at.ms > now.ms) {
      notes.push(problem('L0/future-dated', `${where} is dated ${formatInstant(e.at.ms)}, after now (${formatInstant(now.ms)})`, at));
    }
    dag.push(e);
    if (hashOk) events.push(e);
  }

  const have = new Set(dag.map((e) => e.id));
  for (const e of dag) {
    for (const p of e.parents) {
      if (!have.has(p)) {
        problems.push(
          problem('L0/missing-parent', `event ${e.id} names parent ${p}, which is not in the log`, {
            where: eventFile(ticket, e.id),
            event: e.id,
            hint: 'sync the missing event from a replica',
          }),
        );
      }
    }
  }
  const rs = roots(dag);
  if (stored.length > 0 && rs.length !== 1) {
    problems.push(
      problem(
        'L0/roots',
        rs.length === 0 ? `ticket ${ticket} has no root (no event with empty parents)` : `ticket ${ticket} has ${rs.length} roots: ${rs.join(', ')}`,
        { where: `tickets/${ticket}`, hint: 'a ticket has exactly one root, its :ticket/create' },
      ),
    );
  }
  return { report: levelReport(problems, notes), events: Object.freeze(events) };
}
