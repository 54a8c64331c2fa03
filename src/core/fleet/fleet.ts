/**
 * A local fleet: N `serve` processes of one system on free loopback ports behind one HAProxy
 * process whose active `GET /ready` checks take a draining, stopped or dead member out of
 * rotation. `fleetUp` starts it (members first, each waited for until ready, then the balancer),
 * `fleetStatus` reports it, `fleetDown` stops it (SIGTERM, bounded, then SIGKILL; the balancer
 * last), `restartMember` starts one member again on its port. All state lives in the directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { CodedError } from '../errors.js';
import { renderHaproxyConfig } from './haproxy-config.js';
import { haproxyView, type HaproxyServerView } from './haproxy-stats.js';
import {
  haproxyMarks,
  isRunning,
  lockFleetDir,
  logFile,
  memberMarks,
  readFleetState,
  runningPids,
  writeFleetState,
  type FleetMemberState,
  type FleetState,
} from './fleet-state.js';

/** At most this many members: each is a full server process on one machine. */
export const MAX_FLEET_SIZE = 16;

export interface FleetSpec {
  readonly system: 'shoal' | 'tik';
  readonly dir: string;
  readonly n: number;
  /** The balancer's port (0 or absent: a free one). */
  readonly port?: number;
  /** The CLI script each member runs with node. */
  readonly bin: string;
  /** The member's arguments, given its index (0-based), its port and every member's port. */
  memberArgs(index: number, port: number, ports: readonly number[]): string[];
  /** See HaproxyConfigOptions.retryOn. */
  readonly retryOn: 'read' | 'write';
  /** How long `down` waits after SIGTERM before SIGKILL (the members' shutdown grace and a margin). */
  readonly stopBoundMs: number;
  readonly env?: NodeJS.ProcessEnv;
  /** How long to wait for a member to answer `/ready` 200 (default 120 s). */
  readonly readyTimeoutMs?: number;
}

export interface MemberStatus {
  readonly name: string;
  readonly port: number;
  readonly pid: number | null;
  readonly running: boolean;
  /** `/ready` as the member answers it: `ready`, `not-ready` (503: warming or draining) or `unreachable`. */
  readonly ready: 'ready' | 'not-ready' | 'unreachable';
  /** HAProxy's view (`UP`, `DOWN`, `UP 1/2`, …); absent when the balancer is not answering. */
  readonly balancer?: HaproxyServerView;
}

export interface FleetStatus {
  readonly system: 'shoal' | 'tik';
  readonly dir: string;
  readonly url: string;
  readonly balancer: { readonly pid: number | null; readonly running: boolean };
  readonly members: readonly MemberStatus[];
}

/** The HAProxy binary: `$HAPROXY`, else /usr/sbin/haproxy, else `haproxy` on PATH. */
export function haproxyBinary(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [env.HAPROXY, '/usr/sbin/haproxy', '/usr/local/sbin/haproxy'].filter((c): c is string => !!c);
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0) return 'haproxy';
  throw new CodedError('FLEET_HAPROXY_MISSING', 'HAProxy is not installed (looked at $HAPROXY, /usr/sbin/haproxy and PATH)', {
    hint: 'install it (Debian: apt-get install haproxy; its system service is not needed) or set HAPROXY to its path',
  });
}

/** A free TCP port on 127.0.0.1 (free when asked: another process could take it before we bind). */
export function freeLoopbackPort(port = 0): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) =>
      rej(
        e.code === 'EADDRINUSE'
          ? new CodedError('FLEET_PORT_BUSY', `port ${port} on 127.0.0.1 is in use`, { where: '--port', hint: 'choose another --port, or omit it for a free one' })
          : e,
      ),
    );
    s.listen(port, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The status `/ready` answers on a member, bounded by `timeoutMs`. */
async function readyOf(port: number, timeoutMs = 1000): Promise<MemberStatus['ready']> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    await r.body?.cancel();
    return r.status === 200 ? 'ready' : 'not-ready';
  } catch {
    return 'unreachable';
  }
}

/** Starts `command args…` detached (it outlives this process), its output appended to D/logs/<name>.log. */
function spawnDetached(command: string, args: readonly string[], dir: string, name: string, env: NodeJS.ProcessEnv): { pid: number; exited: () => boolean } {
  const fd = openSync(logFile(dir, name), 'a');
  try {
    const child = spawn(command, args, { cwd: dir, detached: true, stdio: ['ignore', fd, fd], env });
    let gone = false;
    child.once('exit', () => (gone = true));
    child.once('error', () => (gone = true));
    child.unref();
    if (child.pid === undefined) throw new CodedError('FLEET_SPAWN_FAILED', `could not start ${name} (${command})`, { where: logFile(dir, name) });
    return { pid: child.pid, exited: () => gone };
  } finally {
    closeSync(fd);
  }
}

const spawnMember = (bin: string, dir: string, m: Pick<FleetMemberState, 'name' | 'args'>, env: NodeJS.ProcessEnv) => spawnDetached(process.execPath, [bin, ...m.args], dir, m.name, env);

async function waitReady(dir: string, name: string, port: number, exited: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (exited()) {
      throw new CodedError('FLEET_MEMBER_FAILED', `${name} exited before it was ready`, { where: logFile(dir, name), hint: `read ${logFile(dir, name)}` });
    }
    if ((await readyOf(port)) === 'ready') return;
    if (Date.now() > end) {
      throw new CodedError('FLEET_MEMBER_FAILED', `${name} did not answer /ready 200 within ${Math.round(timeoutMs / 1000)} s`, { where: logFile(dir, name), hint: `read ${logFile(dir, name)}` });
    }
    await sleep(150);
  }
}

/** Starts the fleet described by `spec` in `spec.dir`; refuses a directory another running fleet owns. */
export async function fleetUp(spec: FleetSpec): Promise<FleetState> {
  if (!Number.isInteger(spec.n) || spec.n < 1 || spec.n > MAX_FLEET_SIZE) {
    throw new CodedError('FLEET_SIZE', `-n must be an integer from 1 to ${MAX_FLEET_SIZE}, got ${spec.n}`, { where: '-n', hint: 'e.g. -n 3' });
  }
  const dir = resolve(spec.dir);
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const unlock = lockFleetDir(dir);
  const started: number[] = [];
  try {
    const previous = readFleetState(dir);
    if (previous && runningPids(previous).length > 0) {
      throw new CodedError('FLEET_DIR_IN_USE', `a fleet is already running from ${dir} (pids ${runningPids(previous).join(', ')})`, {
        where: dir,
        hint: `stop it first (fleet down --dir ${dir}) or choose another --dir`,
      });
    }
    const haproxy = haproxyBinary(spec.env);
    const port = await freeLoopbackPort(spec.port ?? 0);
    const ports: number[] = [];
    while (ports.length < spec.n) {
      const p = await freeLoopbackPort();
      if (p !== port && !ports.includes(p)) ports.push(p);
    }
    const prefix = spec.system;
    const env = { ...process.env, ...spec.env };
    let members: FleetMemberState[] = ports.map((p, i) => ({ name: `${prefix}-${i + 1}`, port: p, args: spec.memberArgs(i, p, ports), pid: null }));
    const base = { version: 1 as const, system: spec.system, port, bin: resolve(spec.bin), stopBoundMs: spec.stopBoundMs };
    const config = join(dir, 'haproxy.cfg');
    const socket = join(dir, 'haproxy.sock');
    // members start together and are waited for together (startup is mostly I/O and catalog work)
    const spawned = members.map((m) => ({ m, ...spawnMember(base.bin, dir, m, env) }));
    started.push(...spawned.map((s) => s.pid));
    members = spawned.map((s) => ({ ...s.m, pid: s.pid }));
    writeFleetState(dir, { ...base, haproxy: { pid: null, config, socket }, members });
    await Promise.all(spawned.map((s) => waitReady(dir, s.m.name, s.m.port, s.exited, spec.readyTimeoutMs ?? 120_000)));
    writeFileSync(config, renderHaproxyConfig({ port, members, statsSocket: socket, retryOn: spec.retryOn }));
    const check = spawnSync(haproxy, ['-c', '-q', '-f', config], { encoding: 'utf8' });
    if (check.status !== 0) {
      throw new CodedError('FLEET_HAPROXY_CONFIG', `HAProxy refused the generated configuration: ${(check.stderr || check.stdout).trim().slice(0, 2000)}`, { where: config });
    }
    const hp = spawnDetached(haproxy, ['-db', '-f', config], dir, 'haproxy', env);
    started.push(hp.pid);
    const state: FleetState = { ...base, haproxy: { pid: hp.pid, config, socket }, members };
    writeFleetState(dir, state);
    // ready when HAProxy's own checks see every member up
    const end = Date.now() + 30_000;
    for (;;) {
      if (hp.exited()) throw new CodedError('FLEET_HAPROXY_FAILED', 'HAProxy exited at start', { where: logFile(dir, 'haproxy'), hint: `read ${logFile(dir, 'haproxy')}` });
      const view = await haproxyView(socket).catch(() => []);
      if (view.length === members.length && view.every((v) => v.status === 'UP')) break;
      if (Date.now() > end) throw new CodedError('FLEET_HAPROXY_FAILED', 'HAProxy did not see every member up within 30 s', { where: logFile(dir, 'haproxy') });
      await sleep(200);
    }
    return state;
  } catch (e) {
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    throw e;
  } finally {
    unlock();
  }
}

function requireState(dir: string): FleetState {
  const state = readFleetState(resolve(dir));
  if (!state) throw new CodedError('FLEET_NOT_FOUND', `no fleet in ${resolve(dir)} (no fleet.json)`, { where: resolve(dir), hint: 'start one with fleet up --dir DIR, or pass the --dir it was started with' });
  return state;
}

/** Each member's pid, whether it runs, its `/ready`, and HAProxy's view of it. */
export async function fleetStatus(dir: string): Promise<FleetStatus> {
  const state = requireState(dir);
  const lbRunning = isRunning(state.haproxy.pid, haproxyMarks(state));
  const view = lbRunning ? await haproxyView(state.haproxy.socket).catch(() => undefined) : undefined;
  const members = await Promise.all(
    state.members.map(async (m): Promise<MemberStatus> => {
      const running = isRunning(m.pid, memberMarks(state, m));
      const balancer = view?.find((v) => v.name === m.name);
      return { name: m.name, port: m.port, pid: running ? m.pid : null, running, ready: running ? await readyOf(m.port) : 'unreachable', ...(balancer ? { balancer } : {}) };
    }),
  );
  return { system: state.system, dir: resolve(dir), url: `http://127.0.0.1:${state.port}`, balancer: { pid: lbRunning ? state.haproxy.pid : null, running: lbRunning }, members };
}

async function waitGone(pid: number, marks: readonly string[], boundMs: number): Promise<boolean> {
  const end = Date.now() + boundMs;
  while (isRunning(pid, marks)) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export interface DownReport {
  /** Members that stopped on SIGTERM within the bound. */
  readonly stopped: readonly string[];
  /** Members killed (SIGKILL) because they overran the bound. */
  readonly killed: readonly string[];
  readonly balancerStopped: boolean;
}

/**
 * SIGTERM to every running member (each drains and exits within its shutdown grace), SIGKILL to
 * any still running after `stopBoundMs`, then the balancer. The directory keeps its logs.
 */
export async function fleetDown(dir: string): Promise<DownReport> {
  const state = requireState(dir);
  const unlock = lockFleetDir(resolve(dir));
  try {
    const running = state.members.filter((m) => isRunning(m.pid, memberMarks(state, m)));
    for (const m of running) signal(m.pid!, 'SIGTERM');
    const stopped: string[] = [];
    const killed: string[] = [];
    await Promise.all(
      running.map(async (m) => {
        if (await waitGone(m.pid!, memberMarks(state, m), state.stopBoundMs)) return stopped.push(m.name);
        signal(m.pid!, 'SIGKILL');
        await waitGone(m.pid!, memberMarks(state, m), 5000);
        return killed.push(m.name);
      }),
    );
    let balancerStopped = false;
    if (isRunning(state.haproxy.pid, haproxyMarks(state))) {
      // the members are gone: nothing is left to drain through it
      signal(state.haproxy.pid!, 'SIGTERM');
      balancerStopped = await waitGone(state.haproxy.pid!, haproxyMarks(state), 5000);
      if (!balancerStopped) signal(state.haproxy.pid!, 'SIGKILL');
    }
    writeFleetState(resolve(dir), { ...state, haproxy: { ...state.haproxy, pid: null }, members: state.members.map((m) => ({ ...m, pid: null })) });
    return { stopped: stopped.sort(), killed: killed.sort(), balancerStopped };
  } finally {
    unlock();
  }
}

/** Starts member `name` again on its port (after it died or was killed) and waits until it is ready. */
export async function restartMember(dir: string, name: string, env: NodeJS.ProcessEnv = {}, readyTimeoutMs = 120_000): Promise<FleetMemberState> {
  const state = requireState(dir);
  const m = state.members.find((x) => x.name === name);
  if (!m) throw new CodedError('FLEET_NOT_FOUND', `no member ${name} in the fleet of ${resolve(dir)}`, { hint: `members: ${state.members.map((x) => x.name).join(', ')}` });
  if (isRunning(m.pid, memberMarks(state, m))) return m;
  const s = spawnMember(state.bin, resolve(dir), m, { ...process.env, ...env });
  const next = { ...m, pid: s.pid };
  writeFleetState(resolve(dir), { ...state, members: state.members.map((x) => (x.name === name ? next : x)) });
  await waitReady(resolve(dir), name, m.port, s.exited, readyTimeoutMs);
  return next;
}
