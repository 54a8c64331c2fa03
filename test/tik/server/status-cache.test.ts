// `tik serve` answers GET /api/status from the status cache (issue 18) while the ticket's listed
// event ids, its pin, the register and the time window hold, and exactly as a replica without it
// (TIK_INDEX=off) otherwise: a write or a sync arrival is visible on the next read, and a time
// guard expiring on the replica's own clock changes the answer.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { httpTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, supportStore, tempDir, tik } from '../cli/harness.js';

const dirs: string[] = [];
const servers: TikServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

const HOUR = 3_600_000;

/** A store served twice: with the status cache, and with TIK_INDEX=off; both on one movable clock. */
async function replicas(): Promise<{ dir: string; cached: TikServer; off: TikServer; clock: { ms: number } }> {
  const dir = await supportStore();
  dirs.push(dir);
  const clock = { ms: Date.parse(T0) };
  const build = async (env: Record<string, string>): Promise<TikServer> => {
    const s = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { HOME: dir, ...env }, clock: () => clock.ms, authorship: { mode: 'open' } });
    servers.push(s);
    return s;
  };
  return { dir, cached: await build({}), off: await build({ TIK_INDEX: 'off' }), clock };
}

async function statusOf(s: TikServer, ticket: string): Promise<{ code: number; body: string; warnings: unknown }> {
  const r = await s.app.inject({ method: 'GET', url: `/api/status/${ticket}` });
  return { code: r.statusCode, body: r.body, warnings: r.headers['tik-warnings'] };
}

/** The cached replica's answer, checked against the uncached one's. */
async function read(r: { cached: TikServer; off: TikServer }, ticket: string): Promise<Record<string, unknown>> {
  const want = await statusOf(r.off, ticket);
  const got = await statusOf(r.cached, ticket);
  expect(got).toEqual(want);
  expect(got.code).toBe(200);
  return JSON.parse(got.body) as Record<string, unknown>;
}

async function create(s: TikServer, title: string): Promise<string> {
  const r = await s.app.inject({ method: 'POST', url: '/api/tickets', payload: { process: 'support-request', title, actor: 'seb' } });
  expect(r.statusCode, r.body).toBe(200);
  return (JSON.parse(r.body) as { ticket: string }).ticket;
}

const cacheFiles = (dir: string): string[] => (existsSync(join(dir, '.tik-index', 'status')) ? readdirSync(join(dir, '.tik-index', 'status'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.json')) : []);

describe('tik serve status reads through the status cache', () => {
  it('sees a write through the API on the next read', async () => {
    const r = await replicas();
    const t = await create(r.cached, 'Login fails');
    const before = await read(r, t);
    expect(before.current).toEqual([':received']);
    expect(cacheFiles(r.dir)).toEqual([join(t.slice(0, 2), `${t}.json`)]);
    expect(await read(r, t)).toEqual(before);
    const w = await r.cached.app.inject({ method: 'POST', url: `/api/tickets/${t}/facts`, payload: { facts: [{ key: 'category', value: 'technical' }, { key: 'severity', value: 'high' }], actor: 'seb' } });
    expect(w.statusCode, w.body).toBe(200);
    const after = await read(r, t);
    expect(after.reached).not.toEqual(before.reached);
    expect(after.facts).toMatchObject({ category: { value: ':technical' } });
  });

  it('sees events that arrive by sync, and events copied into the store behind its back, on the next read', async () => {
    const r = await replicas();
    const t = await create(r.cached, 'Export is slow');
    const before = await read(r, t);
    const addr = await r.cached.app.listen({ port: 0, host: '127.0.0.1' });
    const peer = tempDir();
    dirs.push(peer);
    cpSync(r.dir, peer, { recursive: true });
    expect((await tik(peer, ['set', t, 'category=billing'])).code).toBe(0);
    const pushed = await syncWith(await openFileStore(peer), httpTransport(addr));
    expect(pushed.pushed).toBe(1);
    const synced = await read(r, t);
    expect(synced).not.toEqual(before);
    expect(synced.facts).toMatchObject({ category: { value: ':billing' } });

    // a file copied in (a git pull, an rsync): the listing changes, so does the answer
    expect((await tik(peer, ['set', t, 'severity=high'])).code).toBe(0);
    const events = join('tickets', t, 'events');
    for (const f of readdirSync(join(peer, events))) if (!existsSync(join(r.dir, events, f))) cpSync(join(peer, events, f), join(r.dir, events, f));
    expect((await read(r, t)).facts).toMatchObject({ severity: { value: ':high' } });
  });

  it('derives again when a time guard expires on the replica\'s clock, and when the clock goes back', async () => {
    const r = await replicas();
    const t = await create(r.cached, 'Nothing yet');
    expect((await read(r, t)).current).toEqual([':received']);
    expect((await read(r, t)).current).toEqual([':received']);
    r.clock.ms += 47 * HOUR;
    expect((await read(r, t)).current).toEqual([':received']);
    r.clock.ms += 2 * HOUR; // 49 h after creation: :escalated needs 48 h without a category
    expect((await read(r, t)).current).toEqual([':escalated']);
    expect((await read(r, t)).current).toEqual([':escalated']);
    r.clock.ms -= 10 * HOUR;
    expect((await read(r, t)).current).toEqual([':received']);
    // and ?at= asks for any instant
    const at = await r.cached.app.inject({ method: 'GET', url: `/api/status/${t}?at=2026-07-10T11:00:00Z` });
    expect(at.body).toBe((await r.off.app.inject({ method: 'GET', url: `/api/status/${t}?at=2026-07-10T11:00:00Z` })).body);
    expect((JSON.parse(at.body) as { current: string[] }).current).toEqual([':escalated']);
  });

  it('answers an unknown ticket, a prefix and an unresolvable definition as the replica without it', async () => {
    const r = await replicas();
    const t = await create(r.cached, 'Login fails');
    await read(r, t.slice(0, 8));
    const unknown = await statusOf(r.cached, '0123abcd');
    expect(unknown).toEqual(await statusOf(r.off, '0123abcd'));
    expect(unknown.code).toBe(404);
  });
});
