import { afterAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { AntiEntropy, buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { encodeBundle, httpTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, snapshot, supportStore, tik } from '../cli/harness.js';

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

async function replica(peers: string[] = []): Promise<{ dir: string; server: TikServer }> {
  const dir = await supportStore();
  dirs.push(dir);
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, peers, authorship: { mode: 'open' } });
  servers.push(server);
  return { dir, server };
}

const json = <T = Record<string, unknown>>(body: string): T => JSON.parse(body) as T;

describe('tik serve', () => {
  it('writes through the API and reads the same JSON as the CLI, seeing CLI writes at once (no stale cache)', async () => {
    const { dir, server } = await replica();
    const created = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--title', 'printer on fire'], actor: 'seb' } });
    expect(created.statusCode).toBe(200);
    const ticket = json<{ ticket: string }>(created.body).ticket;
    const set = await server.app.inject({ method: 'POST', url: '/api/set', payload: { args: [ticket, 'category=technical'], actor: 'seb' } });
    expect(set.statusCode).toBe(200);
    expect(json<{ events: { type: string }[] }>(set.body).events.map((e) => e.type)).toEqual([':fact/assert']);

    const viaApi = await server.app.inject({ method: 'GET', url: `/api/status/${ticket}` });
    expect(viaApi.statusCode).toBe(200);
    const viaCli = await tik(dir, ['status', ticket, '--json']);
    expect(json(viaApi.body)).toEqual(json(viaCli.stdout));
    expect(json<{ facts: Record<string, { value: string }> }>(viaApi.body).facts.category!.value).toBe(':technical');

    // a write by the CLI to the same store is visible to the very next read
    expect((await tik(dir, ['set', ticket, 'priority=high'])).code).toBe(0);
    const after = json<{ facts: Record<string, { value: string }> }>((await server.app.inject({ method: 'GET', url: `/api/status/${ticket}` })).body);
    expect(after.facts.priority!.value).toBe(':high');

    for (const url of [`/api/explain/${ticket}`, `/api/log/${ticket}`, '/api/next', '/api/ls?all=true']) {
      const r = await server.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(200);
      const verb = url.split('/')[2]!.split('?')[0]!;
      const cli = await tik(dir, [verb, ...(url.includes(ticket) ? [ticket] : []), ...(url.includes('all') ? ['--all'] : []), '--json']);
      expect(json(r.body), url).toEqual(json(cli.stdout));
    }
    // The board: an HTML shell (its script renders from /api/board, which holds the tickets).
    const page = await server.app.inject({ method: 'GET', url: '/' });
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('<script src="/ui/app.js" defer></script>');
    const board = json<{ cards: { ticket: string; title: string }[] }>((await server.app.inject({ method: 'GET', url: '/api/board' })).body);
    expect(board.cards.map((c) => c.title)).toContain('printer on fire');
    expect(json((await server.app.inject({ method: 'GET', url: '/health' })).body)).toMatchObject({ status: 'ok' });
  });

  it('refuses bad API input with a coded error and a status', async () => {
    const { server } = await replica();
    const unknown = await server.app.inject({ method: 'GET', url: '/api/status/ffffffff' });
    expect(unknown.statusCode).toBe(404);
    expect(json<{ error: { code: string } }>(unknown.body).error.code).toBe('ticket/unknown');
    const verb = await server.app.inject({ method: 'POST', url: '/api/attach', payload: { args: ['x', '/etc/passwd'] } });
    expect([verb.statusCode, json<{ error: { code: string } }>(verb.body).error.code]).toEqual([404, 'server/unknown-verb']);
    const opt = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--root', '/tmp'] } });
    expect([opt.statusCode, json<{ error: { code: string } }>(opt.body).error.code]).toEqual([400, 'server/bad-option']);
    const usage = await server.app.inject({ method: 'POST', url: '/api/set', payload: { args: [] } });
    expect(usage.statusCode).toBe(400);
  });

  it('accepts an option value that starts with a dash, and still refuses an option that is not allowed after it', async () => {
    const { server } = await replica();
    const created = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--title', '-42 degrees'], actor: 'seb' } });
    expect(created.statusCode, created.body).toBe(200);
    const ticket = json<{ ticket: string }>(created.body).ticket;
    expect(json<{ title: string }>((await server.app.inject({ method: 'GET', url: `/api/status/${ticket}` })).body).title).toBe('-42 degrees');
    const smuggled = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--title', 't', '--root', '/tmp'] } });
    expect([smuggled.statusCode, json<{ error: { code: string } }>(smuggled.body).error.code]).toEqual([400, 'server/bad-option']);
  });

  it('syncs over HTTP, refuses tampered or truncated pushes without touching the store, and runs anti-entropy', async () => {
    const a = await replica();
    const addr = await a.server.app.listen({ port: 0, host: '127.0.0.1' });
    const created = json<{ ticket: string }>((await a.server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request'], actor: 'seb' } })).body);
    await a.server.app.inject({ method: 'POST', url: '/api/set', payload: { args: [created.ticket, 'category=technical'], actor: 'seb' } });

    const b = await replica([addr]);
    const r = await syncWith(await openFileStore(b.dir), httpTransport(addr));
    expect(r.pulled).toBe(2);
    const statusA = (await tik(a.dir, ['status', created.ticket, '--json'])).stdout;
    expect((await tik(b.dir, ['status', created.ticket, '--json'])).stdout).toBe(statusA);

    // B writes; B's anti-entropy pushes to A
    expect((await tik(b.dir, ['set', created.ticket, 'priority=high'])).code).toBe(0);
    const round = await b.server.antiEntropy.round();
    expect(round[addr]).toMatchObject({ pushed: 1, pulled: 0 });
    expect((await tik(a.dir, ['status', created.ticket, '--json'])).stdout).toBe((await tik(b.dir, ['status', created.ticket, '--json'])).stdout);

    // a peer sending altered bytes or a cut-off body is refused; A's files are unchanged
    const before = snapshot(a.dir);
    const storeB = await openFileStore(b.dir);
    const [first] = await storeB.events(created.ticket);
    const tampered = encodeBundle({
      processes: [],
      blobs: [],
      sidecars: [],
      events: [{ ticket: created.ticket, id: first!.id.replace(/.$/, (c) => (c === '0' ? '1' : '0')), bytes: first!.bytes }],
    });
    for (const [body, code] of [
      [tampered, 'sync/refused'],
      [tampered.subarray(0, tampered.length - 10), 'sync/truncated'],
    ] as const) {
      const res = await fetch(`${addr}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    const garbage = await fetch(`${addr}/sync/v1/reconcile`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Uint8Array.of(0x61, 0, 9) });
    expect(garbage.status).toBe(400);
    expect(snapshot(a.dir)).toEqual(before);

    // `tik sync URL` from a third store: pulls everything, then a second run is one round trip
    const c = await supportStore();
    dirs.push(c);
    const once = await tik(c, ['sync', addr, '--json']);
    expect(once.code).toBe(0);
    expect(json<{ pulled: number; pushed: number }>(once.stdout)).toMatchObject({ pulled: 3, pushed: 0 });
    expect(once.stderr).toMatch(/reconciled in \d+ round trip\(s\): 3 to pull, 0 to push/);
    const second = await tik(c, ['sync', addr]);
    expect(second.stdout).toBe(`synced with ${addr}: pulled 0, pushed 0 (1 round trip(s), 21 reconciliation bytes)\n`);
    expect((await tik(c, ['sync', addr, '--pull', '--push'])).code).toBe(2);
    const bad = await tik(c, ['sync', 'ftp://x']);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringMatching(/^tik: sync\/bad-url: a peer URL must be http or https/)]);

    // an unreachable peer is a clear error, not a crash
    await expect(syncWith(storeB, httpTransport('http://127.0.0.1:1'))).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:1\//);
  });

  it('anti-entropy runs periodically until stopped and survives a peer that is down', async () => {
    const a = await replica();
    const addr = await a.server.app.listen({ port: 0, host: '127.0.0.1' });
    const created = json<{ ticket: string }>((await a.server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request'], actor: 'seb' } })).body);
    const dir = await supportStore();
    dirs.push(dir);
    const store = await openFileStore(dir);
    const logs: string[] = [];
    const ae = new AntiEntropy(store, ['http://127.0.0.1:1', addr], 50, { info: (_o, m) => logs.push(`info ${m}`), warn: (_o, m) => logs.push(`warn ${m}`) });
    ae.start();
    for (let i = 0; i < 800 && ae.rounds < 2; i++) await new Promise((r) => setTimeout(r, 25));
    await ae.stop();
    const roundsAtStop = ae.rounds;
    expect(roundsAtStop).toBeGreaterThanOrEqual(1);
    expect((await store.ticketIds()).includes(created.ticket)).toBe(true);
    expect(logs).toContain('warn anti-entropy: peer sync failed');
    expect(logs).toContain('info anti-entropy synced');
    await new Promise((r) => setTimeout(r, 150));
    expect(ae.rounds).toBe(roundsAtStop); // stopped means stopped
  });
});

