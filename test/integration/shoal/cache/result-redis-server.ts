/**
 * A private redis-server for one test file (or benchmark): started on a free port, killed with
 * SIGKILL to simulate an outage, restarted on the same port. Not the suite's shared Redis.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../../support/services.js';

/** The redis-server binary, if installed. */
export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server', ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'redis-server'))].find((p) => existsSync(p));

export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Start a server on a free port and wait until it answers PING. */
  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort(), mkdtempSync(join(tmpdir(), 'shoal-private-redis-')));
    await r.restart();
    return r;
  }

  /** (Re)start on the same port. */
  async restart(): Promise<void> {
    if (!REDIS_SERVER) throw new Error('redis-server is not installed');
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir], { stdio: 'ignore' });
    this.child = child;
    const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    for (let i = 0; i < 400; i++) {
      if (child.exitCode !== null) break;
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    child.kill('SIGKILL');
    throw new Error(`redis-server did not start on port ${this.port}`);
  }

  /** SIGKILL the server and wait for it to exit. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  get killed(): boolean {
    return this.child?.signalCode === 'SIGKILL';
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
