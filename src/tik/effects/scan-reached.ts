/**
 * Finding the effects that are due: derive every ticket's reached stages at `now` (the same store
 * and kernel calls the read verbs use; T1, derived on read, nothing stored) and match them against
 * the rules. Reached includes sticky stages carried forward, so a stage reached once stays fired.
 *
 * A ticket whose log is incomplete (missing parents), unreadable, or whose definition cannot be
 * resolved or derived is skipped this round and reported: a partial log could show a stage the
 * whole log does not reach. It is seen again once sync completes it.
 */
import { isCodedError } from '../../core/errors.js';
import { Keyword, type Instant } from '../edn/index.js';
import { derive } from '../kernel/index.js';
import { LoadContext, loadTicket } from '../store/index.js';
import type { EventStore } from '../store/store.js';
import { effectKey } from './effect-key.js';
import type { EffectRule } from './effects-config.js';
import type { NewDelivery } from './delivery-ledger.js';

export interface ScanResult {
  readonly due: readonly NewDelivery[];
  /** Tickets left out this round, with why. */
  readonly skipped: readonly { readonly ticket: string; readonly reason: string }[];
}

/** The body POSTed for a delivery (stable JSON: the same bytes on every attempt). */
export function deliveryPayload(d: { key: string; pipeline: string; ticket: string; stage: string; process: string | null; title: string | null }): string {
  return JSON.stringify({ key: d.key, pipeline: d.pipeline, ticket: d.ticket, stage: d.stage, process: d.process, title: d.title });
}

/** Every (ticket, reached stage, rule) of the store at `now`, as deliveries to record. */
export async function scanReached(store: EventStore, rules: readonly EffectRule[], now: Instant): Promise<ScanResult> {
  const due: NewDelivery[] = [];
  const skipped: { ticket: string; reason: string }[] = [];
  if (rules.length === 0) return { due, skipped };
  const context = new LoadContext(store);
  for (const ticket of await store.ticketIds()) {
    try {
      const t = await loadTicket(store, ticket, context);
      if (t.problems.length > 0) {
        skipped.push({ ticket, reason: t.problems[0]!.message });
        continue;
      }
      if (t.missingParents.length > 0) {
        skipped.push({ ticket, reason: `log incomplete: ${t.missingParents.length} parent event(s) missing` });
        continue;
      }
      if (!t.definition || !t.roles) {
        skipped.push({ ticket, reason: 'no process definition' });
        continue;
      }
      const process = t.state.process instanceof Keyword ? t.state.process.text : null;
      const rulesHere = rules.filter((r) => r.process === undefined || r.process === process);
      if (rulesHere.length === 0) continue;
      const reached = derive(t.definition, t.events, now, t.roles).reached;
      const title = typeof t.state.title === 'string' ? t.state.title : null;
      for (const rule of rulesHere) {
        if (!reached.has(rule.stage)) continue;
        const key = effectKey(ticket, rule.stage, rule);
        due.push({
          key,
          pipeline: rule.pipeline,
          ticket,
          stage: rule.stage,
          type: rule.type,
          url: rule.url,
          payload: deliveryPayload({ key, pipeline: rule.pipeline, ticket, stage: rule.stage, process: process === null ? null : `:${process}`, title }),
        });
      }
    } catch (e) {
      if (!isCodedError(e)) throw e;
      skipped.push({ ticket, reason: e.message });
    }
  }
  return { due, skipped };
}
