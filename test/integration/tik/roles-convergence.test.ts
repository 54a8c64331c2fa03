import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { until } from '../../support/until.js';
import { cleanup, supportStore, tik } from '../../tik/cli/harness.js';

// Issue 13: two replicas holding identical events derived different stages because roles.edn is
// not replicated, and nothing said so. With real `tik serve` processes: the divergence is reported
// on /health, by `tik sync` and by `tik verify --peer`; after `tik roles publish` the register
// travels as events, both replicas derive with the same roles, and their status agrees.

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  dirs.forEach(cleanup);
});

interface Health {
  roles: { source: string; status: string; digest: string | null; differsFrom: string[] };
  peerStatus: { url: string; state: string; roles?: { verdict: string } }[];
}
const health = async (s: ServerProcess): Promise<Health> => (await (await fetch(`${s.url}/health`)).json()) as Health;
const reached = async (dir: string, ticket: string): Promise<string[]> => (JSON.parse((await tik(dir, ['status', ticket, '--json'])).stdout) as { reached: string[] }).reached;

describe('the roles register converges across replicas', () => {
  it('reports differing roles on /health, in tik sync and in tik verify, and converges after tik roles publish', async () => {
    const a = await supportStore();
    const b = await supportStore();
    dirs.push(a, b);
    // the same process, a different register: on b, seb is not a triager
    writeFileSync(join(b, 'roles.edn'), '{:triager {:members ["someone-else"]} :billing {:members ["billing"]}}\n');
    const made = JSON.parse((await tik(a, ['new', 'support-request', '--title', 'roles matter', '--json'])).stdout) as { ticket: string };
    expect((await tik(a, ['set', made.ticket, 'category=technical', 'severity=high'])).code).toBe(0);

    const [pa, pb] = [await freePort(), await freePort()];
    const [ua, ub] = [`http://127.0.0.1:${pa}`, `http://127.0.0.1:${pb}`];
    const start = async (dir: string, port: number, peer: string): Promise<ServerProcess> => {
      const s = await startServer(['--root', dir, 'serve', '--port', String(port), '--peer', peer, '--interval', '0.3'], { cwd: dir, port, system: 'tik', readyPath: '/health', env: { TIK_ACTOR: 'replica' } });
      servers.push(s);
      return s;
    };
    const sa = await start(a, pa, ub);
    const sb = await start(b, pb, ua);

    // identical events, different stages — and now every surface says why
    await until('the ticket at b', async () => ((await tik(b, ['status', made.ticket, '--json'])).code === 0 ? true : undefined));
    expect(await reached(a, made.ticket)).toContain(':triaged');
    expect(await reached(b, made.ticket)).not.toContain(':triaged');
    const ha = await until('a reports b’s roles differ', async () => {
      const h = await health(sa);
      return h.roles.differsFrom.includes(ub) ? h : undefined;
    });
    expect(ha.roles.source).toBe('file');
    expect(ha.peerStatus.find((p) => p.url === ub)?.roles?.verdict).toBe('differs');
    const synced = await tik(a, ['sync', ub]);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/roles differ from http:\/\/127\.0\.0\.1:\d+: this replica derives with sha256-/);
    const syncedJson = JSON.parse((await tik(a, ['sync', ub, '--json'])).stdout) as { roles: { verdict: string } };
    expect(syncedJson.roles.verdict).toBe('differs');
    const verify = await tik(a, ['verify', '--peer', ub]);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toMatch(/FAIL roles differ from/);

    // publish a's register: it travels as events and both replicas derive with it
    expect((await tik(a, ['roles', 'publish'], { TIK_ACTOR: 'seb' })).code).toBe(0);
    const digest = (await health(sa)).roles.digest;
    await until('b derives with the published register', async () => {
      const h = await health(sb);
      return h.roles.source === 'ticket' && h.roles.digest === digest ? true : undefined;
    });
    expect(await reached(b, made.ticket)).toEqual(await reached(a, made.ticket));
    expect((await tik(b, ['status', made.ticket, '--json'])).stdout).toBe((await tik(a, ['status', made.ticket, '--json'])).stdout);
    expect(JSON.parse((await tik(b, ['roles', 'show', '--json'])).stdout)).toMatchObject({ source: 'ticket', status: 'present', fileDiffers: true });
    const ok = await tik(a, ['verify', '--peer', ub]);
    expect([ok.code, ok.stdout]).toEqual([0, expect.not.stringMatching(/FAIL/)]);
    await until('/health no longer reports a difference', async () => ((await health(sa)).roles.differsFrom.length === 0 && (await health(sb)).roles.differsFrom.length === 0 ? true : undefined));
    expect((await tik(a, ['ls', '--all', '--json'])).stdout).toBe((await tik(b, ['ls', '--all', '--json'])).stdout);
  });
});
