/**
 * A real Trino for tests: version 476 unpacked from the artifacts Maven fetched into ~/.m2
 * (`.ci/run` fetches them), into a cache directory shared by runs, and started as a coordinator
 * (and optionally a worker) on loopback with Java 25: `node.bind-ip` and
 * `node.internal-address` 127.0.0.1, `catalog.management=dynamic`, a 1.5 GB heap. A node boots
 * in 70–130 s on a busy 2-core machine, so the global setup starts it without waiting and only
 * the trino tests wait for it (`waitTrinoReady`).
 *
 * Or the coordinator at TRINO_URL (one started by hand, reused across test iterations).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './services.js';

export const TRINO_VERSION = '476';
/** Plugins the tests need besides the core (the hive connector reads the Parquet shoal writes). */
export const TRINO_PLUGINS = ['hive', 'memory'] as const;

const m2 = (): string => process.env.M2_REPO ?? join(homedir(), '.m2', 'repository');
const artifact = (name: string, ext: string): string => join(m2(), 'io', 'trino', name, TRINO_VERSION, `${name}-${TRINO_VERSION}.${ext}`);

/** The Java 25 home (Trino 476 needs it). */
export function javaHome(): string {
  return process.env.TRINO_JAVA_HOME ?? '/usr/lib/jvm/temurin-25-jdk-amd64';
}

/** Why a Trino cannot be started here, or undefined when it can. */
export function trinoMissing(): string | undefined {
  if (!existsSync(join(javaHome(), 'bin', 'java'))) return `no Java 25 at ${javaHome()} (set TRINO_JAVA_HOME)`;
  const need = [artifact('trino-server-core', 'tar.gz'), ...TRINO_PLUGINS.map((p) => artifact(`trino-${p}`, 'zip'))];
  const absent = need.filter((f) => !existsSync(f));
  if (absent.length > 0) return `Trino ${TRINO_VERSION} artifacts are not in ${m2()} (${absent.map((f) => f.split('/').pop()).join(', ')}); run the fetch in .ci/run`;
  return undefined;
}

/** The unpacked server (core + plugins) in the cache directory; unpacked once, atomically. */
export function trinoServerDir(): string {
  const cache = process.env.TRINO_CACHE_DIR ?? join(homedir(), '.cache', 'shoal', `trino-${TRINO_VERSION}`);
  const server = join(cache, 'server');
  if (existsSync(join(server, 'lib'))) return server;
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, 'unpack-'));
  try {
    const run = (cmd: string, args: string[], cwd: string) => {
      const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    };
    run('tar', ['xzf', artifact('trino-server-core', 'tar.gz')], tmp);
    const core = join(tmp, `trino-server-core-${TRINO_VERSION}`);
    for (const p of TRINO_PLUGINS) {
      // the JDK's jar tool unpacks a zip: no unzip package needed
      run(join(javaHome(), 'bin', 'jar'), ['xf', artifact(`trino-${p}`, 'zip')], join(core, 'plugin'));
      renameSync(join(core, 'plugin', `trino-${p}-${TRINO_VERSION}`), join(core, 'plugin', p));
    }
    try {
      renameSync(core, server);
    } catch (e) {
      // another run unpacked it first
      if (!existsSync(join(server, 'lib'))) throw e;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return server;
}

export interface TrinoNode {
  readonly url: string;
  readonly nodeId: string;
  readonly dir: string;
  /** The last lines of the node's server log (for failure messages). */
  logTail(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

export interface TrinoNodeOptions {
  /** Absent: a coordinator (which also runs tasks). Present: a worker joining that coordinator. */
  readonly coordinatorUrl?: string;
  readonly nodeId: string;
  readonly heap?: string;
  readonly port?: number;
  /** `node.environment`: a worker must share its coordinator's (default `shoal_test`). */
  readonly environment?: string;
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Start one node (without waiting for it to be ready). */
export async function startTrinoNode(options: TrinoNodeOptions): Promise<TrinoNode> {
  const server = trinoServerDir();
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const dir = mkdtempSync(join(tmpdir(), `shoal-trino-${options.nodeId}-`));
  mkdirSync(join(dir, 'etc', 'catalog'), { recursive: true });
  const coordinator = options.coordinatorUrl === undefined;
  const props = [
    `coordinator=${coordinator}`,
    ...(coordinator ? ['node-scheduler.include-coordinator=true'] : []),
    `http-server.http.port=${port}`,
    `discovery.uri=${options.coordinatorUrl ?? url}`,
    `node.environment=${options.environment ?? 'shoal_test'}`,
    `node.id=${options.nodeId}`,
    'node.bind-ip=127.0.0.1',
    'node.internal-address=127.0.0.1',
    'catalog.management=dynamic',
    // a worker takes its catalogs from the coordinator, and has no web UI: these are coordinator-only
    ...(coordinator ? ['catalog.store=file', 'web-ui.enabled=false'] : []),
    `plugin.dir=${join(server, 'plugin')}`,
    'http-server.log.enabled=false',
  ];
  writeFileSync(join(dir, 'etc', 'config.properties'), props.join('\n') + '\n');
  const log = join(dir, 'server.log');
  const fd = openSync(log, 'a');
  const child = spawn(
    join(javaHome(), 'bin', 'java'),
    [
      `-Xmx${options.heap ?? '1536m'}`,
      '-XX:+UseG1GC',
      '-XX:+ExitOnOutOfMemoryError',
      '-Djdk.attach.allowAttachSelf=true',
      '-XX:+EnableDynamicAgentLoading',
      '--enable-native-access=ALL-UNNAMED',
      '-Dfile.encoding=UTF-8',
      '-Dconfig=etc/config.properties',
      '-cp',
      `${join(server, 'lib')}/*`,
      'io.trino.server.TrinoServer',
    ],
    // the working directory is the node's: etc/ (config, catalogs) and var/ live there
    { cwd: dir, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  let exited = false;
  child.once('exit', () => (exited = true));
  return {
    url,
    nodeId: options.nodeId,
    dir,
    logTail: () => {
      try {
        return readFileSync(log, 'utf8').split('\n').slice(-40).join('\n');
      } catch {
        return '';
      }
    },
    exited: () => exited,
    stop: async () => {
      await killAndWait(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why the node whose directory is `dir` will never start (its log says so), if it says so. */
export function trinoBootFailure(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  let log: string;
  try {
    log = readFileSync(join(dir, 'server.log'), 'utf8');
  } catch {
    return undefined;
  }
  if (!/Configuration is invalid|ERROR\tmain\tio\.trino\.server\.Server|Error: Could not find or load main class|Unrecognized option/.test(log)) return undefined;
  return `the Trino node in ${dir} failed to start:\n${log.split('\n').slice(-25).join('\n')}`;
}

/** Poll until the node at `url` answers GET /v1/info with `"starting": false`; fail fast when its log (in `dir`) shows a failed boot. */
export async function waitTrinoReady(url: string, deadlineMs = 600_000, dir?: string): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const why = trinoBootFailure(dir);
    if (why !== undefined) throw new Error(why);
    try {
      const r = await fetch(`${url}/v1/info`);
      if (r.ok && ((await r.json()) as { starting?: boolean }).starting === false) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`Trino at ${url} did not finish starting within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
