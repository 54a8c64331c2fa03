import type { Command } from 'commander';
import { MIGRATE_TARGETS, type MigrateTarget } from '../../store/migrate-targets.js';
import type { CliContext } from '../context.js';

/**
 * `tik store migrate --to sqlite|file|postgres [--url URL] [--dir DIR]`: move the store to another
 * backend. Copies events, sidecars, blobs and side files, checks that both stores hold the same
 * event ids, and only then removes the source; on any failure the source is untouched.
 */
export function registerStoreMigrate(verb: Command, ctx: CliContext): void {
  verb
    .command('migrate')
    .description('move the store to another backend (sqlite: tik.db; file: tickets/; postgres: a schema on a server)')
    .requiredOption('--to <kind>', `target backend: ${MIGRATE_TARGETS.join(' | ')}`)
    .option('--url <url>', 'PostgreSQL URL for --to postgres (postgresql://user@host/db[?schema=name])')
    .option('--dir <dir>', 'directory for --to sqlite|file (default: the source store\'s own directory)')
    .action(async (opts: { to: string; url?: string; dir?: string }) => {
      const { storeTarget } = await import('../store-access.js');
      // migrate.js loads every backend's driver: only this command needs them all
      const { migrate } = await import('../../store/migrate.js');
      const result = await migrate({
        from: storeTarget(ctx),
        to: opts.to as MigrateTarget,
        ...(opts.url !== undefined ? { url: opts.url } : {}),
        ...(opts.dir !== undefined ? { dir: ctx.path(opts.dir) } : {}),
        onTicket: (c) => {
          if (c.tickets % 500 === 0) ctx.io.err(`tik: migrated ${c.tickets} tickets, ${c.events} events\n`);
        },
      });
      const c = result.counts;
      ctx.out(`migrated ${c.events} events, ${c.sidecars} sidecars and ${c.blobs} blobs of ${c.tickets} tickets from ${result.from} to ${result.to}; the source was removed`);
    });
}
