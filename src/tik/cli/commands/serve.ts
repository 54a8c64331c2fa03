import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { ShardSpec } from '../../shard/shard-spec.js';
import type { CliContext } from '../context.js';
// The server (fastify, zod) and the effects ledger are loaded by the action, not at start-up.
import type { Authorship } from '../../server/index.js';

const collect = (v: string, prev: string[]): string[] => [...prev, v];


function positive(name: string, text: string, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new TikError('cli/usage', `${name} must be an integer between 0 and ${max}, got ${JSON.stringify(text)}`, { where: name, hint: `e.g. ${name} 7777` });
  }
  return n;
}

/**
 * `tik serve [--port P] [--host H] [--peer URL…] [--interval S] [--shard i/M] [--shard-peer URL…]
 * [--recur PROCESS=CADENCE…] [--recurrences FILE] [--recur-interval S]`: a writable, stateless
 * HTTP replica of the store (or of one shard of it) with periodic anti-entropy against its peers
 * and a recurrence scheduler. Runs until SIGINT/SIGTERM. docs/tik-sync.md.
 */
export function registerServe(verb: Command, ctx: CliContext): void {
  verb
    .option('--port <port>', 'TCP port (0 picks a free one)', '7777')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--peer <url>', 'a peer replica to sync with periodically (repeatable)', collect, [] as string[])
    .option('--interval <seconds>', 'seconds between anti-entropy rounds', '10')
    .option('--effects-db <url>', 'deliver effects.edn webhooks through this shared ledger (sqlite:///… or postgresql://…; docs/tik-effects.md)')
    .option('--shard <i/M>', 'hold and sync only the tickets of shard i of M (hash of the ticket id; docs/tik-sync.md)')
    .option('--shard-peer <url>', 'a replica of another shard, for routing and ls/next across shards (repeatable)', collect, [] as string[])
    .option('--recur <process=cadence>', 'open a ticket of PROCESS every period (daily|weekly|monthly|quarterly|yearly; repeatable)', collect, [] as string[])
    .option('--recurrences <file>', 'recurrences to schedule (default: recurrences.edn beside the store, if present)')
    .option('--recur-interval <seconds>', 'seconds between recurrence scheduler ticks', '60')
    .option('--tokens <file>', 'bearer tokens (JSON: sha256 of each token → principal, the actors it may write and push as, sync); gates reads, writes and sync pushes (a "sync": true peer token may push any actor\'s events)')
    .option('--admit <policy>', 'admission policy: "signed" admits only events signed by their own actor\'s registered key (writes arrive by sync push)')
    .option('--open-writes', 'take API writes and sync pushes from anyone who reaches the port, as the actor they name (a trusted network only; default: neither)')
    .option('--allow-host <name>', 'answer only requests whose Host is this name (repeatable; default: any)', collect, [] as string[])
    .option('--headers-timeout <seconds>', 'close a connection whose request headers are not complete within this', '10')
    .option('--request-timeout <seconds>', 'close a connection whose whole request is not received within this', '300')
    .option('--max-sockets <n>', 'open sockets at most; past it the oldest idle or slow one is closed', '512')
    .option('--max-pushes <n>', 'sync pushes admitted at once (each holds at most 289 MiB); past it and 16 waiting, 503 sync/push-busy', '1')
    .option('--sync-timeout <seconds>', 'per request to a peer during anti-entropy', '60')
    .option('--drain-delay <seconds>', 'after SIGTERM, /ready answers 503 and requests are still served this long before the listener closes (so a balancer notices)', '2')
    .option('--shutdown-grace <seconds>', 'after SIGTERM, exit within this many seconds (drain included); requests still in flight then lose their sockets', '10')
    .option('--sync-max-rounds <n>', 'reconciliation round trips per anti-entropy session before a peer is given up on and quarantined', '2048')
    .action(async (opts: { port: string; host: string; peer: string[]; interval: string; effectsDb?: string; shard?: string; shardPeer: string[]; recur: string[]; recurrences?: string; recurInterval: string; tokens?: string; admit?: string; openWrites?: boolean; allowHost: string[]; headersTimeout: string; requestTimeout: string; maxSockets: string; maxPushes: string; syncTimeout: string; syncMaxRounds: string; drainDelay: string; shutdownGrace: string }) => {
      const { parseShardSpec, shardText } = await import('../../shard/shard-spec.js');
      const { parseRecurFlag } = await import('../../recur/recurrence.js');
      const { defaultRecurrencesFile, readRecurrencesFile } = await import('../../recur/recurrences-file.js');
      const { runClock } = await import('../run-clock.js');
      const { envSigningKey } = await import('../signing-key.js');
      const { openStore, storeTarget } = await import('../store-access.js');
      const { buildTikServer, readTokensFile } = await import('../../server/index.js');
      const { defaultEffectsFile, effectsOptionsFromEnv } = await import('../../effects/index.js');
      const { onShutdownSignals, secondsToMs } = await import('../../../core/graceful-shutdown.js');
      const shutdownMs = (flag: string, text: string): number => {
        const ms = secondsToMs(text, 3600);
        if (ms === undefined) throw new TikError('cli/usage', `${flag} must be a number of seconds between 0 and 3600, got ${JSON.stringify(text)}`, { where: flag, hint: `e.g. ${flag} 5` });
        return ms;
      };
      const drainMs = shutdownMs('--drain-delay', opts.drainDelay);
      const graceMs = shutdownMs('--shutdown-grace', opts.shutdownGrace);
      const port = positive('--port', opts.port, 65535);
      const interval = Number(opts.interval);
      if (!(interval > 0)) throw new TikError('cli/usage', `--interval must be a positive number of seconds, got ${JSON.stringify(opts.interval)}`, { where: '--interval', hint: 'e.g. --interval 5' });
      for (const [flag, urls] of [['--peer', opts.peer], ['--shard-peer', opts.shardPeer]] as const) {
        for (const p of urls) {
          if (!/^https?:\/\/[^\s]+$/.test(p)) throw new TikError('cli/usage', `${flag} must be an http(s) URL, got ${JSON.stringify(p)}`, { where: flag, hint: `e.g. ${flag} http://127.0.0.1:7778` });
        }
      }
      let shard: ShardSpec | undefined;
      try {
        shard = opts.shard === undefined ? undefined : parseShardSpec(opts.shard);
      } catch (e) {
        throw new TikError('cli/usage', (e as TikError).message, { where: '--shard', hint: 'e.g. --shard 0/2' });
      }
      if (opts.admit !== undefined && opts.admit !== 'signed') throw new TikError('cli/usage', `--admit takes "signed", got ${JSON.stringify(opts.admit)}`, { where: '--admit', hint: 'e.g. --admit signed' });
      if (opts.openWrites && (opts.tokens !== undefined || opts.admit !== undefined)) {
        throw new TikError('cli/usage', '--open-writes cannot be combined with --tokens or --admit', { where: '--open-writes', hint: 'choose one write policy' });
      }
      const tokens = opts.tokens !== undefined ? await readTokensFile(ctx.path(opts.tokens)) : undefined;
      const authorship: Authorship =
        opts.admit === 'signed' ? { mode: 'signed', ...(tokens ? { tokens } : {}) } : tokens ? { mode: 'tokens', tokens } : opts.openWrites ? { mode: 'open' } : { mode: 'closed' };
      const root = storeTarget(ctx); // a directory, or a postgresql:// URL
      const store = await openStore(ctx);
      const effectsDb = opts.effectsDb ?? ctx.io.env.TIK_EFFECTS_DB;
      const effects = effectsDb ? { ...effectsOptionsFromEnv(effectsDb, defaultEffectsFile(store, ctx.io.cwd), ctx.io.env), now: () => runClock(ctx).now() } : undefined;
      const recurInterval = Number(opts.recurInterval);
      if (!(recurInterval > 0)) throw new TikError('cli/usage', `--recur-interval must be a positive number of seconds, got ${JSON.stringify(opts.recurInterval)}`, { where: '--recur-interval', hint: 'e.g. --recur-interval 60' });
      // The actor is part of every minted byte: replicas must agree on it (default tik-backend).
      const recurActor = ctx.globals().actor ?? ctx.io.env.TIK_ACTOR ?? 'tik-backend';
      const recurrences = [
        ...(await readRecurrencesFile(opts.recurrences !== undefined ? ctx.path(opts.recurrences) : defaultRecurrencesFile(store, ctx.io.cwd), opts.recurrences !== undefined, recurActor)),
        ...opts.recur.map((f) => parseRecurFlag(f, recurActor)),
      ];
      const seconds = (flag: string, text: string): number => {
        const n = Number(text);
        if (!(n > 0 && n <= 86_400)) throw new TikError('cli/usage', `${flag} must be a number of seconds between 0 and 86400, got ${JSON.stringify(text)}`, { where: flag, hint: `e.g. ${flag} 10` });
        return Math.round(n * 1000);
      };
      const limits = {
        headersTimeoutMs: seconds('--headers-timeout', opts.headersTimeout),
        requestTimeoutMs: seconds('--request-timeout', opts.requestTimeout),
        maxSockets: Math.max(1, positive('--max-sockets', opts.maxSockets, 1_000_000)),
        pushes: Math.max(1, positive('--max-pushes', opts.maxPushes, 64)),
      };
      const syncLimits = { requestTimeoutMs: seconds('--sync-timeout', opts.syncTimeout), rounds: Math.max(1, positive('--sync-max-rounds', opts.syncMaxRounds, 1_000_000)) };
      // The replica's own key signs only events that name the replica's own actor (its recurrences).
      const key = envSigningKey(ctx);
      const self = { actor: recurActor, ...(key ? { key } : {}) };
      const server = await buildTikServer({ root, cwd: ctx.io.cwd, store, env: ctx.io.env, authorship, self, ...(ctx.io.env.TIK_PEER_TOKEN ? { peerToken: ctx.io.env.TIK_PEER_TOKEN } : {}), ...(opts.allowHost.length > 0 ? { allowedHosts: opts.allowHost } : {}), peers: opts.peer, intervalSeconds: interval, logger: true, ...(effects ? { effects } : {}), ...(shard ? { shard } : {}), shardPeers: opts.shardPeer, recur: { recurrences, intervalSeconds: recurInterval }, limits, syncLimits });
      const address = await server.app.listen({ port, host: opts.host });
      ctx.warn(`serving ${store.location} on ${address}${shard ? ` as shard ${shardText(shard)}` : ''} (peers: ${opts.peer.length === 0 ? 'none' : opts.peer.join(' ')}; writes: ${authorship.mode})`);
      server.antiEntropy.start();
      server.effects?.start();
      server.startRecur();
      if (recurrences.length > 0) ctx.warn(`scheduling ${recurrences.map((r) => `${r.process} ${r.cadence} as ${r.actor}`).join(', ')}`);
      // SIGTERM/SIGINT: /ready 503 at once, serve on through the drain delay, then stop listening,
      // abort syncs in flight and let requests finish within what is left of the grace. A second
      // signal, or a close that overruns the grace, exits 1 at once: stopping always stops.
      await new Promise<void>((resolve) => {
        onShutdownSignals({
          drainMs,
          graceMs,
          drain: () => server.drain(),
          close: () => server.close(Math.max(0, graceMs - drainMs - 1000)),
          log: (m) => ctx.warn(m),
          exit: (code) => (code === 0 ? resolve() : process.exit(code)),
        });
      });
    });
}
