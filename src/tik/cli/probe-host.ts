import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ProbeHost, ProbeRun } from '../app/probe.js';
import { isPostgresUrl } from '../store/postgres/postgres-url.js';
import type { CliContext } from './context.js';
import { storeTarget } from './store-access.js';

/** A probe's standard output and error are read up to this many bytes each; past it the probe fails. */
export const PROBE_OUTPUT_LIMIT = 1024 * 1024;

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * The machine side of `tik probe`: repositories are directories beside the store (in the
 * directory holding it: the root, or the parent of a hidden `.tik/`; the working directory for a
 * PostgreSQL store), and a probe runs under `/bin/sh` — a script file if the text names one (as
 * given, else relative to the store), otherwise as a shell command (`sh -c`) — with the caller's
 * environment plus the ticket's variables. A probe still running after `timeoutS` seconds is killed
 * with its whole process group, and the run reports that it timed out.
 */
export function probeHost(ctx: CliContext, storeDir: string | undefined, timeoutS: number): ProbeHost {
  const target = storeTarget(ctx);
  const holder = isPostgresUrl(target) ? ctx.io.cwd : basename(target) === '.tik' ? dirname(target) : target;
  return {
    repository: async (name) => {
      const dir = join(holder, name);
      return isDir(dir) ? dir : undefined;
    },
    run: (probe, cwd, env) => {
      const script = [ctx.path(probe), ...(storeDir !== undefined ? [join(storeDir, probe)] : [])].find(isFile);
      const argv = script !== undefined ? [script] : ['-c', probe];
      const base: Record<string, string> = {};
      for (const [k, v] of Object.entries(ctx.io.env)) if (v !== undefined) base[k] = v;
      return runSh(argv, cwd, { ...base, ...env }, timeoutS);
    },
  };
}

/** The signals that end `tik` while a probe runs: its process group, led by the probe, goes with it. */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs `/bin/sh` as the leader of a process group of its own, so that a timeout (or an output
 * overflow) kills everything the probe started, not only the shell: a `sleep` or a `git fetch` it
 * waits on would otherwise keep running, and keep its output pipes open.
 */
function runSh(argv: readonly string[], cwd: string, env: Record<string, string>, timeoutS: number): Promise<ProbeRun> {
  return new Promise((resolvePromise) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn('/bin/sh', argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (e) {
      // spawn throws (not emits) on an argument it cannot pass, e.g. a NUL in the environment
      resolvePromise({ status: null, stdout: '', stderr: `cannot run /bin/sh: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let overflow = false;
    let timedOut = false;
    let done = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL'); // the group is gone already; the shell alone, if it is not
      }
    };
    // a detached group gets no terminal signal: a Ctrl-C of tik must still end the probe
    const onSignal = (signal: NodeJS.Signals): void => {
      killGroup();
      for (const s of ENDING_SIGNALS) process.removeListener(s, onSignal);
      process.kill(process.pid, signal);
    };
    for (const s of ENDING_SIGNALS) process.on(s, onSignal);
    const finish = (run: ProbeRun): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const s of ENDING_SIGNALS) process.removeListener(s, onSignal);
      resolvePromise(run);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      // a process that left the group (setsid) may still hold the pipes: stop reading them
      child.stdout.destroy();
      child.stderr.destroy();
    }, timeoutS * 1000);
    const collect = (into: Buffer[]) => {
      let size = 0;
      return (chunk: Buffer) => {
        size += chunk.length;
        if (size > PROBE_OUTPUT_LIMIT) {
          // an endless probe must not fill memory: stop it, and report it as failed
          overflow = true;
          killGroup();
          return;
        }
        into.push(chunk);
      };
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    let startError: string | undefined;
    child.on('error', (e) => {
      // a spawn that fails may never close
      startError = e.message;
      finish({ status: null, stdout: '', stderr: `cannot run /bin/sh: ${e.message}` });
    });
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) return finish({ status: null, stdout: '', stderr, timedOutS: timeoutS });
      finish({
        status: overflow || startError !== undefined ? null : code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: overflow ? `its output passed ${PROBE_OUTPUT_LIMIT} bytes` : startError !== undefined ? `cannot run /bin/sh: ${startError}` : stderr,
      });
    });
  });
}
