import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { fleetDown, fleetStatus, fleetUp, MAX_FLEET_SIZE } from '../../../core/fleet/fleet.js';
import { renderDown, renderStatus, renderUp } from '../../../core/fleet/fleet-report.js';
import { readInstanceConfig } from './open-instance.js';

const DEFAULT_DIR = '.shoal-fleet';
/** Longer than HAProxy needs to see a draining member fail two checks one second apart. */
const DRAIN_SECONDS = 3;

const integer = (min: number, max: number) => (v: string): number => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
  return n;
};

/**
 * `shoal fleet up|status|down`: N `shoal serve` instances of one config on free loopback ports
 * behind one HAProxy (docs/operations.md). They share what the config points at (registry,
 * refresh catalog, snapshot store, Redis if configured); nothing else is shared.
 */
export function registerFleet(program: Command): void {
  const fleet = program.command('fleet').description('run N instances of one config behind HAProxy on this machine (docs/operations.md)');
  fleet
    .command('up')
    .description('start N `shoal serve` instances and an HAProxy in front of them; arguments after -- go to every `shoal serve`')
    .requiredOption('-n <count>', `instances (1–${MAX_FLEET_SIZE})`, integer(1, MAX_FLEET_SIZE))
    .requiredOption('--config <file>', 'the config every instance serves')
    .option('--port <port>', 'the balancer port on 127.0.0.1 (default: a free one)', integer(1, 65535))
    .option('--dir <dir>', 'state, generated haproxy.cfg and logs/', DEFAULT_DIR)
    .option('--shutdown-grace <seconds>', 'each instance exits within this after SIGTERM', integer(DRAIN_SECONDS + 1, 3600), 30)
    .option('--json', 'print the fleet state as JSON')
    .argument('[serve-args...]', 'extra `shoal serve` arguments (after --)')
    .action(async (serveArgs: string[], opts: { n: number; config: string; port?: number; dir: string; shutdownGrace: number; json?: boolean }) => {
      // fail on a bad config here, not in N logs
      readInstanceConfig(opts.config);
      const config = resolve(opts.config);
      const state = await fleetUp({
        system: 'shoal',
        dir: opts.dir,
        n: opts.n,
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        bin: process.argv[1]!,
        retryOn: 'read',
        // the balancer probes /ready every second: request lines at info would fill the logs
        env: { SHOAL_LOG_LEVEL: process.env.SHOAL_LOG_LEVEL ?? 'warn' },
        stopBoundMs: (opts.shutdownGrace + 5) * 1000,
        memberArgs: (_i, port) => ['serve', '--config', config, '--port', String(port), '--drain-delay', String(DRAIN_SECONDS), '--shutdown-grace', String(opts.shutdownGrace), ...serveArgs],
      });
      process.stdout.write(opts.json ? `${JSON.stringify(state, null, 2)}\n` : renderUp(state, resolve(opts.dir)));
    });
  fleet
    .command('status')
    .description('each instance: pid, port, /ready, and HAProxy’s view of it')
    .option('--dir <dir>', 'the fleet directory', DEFAULT_DIR)
    .option('--json', 'JSON: {system, dir, url, balancer: {pid, running}, members: [{name, port, pid, running, ready, balancer?: {status, check, sessions}}]}')
    .action(async (opts: { dir: string; json?: boolean }) => {
      const s = await fleetStatus(opts.dir);
      process.stdout.write(opts.json ? `${JSON.stringify(s, null, 2)}\n` : renderStatus(s));
    });
  fleet
    .command('down')
    .description('SIGTERM every instance (each drains and exits within its grace; SIGKILL past it), then stop HAProxy')
    .option('--dir <dir>', 'the fleet directory', DEFAULT_DIR)
    .option('--json', 'JSON: {stopped, killed, balancerStopped}')
    .action(async (opts: { dir: string; json?: boolean }) => {
      const r = await fleetDown(opts.dir);
      process.stdout.write(opts.json ? `${JSON.stringify(r)}\n` : renderDown(r));
    });
}
