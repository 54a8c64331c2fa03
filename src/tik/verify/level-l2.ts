/**
 * L2, the pin (tik-model.md §8.4, §4.2): the ticket's pinned definition resolves, the archive
 * copy hashes to its name, the definition actually used has the pinned hash, and deriving the
 * ticket with the kernel does not raise.
 */
import { Instant, Keyword } from '../edn/index.js';
import { derive, reduce, type TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from '../store/problem.js';
import { describe, pinOf, type LoadContext } from '../store/resolve-pin.js';
import { levelReport, type LevelReport } from './verify-report.js';

export async function checkL2(context: LoadContext, ticket: string, events: readonly TikEvent[], now: Instant | undefined): Promise<LevelReport> {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  const where = `tickets/${ticket}`;
  if (events.length === 0) {
    problems.push(problem('L2/no-events', `ticket ${ticket} has no readable events to derive`, { where }));
    return levelReport(problems);
  }
  const pin = pinOf(reduce(events));
  const r = await context.resolve(pin);
  for (const p of r.problems) problems.push(problem(`L2/${p.code.split('/')[1] ?? p.code}`, p.message, { where: p.where ?? where, ...(p.hint ? { hint: p.hint } : {}) }));
  for (const w of r.warnings) problems.push(problem('L2/pin-mismatch', w.message, { where: w.where ?? where, ...(w.hint ? { hint: w.hint } : {}) }));
  if (pin.hash === undefined && r.definition) {
    notes.push(problem('L2/no-pinned-hash', `the ticket pins no hash; ${r.file} was used as named`, { where }));
  }
  const def = r.definition;
  if (!def) return levelReport(problems, notes);
  // a migration re-pins version and hash; the process name never changes (tik-model.md §2.2), so
  // a migrate onto another process's definition (e.g. a pusher's own, sent in the same bundle) is
  // a problem, whoever claims to have made it
  const create = events.find((e) => e.type.text === 'ticket/create');
  const named = create?.body.get(Keyword.of('ticket/process'));
  if (events.some((e) => e.type.text === 'process/migrate') && named instanceof Keyword && def.id.text !== named.text) {
    problems.push(
      problem('L2/migrate-foreign-process', `ticket ${ticket} is a ${named.text} ticket but a :process/migrate re-pinned it to the definition of ${def.id.text}`, {
        where,
        hint: 'a migration keeps the process name; check who wrote the :process/migrate (tik log) and whether it is signed (L1)',
      }),
    );
  }
  const roles = await context.roles(def);
  for (const p of roles.problems) problems.push(problem('L2/roles', p.message, { where: p.where ?? where }));
  // Without an injected `now`, derive as of the latest claimed time: the derivation must not raise at any instant.
  const at = now ?? new Instant(Math.max(...events.map((e) => e.at.ms)));
  try {
    derive(def, events, at, roles.roles);
  } catch (e) {
    problems.push(
      problem('L2/derivation', `deriving ticket ${ticket} with ${r.file} fails: ${describe(e)}`, {
        where: r.file ?? where,
        hint: 'the definition cannot be evaluated over this log (e.g. an unknown guard operator); lint it with `tik lint`',
      }),
    );
  }
  return levelReport(problems, notes);
}
