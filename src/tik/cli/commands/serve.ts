import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import { defaultEffectsFile, effectsOptionsFromEnv } from '../../effects/index.js';
import { buildTikServer } from '../../server/index.js';
import type { CliContext } from '../context.js';
import { openStore, storeTarget } from '../store-access.js';

const collect = (v: string, prev: string[]): string[] => [...prev, v];

function positive(name: string, text: string, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new TikError('cli/usage', `${name} must be an integer between 0 and ${max}, got ${JSON.stringify(text)}`, { where: name, hint: `e.g. ${name} 7777` });
  }
  return n;
}

/**
 * `tik serve [--port P] [--host H] [--peer URL…] [--interval S]`: a writable, stateless HTTP
 * replica of the store with periodic anti-entropy against its peers. Runs until SIGINT/SIGTERM.
 */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve this store as a writable HTTP replica (read/write API, sync, board) and sync with peers')
    .option('--port <port>', 'TCP port (0 picks a free one)', '7777')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--peer <url>', 'a peer replica to sync with periodically (repeatable)', collect, [] as string[])
    .option('--interval <seconds>', 'seconds between anti-entropy rounds', '10')
    .option('--effects-db <url>', 'deliver effects.edn webhooks through this shared ledger (sqlite:///… or postgresql://…; docs/tik-effects.md)')
    .action(async (opts: { port: string; host: string; peer: string[]; interval: string; effectsDb?: string }) => {
      const port = positive('--port', opts.port, 65535);
      const interval = Number(opts.interval);
      if (!(interval > 0)) throw new TikError('cli/usage', `--interval must be a positive number of seconds, got ${JSON.stringify(opts.interval)}`, { where: '--interval', hint: 'e.g. --interval 5' });
      for (const p of opts.peer) {
        if (!/^https?:\/\/[^\s]+$/.test(p)) throw new TikError('cli/usage', `--peer must be an http(s) URL, got ${JSON.stringify(p)}`, { where: '--peer', hint: 'e.g. --peer http://127.0.0.1:7778' });
      }
      const root = storeTarget(ctx); // a directory, or a postgresql:// URL
      const store = await openStore(ctx);
      const effectsDb = opts.effectsDb ?? ctx.io.env.TIK_EFFECTS_DB;
      const effects = effectsDb ? { ...effectsOptionsFromEnv(effectsDb, defaultEffectsFile(store, ctx.io.cwd), ctx.io.env), now: () => ctx.clock.now() } : undefined;
      const server = await buildTikServer({ root, cwd: ctx.io.cwd, store, env: ctx.io.env, peers: opts.peer, intervalSeconds: interval, logger: true, ...(effects ? { effects } : {}) });
      const address = await server.app.listen({ port, host: opts.host });
      ctx.warn(`serving ${store.location} on ${address} (peers: ${opts.peer.length === 0 ? 'none' : opts.peer.join(' ')})`);
      server.antiEntropy.start();
      server.effects?.start();
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
