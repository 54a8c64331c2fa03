import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CodedError } from '../../../core/errors.js';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';

const DEFAULT_DIR = '.tik-fleet';
/** Longer than HAProxy needs to see a draining replica fail two checks one second apart. */
const DRAIN_SECONDS = 3;
const MAX_FLEET = 16;

function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new TikError('cli/usage', `${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`, { where: flag, hint: `e.g. ${flag} ${min}` });
  return n;
}

/** Where replica `name` of the fleet in `dir` keeps its store. */
export const replicaRoot = (dir: string, name: string): string => join(resolve(dir), 'replicas', name);

/**
 * `tik fleet up|status|down`: N `tik serve` replicas behind HAProxy on this machine. Each replica
 * has its own SQLite store under D/replicas/ (tik shares nothing: T2), seeded from the --root store
 * (events, definitions, roles) when it is created, and syncs with every other replica by
 * anti-entropy (--peer). docs/operations.md.
 */
export function registerFleet(verb: Command, ctx: CliContext): void {
  verb
    .command('up')
    .description('start N `tik serve` replicas (own stores, seeded from --root, syncing with each other) and an HAProxy in front; arguments after -- go to every `tik serve`')
    .requiredOption('-n <count>', `replicas (1–${MAX_FLEET})`)
    .option('--port <port>', 'the balancer port on 127.0.0.1 (default: a free one)')
    .option('--dir <dir>', 'state, replica stores, generated haproxy.cfg and logs/', DEFAULT_DIR)
    .option('--interval <seconds>', 'seconds between anti-entropy rounds of each replica', '2')
    .option('--shutdown-grace <seconds>', 'each replica exits within this after SIGTERM', '10')
    .option('--json', 'print the fleet state as JSON')
    .argument('[serve-args...]', 'extra `tik serve` arguments (after --), e.g. -- --tokens tokens.json')
    .action(async (serveArgs: string[], opts: { n: string; port?: string; dir: string; interval: string; shutdownGrace: string; json?: boolean }) => {
      const n = integer('-n', opts.n, 1, MAX_FLEET);
      const port = opts.port === undefined ? undefined : integer('--port', opts.port, 1, 65535);
      const grace = integer('--shutdown-grace', opts.shutdownGrace, DRAIN_SECONDS + 1, 3600);
      if (!(Number(opts.interval) > 0 && Number(opts.interval) <= 86_400)) {
        throw new TikError('cli/usage', `--interval must be a number of seconds between 0 and 86400, got ${JSON.stringify(opts.interval)}`, { where: '--interval', hint: 'e.g. --interval 2' });
      }
      const { fleetUp, readFleetState, runningPids } = await loadFleet();
      const dir = ctx.path(opts.dir);
      const previous = readFleetState(dir);
      if (previous && runningPids(previous).length > 0) {
        throw new CodedError('FLEET_DIR_IN_USE', `a fleet is already running from ${dir}`, { where: dir, hint: `stop it first (tik fleet down --dir ${opts.dir}) or choose another --dir` });
      }
      // Seed each new replica from the --root store: events, signatures, blobs and the side files
      // (definitions, roles.edn, …), which are configuration and do not travel by sync.
      const { openStore } = await import('../store-access.js');
      const { copyStore, closeStore, initSqliteStore } = await import('../../store/index.js');
      const source = await openStore(ctx);
      for (let i = 1; i <= n; i++) {
        const root = replicaRoot(dir, `tik-${i}`);
        if (existsSync(root)) continue;
        mkdirSync(root, { recursive: true });
        const target = await initSqliteStore(root, { hidden: false });
        try {
          await copyStore(source, target, { sideFiles: 'all' });
        } finally {
          await closeStore(target);
        }
        ctx.warn(`seeded replica tik-${i} from ${source.location}`);
      }
      const state = await fleetUp({
        system: 'tik',
        dir,
        n,
        ...(port !== undefined ? { port } : {}),
        bin: process.argv[1]!,
        retryOn: 'write',
        stopBoundMs: (grace + 5) * 1000,
        memberArgs: (i, p, ports) => [
          '--root', replicaRoot(dir, `tik-${i + 1}`),
          'serve', '--port', String(p), '--interval', opts.interval,
          '--drain-delay', String(DRAIN_SECONDS), '--shutdown-grace', String(grace),
          ...ports.filter((q) => q !== p).flatMap((q) => ['--peer', `http://127.0.0.1:${q}`]),
          ...serveArgs,
        ],
      });
      const { renderUp } = await import('../../../core/fleet/fleet-report.js');
      if (opts.json) ctx.json(state);
      else ctx.io.out(renderUp(state, dir));
    });
  verb
    .command('status')
    .description('each replica: pid, port, /ready, and HAProxy’s view of it')
    .option('--dir <dir>', 'the fleet directory', DEFAULT_DIR)
    .option('--json', 'JSON: {system, dir, url, balancer: {pid, running}, members: [{name, port, pid, running, ready, balancer?: {status, check, sessions}}]}')
    .action(async (opts: { dir: string; json?: boolean }) => {
      const { fleetStatus } = await loadFleet();
      const { renderStatus } = await import('../../../core/fleet/fleet-report.js');
      const s = await fleetStatus(ctx.path(opts.dir));
      if (opts.json) ctx.json(s);
      else ctx.io.out(renderStatus(s));
    });
  verb
    .command('down')
    .description('SIGTERM every replica (each drains and exits within its grace; SIGKILL past it), then stop HAProxy; the replica stores stay')
    .option('--dir <dir>', 'the fleet directory', DEFAULT_DIR)
    .option('--json', 'JSON: {stopped, killed, balancerStopped}')
    .action(async (opts: { dir: string; json?: boolean }) => {
      const { fleetDown } = await loadFleet();
      const { renderDown } = await import('../../../core/fleet/fleet-report.js');
      const r = await fleetDown(ctx.path(opts.dir));
      if (opts.json) ctx.json(r);
      else ctx.io.out(renderDown(r));
    });
}

async function loadFleet() {
  const [fleet, state] = await Promise.all([import('../../../core/fleet/fleet.js'), import('../../../core/fleet/fleet-state.js')]);
  return { ...fleet, ...state };
}
