import type { Command } from 'commander';
import { inbox } from '../../kernel/index.js';
import type { CliContext } from '../context.js';
import { type Json } from '../json-value.js';
import { reasonJson } from '../lenses.js';
import { renderNext } from '../render.js';
import { openStore } from '../store-access.js';
import { loadAllTickets } from '../ticket-set.js';
import { holdBackDependents } from '../depends-on.js';

/**
 * `tik next [--actor A] [--role R] [--all] [--json]`: the inbox — actions across tickets, ranked by
 * how many stages they unlock, then by staleness (§7.2).
 */
export function registerNext(program: Command, ctx: CliContext): void {
  program
    .command('next')
    .description('what to do next across tickets, ranked by what it unlocks (--actor keeps what that actor may do)')
    .option('--role <role>', 'keep actions gated by this role')
    .option('--all', 'include settled tickets')
    .option('--json', 'print the inbox as JSON (see docs/tik.md)')
    .action(async (opts: { role?: string; all?: boolean; json?: boolean }) => {
      const now = ctx.clock.now();
      const store = await openStore(ctx);
      const { keep: tickets, held } = holdBackDependents(await loadAllTickets(ctx, store, now));
      const rolesByDef = new Map(tickets.map((t) => [t.def, t.roles] as const));
      const actor = ctx.actorFilter();
      const r = inbox(
        tickets.map((t) => ({ ticket: t.ticket, def: t.def, events: t.events })),
        now,
        (def) => rolesByDef.get(def) ?? new Map(),
        { ...(actor !== undefined ? { actor } : {}), ...(opts.role !== undefined ? { role: opts.role } : {}), all: opts.all === true },
      );
      const json: Record<string, Json> = {
        items: r.items.map((i) => ({
          action: i.actionText,
          who: i.who === 'anyone' ? 'anyone' : [...i.who],
          role: i.role ?? null,
          notActor: i.notActor ?? null,
          staleMs: i.staleMs,
          unlocks: i.unlocks.map((u) => ({ ticket: u.ticket, stage: u.stage, hint: u.hint ?? null })),
        })),
        waiting: r.waiting.map((w) => ({ ticket: w.ticket, stage: w.stage, reason: reasonJson(w.reason) })),
        settled: r.settled,
        heldBack: held,
      };
      if (opts.json) ctx.json(json);
      else ctx.out(renderNext(r, held.length));
    });
}
