/**
 * Graceful shutdown of a real `tik serve` process (issue 16): `/ready` answers 200 while serving;
 * on SIGTERM it answers 503 at once while the API is still served through the drain delay, then
 * the replica exits 0; a second signal exits 1 at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { exitCode, signalTwice, startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { until } from '../../support/until.js';
import { cleanup, tempDir, tik } from '../../tik/cli/harness.js';

describe('tik serve: graceful shutdown', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const s of servers) await s.kill();
    dirs.forEach(cleanup);
  });

  const serve = async (...flags: string[]): Promise<ServerProcess> => {
    const root = tempDir('tik-shutdown-');
    dirs.push(root);
    expect((await tik(root, ['init'])).code).toBe(0);
    const port = await freePort();
    const s = await startServer(['--root', root, 'serve', '--port', String(port), ...flags], { cwd: root, port, system: 'tik', readyPath: '/ready' });
    servers.push(s);
    return s;
  };

  it('answers /ready 503 from the signal on, serves through the drain, and exits 0', async () => {
    const s = await serve('--drain-delay', '2', '--shutdown-grace', '30');
    expect(await (await fetch(`${s.url}/ready`)).json()).toEqual({ status: 'ready' });
    const exited = exitCode(s);
    s.child.kill('SIGTERM');
    const ready = await until('/ready 503', async () => {
      const r = await fetch(`${s.url}/ready`);
      return r.status === 503 ? ((await r.json()) as unknown) : undefined;
    });
    expect(ready).toEqual({ status: 'draining' });
    // the API is still served while the balancer notices
    expect((await fetch(`${s.url}/api/ls`)).status).toBe(200);
    expect(await exited).toBe(0);
    expect(s.output()).toMatch(/stopped cleanly/);
  });

  it('exits 1 at once on a second signal', async () => {
    const s = await serve('--drain-delay', '600', '--shutdown-grace', '600');
    expect(await signalTwice(s)).toBe(1);
  });
});
