/**
 * Real server processes for multi-process tests: spawn the compiled CLI, wait for readiness over
 * HTTP, and make sure every process is killed when the test ends, even on failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get as httpsGet } from 'node:https';
import { resolve } from 'node:path';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export function distBin(system: 'shoal' | 'tik'): string {
  return resolve(process.cwd(), `dist/src/${system}/cli/main.js`);
}

/** The status of an HTTPS GET that trusts only `ca` (fetch cannot be given a CA). */
export function httpsStatus(url: string, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsGet(url, { ca, servername: 'localhost' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

export async function startServer(
  args: readonly string[],
  opts: { cwd: string; port: number; env?: NodeJS.ProcessEnv; readyPath?: string; timeoutMs?: number; system?: 'shoal' | 'tik'; /** the server speaks HTTPS with a certificate this CA signed */ tlsCa?: Buffer },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [distBin(opts.system ?? 'shoal'), ...args], {
    cwd: opts.cwd,
    env: { ...process.env, SHOAL_LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.once('exit', () => live.delete(child));
  const url = `${opts.tlsCa ? 'https' : 'http'}://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited before ready:\n${out}`);
    try {
      const ready = `${url}${opts.readyPath ?? '/ready'}`;
      const status = opts.tlsCa ? await httpsStatus(ready, opts.tlsCa) : (await fetch(ready)).status;
      if (status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready within the deadline:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => out,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The exit code of a server process (null when a signal ended it), once it exits. */
export function exitCode(s: ServerProcess): Promise<number | null> {
  return new Promise((r) => (s.child.exitCode !== null || s.child.signalCode !== null ? r(s.child.exitCode) : s.child.once('exit', (code) => r(code))));
}

/** Sends SIGTERM, waits until `/ready` answers 503 (draining), then a second SIGTERM; resolves with the exit code. */
export async function signalTwice(s: ServerProcess): Promise<number | null> {
  const exited = exitCode(s);
  s.child.kill('SIGTERM');
  for (;;) {
    const status = await fetch(`${s.url}/ready`).then((r) => r.status, () => 0);
    if (status === 503) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  s.child.kill('SIGTERM');
  return exited;
}
