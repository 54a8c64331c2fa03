import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, lockFleetDir, readFleetState, runningPids, writeFleetState, type FleetState } from '../../../src/core/fleet/fleet-state.js';

describe('fleet state', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'fleet-state-'));
    dirs.push(d);
    return d;
  };
  const args = readFileSync(`/proc/${process.pid}/cmdline`, 'utf8').split('\0');

  it('believes a pid only while it runs the command the fleet started (a recycled pid is not a member)', () => {
    expect(isRunning(process.pid, [args[0]!])).toBe(true);
    expect(isRunning(process.pid, ['/not/the/fleet/bin.js', '--port', '1'])).toBe(false);
    expect(isRunning(null, [])).toBe(false);
    expect(isRunning(2 ** 22 + 12345, [])).toBe(false);
  });

  it('sees no running process in a state whose pids now belong to other commands', () => {
    const d = dir();
    const state: FleetState = {
      version: 1,
      system: 'shoal',
      port: 1,
      bin: '/nowhere/main.js',
      stopBoundMs: 1000,
      haproxy: { pid: process.pid, config: join(d, 'haproxy.cfg'), socket: join(d, 'haproxy.sock') },
      members: [{ name: 'shoal-1', port: 2, args: [], pid: process.pid }],
    };
    writeFleetState(d, state);
    expect(readFleetState(d)).toEqual(state);
    expect(runningPids(state)).toEqual([]);
  });

  it('lets one fleet command hold a directory at a time, and takes over a lock whose holder is gone', async () => {
    const d = dir();
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(join(d, 'fleet.lock'), String(other.pid));
      expect(() => lockFleetDir(d)).toThrow(/another fleet command/);
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    const release = lockFleetDir(d);
    expect(readFileSync(join(d, 'fleet.lock'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(d, 'fleet.lock'))).toBe(false);
  });

  it('refuses a fleet.json that is not a fleet state', () => {
    const d = dir();
    writeFleetState(d, { version: 2 } as unknown as FleetState);
    expect(() => readFleetState(d)).toThrow(/not a fleet state/);
  });
});
