/**
 * L3, witnesses (tik-model.md §8.4, §1.9): every `<head>.witness.<fpr16>` sidecar is an SSHSIG
 * in namespace `tik-witness` over a head's exact bytes, by any key listed in `actors` (a witness
 * vouches for having seen the log up to that head; it need not be the author). A witness of an
 * event that is no longer a head still counts; an unwitnessed ticket is not a failure.
 */
import type { AllowedSigner } from '../../core/sshsig.js';
import { heads, type TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from '../store/problem.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { checkEventSidecars } from './event-sidecars.js';
import { levelReport, type LevelReport } from './verify-report.js';

export async function checkL3(
  store: EventStore,
  ticket: string,
  stored: readonly StoredEvent[],
  events: readonly TikEvent[],
  actors: readonly AllowedSigner[] | StoreProblem,
  namespace: string,
): Promise<LevelReport> {
  const r = await checkEventSidecars(store, ticket, stored, events, actors, {
    kind: 'witness',
    namespace,
    level: 'L3',
    principal: () => undefined,
    hintForUntrusted: () => 'a witness key must be listed in actors (`tik actor add <name> <pub>`)',
  });
  const notes = [...r.notes];
  const unwitnessed = heads(events).filter((h) => !r.good.has(h));
  if (r.good.size > 0 && unwitnessed.length > 0) {
    notes.push(
      problem('L3/unwitnessed-heads', `${unwitnessed.length} head(s) not witnessed: ${unwitnessed.join(', ')}`, {
        where: `tickets/${ticket}`,
        hint: 'witness the current heads with `tik witness`',
      }),
    );
  }
  return levelReport(r.problems, notes);
}
