import type { Command } from 'commander';
import { currentStages, isSettled } from '../../kernel/index.js';
import type { CliContext } from '../context.js';
import { instantText, type Json } from '../json-value.js';
import { titleOf } from '../lenses.js';
import { renderLs } from '../render.js';
import { openStore } from '../store-access.js';
import { loadAllTickets } from '../ticket-set.js';

/** `tik ls [--all] [--json]`: every open ticket with its current stages (settled ones with --all). */
export function registerLs(program: Command, ctx: CliContext): void {
  program
    .command('ls')
    .description('list tickets and their current stages (settled tickets only with --all)')
    .option('--all', 'include settled tickets')
    .option('--json', 'print the list as JSON (see docs/tik.md)')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const now = ctx.clock.now();
      const store = await openStore(ctx);
      const rows: Record<string, Json>[] = [];
      let hidden = 0;
      for (const t of await loadAllTickets(ctx, store, now)) {
        const { reached, state } = t.derived;
        const settled = isSettled(t.def, reached);
        if (settled && !opts.all) {
          hidden++;
          continue;
        }
        let last = -Infinity;
        for (const e of t.events) last = Math.max(last, e.at.ms);
        rows.push({
          ticket: t.ticket,
          title: titleOf(state),
          process: t.def.id.toString(),
          current: [...currentStages(t.def, reached)].sort(),
          reached: [...reached].sort(),
          settled,
          events: t.events.length,
          updated: Number.isFinite(last) ? instantText(t.events.find((e) => e.at.ms === last)!.at) : null,
          missingParents: [...t.missingParents],
        });
      }
      if (opts.json) ctx.json(rows);
      else ctx.out(renderLs(rows, hidden));
    });
}
