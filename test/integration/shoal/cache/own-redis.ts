/**
 * A private redis-server for the hot-table tests, on a free (or given) loopback port, so a test
 * can SIGKILL it mid-run without touching the suite's shared Redis. Cleans up its directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../support/services.js';

/** A private redis-server on a free port. */
export class OwnRedis {
  private constructor(readonly port: number, private readonly child: ChildProcess, private readonly dir: string) {}
  static async start(fixedPort?: number): Promise<OwnRedis> {
    const port = fixedPort ?? (await freePort());
    const dir = mkdtempSync(join(tmpdir(), 'shoal-hot-redis-'));
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    for (let i = 0; i < 300; i++) {
      const ok = await new Promise<boolean>((resolve) => {
        const s = new Socket();
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
        s.connect(port, '127.0.0.1');
      });
      if (ok) return new OwnRedis(port, child, dir);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    throw new Error('redis-server did not start');
  }
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

