/**
 * L1, authorship (tik-model.md §8.4): every `<id>.sig.<fpr16>` sidecar is an SSHSIG in namespace
 * `tik-event` over the event's exact bytes, by a key listed in `actors` for the event's OWN
 * `:event/actor`. Ed25519 is verified in process, other key types by ssh-keygen. An unsigned
 * event is "authenticity unclaimed", a note; a bad signature, or a good one by someone else,
 * fails the level.
 */
import type { AllowedSigner } from '../../core/sshsig.js';
import type { TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from '../store/problem.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { checkEventSidecars } from './event-sidecars.js';
import { levelReport, type LevelReport } from './verify-report.js';

export const EVENT_NAMESPACE = 'tik-event';

export interface L1Result {
  readonly report: LevelReport;
  readonly signed: number;
}

/**
 * `actors` is the parsed allowed-signers list, or a problem when the file is unreadable (then
 * every signature of the ticket fails, since none can be checked).
 */
export async function checkL1(
  store: EventStore,
  ticket: string,
  stored: readonly StoredEvent[],
  events: readonly TikEvent[],
  actors: readonly AllowedSigner[] | StoreProblem,
): Promise<L1Result> {
  const r = await checkEventSidecars(store, ticket, stored, events, actors, {
    kind: 'sig',
    namespace: EVENT_NAMESPACE,
    level: 'L1',
    principal: (e) => e.actor,
    hintForUntrusted: (e) => `authorship must verify as the event's own actor; add the key with \`tik actor add ${e.actor} <pub>\` if it is theirs`,
  });
  const notes = [...r.notes];
  const unsigned = events.filter((e) => !r.good.has(e.id));
  if (unsigned.length > 0) {
    notes.push(
      problem('L1/unsigned', `${unsigned.length} of ${events.length} event(s) unsigned (authenticity unclaimed)`, {
        where: `tickets/${ticket}`,
        hint: 'sign your own events with `tik sign`, or set TIK_KEY to sign every write',
      }),
    );
  }
  // a migration moves the ticket onto another definition: an unsigned one is called out by name
  const unsignedMigrates = unsigned.filter((e) => e.type.text === 'process/migrate');
  if (unsignedMigrates.length > 0) {
    notes.push(
      problem('L1/unsigned-migrate', `${unsignedMigrates.length} :process/migrate event(s) unsigned: nothing says who re-pinned the ticket's definition (${unsignedMigrates.map((e) => e.id).join(', ')})`, {
        where: `tickets/${ticket}`,
        hint: 'a migration changes what every later stage derives from; sign migrations (TIK_KEY), and under the signed policy unsigned ones are refused',
      }),
    );
  }
  return { report: levelReport(r.problems, notes), signed: r.good.size };
}
