/**
 * Real services for integration tests: PostgreSQL, Redis and MariaDB started from the installed
 * binaries into temporary directories on free loopback ports, and torn down afterwards — or the
 * servers named by PG_URL, REDIS_URL and MYSQL_URL when those are set.
 *
 * Outside CI a missing binary yields a `Missing` record (the suites skip loudly, naming the Debian
 * package to install); with CI=true the caller turns it into a failure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type ServiceName = 'postgres' | 'redis' | 'mariadb';

export interface Running {
  readonly name: ServiceName;
  readonly url: string;
  /** How it was obtained: started by us, or given by an env URL. */
  readonly origin: 'started' | 'env';
  stop(): Promise<void>;
}

export interface Missing {
  readonly name: ServiceName;
  readonly missing: string;
}

export const DEBIAN_PACKAGE: Record<ServiceName, string> = {
  postgres: 'postgresql',
  redis: 'redis-server',
  mariadb: 'mariadb-server',
};

const ENV_URL: Record<ServiceName, string> = { postgres: 'PG_URL', redis: 'REDIS_URL', mariadb: 'MYSQL_URL' };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function which(cmd: string, extraDirs: string[] = []): string | undefined {
  for (const dir of [...extraDirs, ...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/sbin']) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

function postgresBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(base, versions[0], 'bin');
  }
  const initdb = which('initdb');
  const postgres = which('postgres');
  if (initdb && postgres) return initdb.slice(0, initdb.lastIndexOf('/'));
  return undefined;
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Look up a system user's uid/gid (for running PostgreSQL as `postgres` when we are root). */
function userIds(user: string): { uid: number; gid: number } | undefined {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', user], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) return undefined;
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, sig) => {
    exited = `exited with ${code ?? sig}`;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${what} ${exited} before accepting connections`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
      s.connect(port, '127.0.0.1');
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not accept connections on port ${port} within ${timeoutMs} ms`);
}

function collectOutput(child: ChildProcess): () => string {
  let out = '';
  const add = (b: Buffer): void => {
    out = (out + b.toString()).slice(-4000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => out;
}

async function killAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill(signal);
  });
}

export async function startPostgres(): Promise<Running | Missing> {
  if (process.env.PG_URL) return fromEnv('postgres', process.env.PG_URL);
  const bin = postgresBinDir();
  if (!bin) return { name: 'postgres', missing: 'initdb/postgres not found (looked in /usr/lib/postgresql/*/bin and PATH)' };
  const dir = mkdtempSync(join(tmpdir(), 'shoal-pg-'));
  const data = join(dir, 'data');
  const root = isRoot();
  const ids = root ? userIds('postgres') : undefined;
  if (root && !ids) return { name: 'postgres', missing: 'running as root but there is no `postgres` user to run the server as' };
  if (ids) {
    chownSync(dir, ids.uid, ids.gid);
    chmodSync(dir, 0o700);
  }
  const spawnOpts = ids ? { uid: ids.uid, gid: ids.gid } : {};
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'], {
    encoding: 'utf8',
    ...spawnOpts,
    cwd: dir,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const child = spawn(
    join(bin, 'postgres'),
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
      '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOpts, cwd: dir },
  );
  const output = collectOutput(child);
  try {
    await waitForPort(port, child, 'postgres');
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${output()}`, { cause: e });
  }
  // Ready to accept TCP is not ready to serve: wait until a real login succeeds.
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import('pg');
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => undefined);
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    name: 'postgres',
    url,
    origin: 'started',
    async stop() {
      await killAndWait(child, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startRedis(): Promise<Running | Missing> {
  if (process.env.REDIS_URL) return fromEnv('redis', process.env.REDIS_URL);
  const bin = which('redis-server');
  if (!bin) return { name: 'redis', missing: 'redis-server not found on PATH' };
  const dir = mkdtempSync(join(tmpdir(), 'shoal-redis-'));
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
    '--protected-mode', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  try {
    await waitForPort(port, child, 'redis-server');
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${output()}`, { cause: e });
  }
  return {
    name: 'redis',
    url: `redis://127.0.0.1:${port}`,
    origin: 'started',
    async stop() {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startMariadb(): Promise<Running | Missing> {
  if (process.env.MYSQL_URL) return fromEnv('mariadb', process.env.MYSQL_URL);
  const server = which('mariadbd', ['/usr/sbin']) ?? which('mysqld', ['/usr/sbin']);
  const install = which('mariadb-install-db') ?? which('mysql_install_db');
  if (!server || !install) return { name: 'mariadb', missing: 'mariadbd / mariadb-install-db not found' };
  const dir = mkdtempSync(join(tmpdir(), 'shoal-maria-'));
  const data = join(dir, 'data');
  const userArgs = isRoot() ? ['--user=root'] : [];
  const init = spawnSync(install, ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal',
    '--skip-test-db', ...userArgs], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`mariadb-install-db failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const child = spawn(server, ['--no-defaults', `--datadir=${data}`, `--port=${port}`, '--bind-address=127.0.0.1',
    `--socket=${join(dir, 'mysqld.sock')}`, `--pid-file=${join(dir, 'mysqld.pid')}`, '--skip-log-bin',
    '--innodb-flush-log-at-trx-commit=0', '--innodb-buffer-pool-size=64M', '--skip-name-resolve=0', ...userArgs],
  { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  try {
    await waitForPort(port, child, 'mariadbd');
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`${(e as Error).message}\n${output()}`, { cause: e });
  }
  const url = `mysql://root@127.0.0.1:${port}/mysql`;
  const mysql = await import('mysql2/promise');
  for (let i = 0; ; i++) {
    try {
      const c = await mysql.createConnection(url);
      await c.end();
      break;
    } catch (e) {
      if (i > 100) throw new Error(`${(e as Error).message}\n${output()}`, { cause: e });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    name: 'mariadb',
    url,
    origin: 'started',
    async stop() {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function fromEnv(name: ServiceName, url: string): Running {
  return { name, url, origin: 'env', stop: async () => undefined };
}

export function isMissing(s: Running | Missing): s is Missing {
  return 'missing' in s;
}

export function envVarFor(name: ServiceName): string {
  return ENV_URL[name];
}
