/**
 * What a local fleet keeps in its directory D: `fleet.json` (the members, their ports and pids,
 * the balancer's pid), `haproxy.cfg`, the HAProxy admin socket, and `logs/<member>.log`. A pid is
 * only believed while that process is alive and its command line is the one the fleet started
 * (a recycled pid is another process).
 */
import { openSync, closeSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CodedError } from '../errors.js';

export interface FleetMemberState {
  readonly name: string;
  readonly port: number;
  /** The arguments after the CLI script (`serve …`, or `--root … serve …`). */
  readonly args: readonly string[];
  readonly pid: number | null;
}

export interface FleetState {
  readonly version: 1;
  readonly system: 'shoal' | 'tik';
  /** The balancer's port on 127.0.0.1. */
  readonly port: number;
  /** The CLI script every member runs (node `bin` `args…`). */
  readonly bin: string;
  readonly haproxy: { readonly pid: number | null; readonly config: string; readonly socket: string };
  readonly members: readonly FleetMemberState[];
  /** How long `fleet down` waits for members to stop after SIGTERM before SIGKILL. */
  readonly stopBoundMs: number;
}

export const fleetFile = (dir: string): string => join(dir, 'fleet.json');
export const logFile = (dir: string, name: string): string => join(dir, 'logs', `${name}.log`);

export function readFleetState(dir: string): FleetState | undefined {
  let text: string;
  try {
    text = readFileSync(fleetFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const s = JSON.parse(text) as FleetState;
    if (s.version !== 1 || !Array.isArray(s.members)) throw new Error('not a fleet state');
    return s;
  } catch (e) {
    throw new CodedError('FLEET_STATE_INVALID', `${fleetFile(dir)} is not a fleet state file: ${(e as Error).message}`, {
      where: fleetFile(dir),
      hint: 'use another --dir, or remove the file if no fleet runs from this directory',
    });
  }
}

export function writeFleetState(dir: string, state: FleetState): void {
  const tmp = `${fleetFile(dir)}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, fleetFile(dir));
}

/** True while `pid` runs and its command line holds every one of `marks` (on Linux; elsewhere: while it runs). */
export function isRunning(pid: number | null, marks: readonly string[]): boolean {
  if (pid === null || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: gone; EPERM: it runs as another user, so it is not one we started
    return false;
  }
  let stat: string;
  let cmdline: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return true; // no /proc: the signal test is all there is
  }
  // a zombie has exited; its parent has not reaped it yet
  if (/\) Z /.test(stat)) return false;
  const args = cmdline.split('\0');
  return marks.every((m) => args.includes(m));
}

/** The command-line marks of a member (its script and its port) and of the balancer (its config). */
export const memberMarks = (state: FleetState, m: FleetMemberState): string[] => [state.bin, '--port', String(m.port)];
export const haproxyMarks = (state: FleetState): string[] => [state.haproxy.config];

/** Processes of `state` that still run. */
export function runningPids(state: FleetState): number[] {
  const pids: number[] = [];
  for (const m of state.members) if (isRunning(m.pid, memberMarks(state, m))) pids.push(m.pid!);
  if (isRunning(state.haproxy.pid, haproxyMarks(state))) pids.push(state.haproxy.pid!);
  return pids;
}

/**
 * Holds D for one `fleet up`/`down` at a time: `fleet.lock` made exclusively, holding our pid.
 * A lock whose holder is gone is taken over.
 */
export function lockFleetDir(dir: string): () => void {
  const path = join(dir, 'fleet.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(readFileSync(path, 'utf8').trim());
      let alive: boolean;
      try {
        process.kill(holder, 0);
        alive = holder !== process.pid;
      } catch {
        alive = false;
      }
      if (alive) {
        throw new CodedError('FLEET_DIR_BUSY', `another fleet command (pid ${holder}) is working on ${dir}`, { where: path, hint: 'wait for it to finish, or use another --dir' });
      }
      rmSync(path, { force: true });
    }
  }
  throw new CodedError('FLEET_DIR_BUSY', `could not lock ${dir}`, { where: path, hint: 'retry; remove fleet.lock if no fleet command runs' });
}
