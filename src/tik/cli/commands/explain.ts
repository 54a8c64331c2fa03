import type { Command } from 'commander';
import { explain } from '../../kernel/index.js';
import type { CliContext } from '../context.js';
import { explainJson } from '../lenses.js';
import { readNow } from '../read-now.js';
import { renderExplain } from '../render.js';
import { openStore, openTicket, requireDef } from '../store-access.js';

/**
 * `tik explain <id> [--actor A] [--at INST] [--json]`: for each frontier stage, what holds, what
 * is missing and what it blocks. `--actor` keeps only what that actor can act on.
 */
export function registerExplain(program: Command, ctx: CliContext): void {
  program
    .command('explain')
    .description('why each next stage is not reached yet, and who can supply what is missing')
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--at <instant>', 'derive at this instant instead of now')
    .option('--json', 'print the explanation as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { at?: string; json?: boolean }) => {
      const now = readNow(ctx, opts.at);
      const forActor = ctx.actorFilter();
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const def = requireDef(t);
      const r = explain(def, t.events, now, t.roles, forActor !== undefined ? { forActor } : {});
      if (opts.json) ctx.json(explainJson(t, r, now, forActor));
      else ctx.out(renderExplain(r, t.roles, forActor, def));
    });
}
