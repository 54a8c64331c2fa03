import { afterAll, describe, expect, it } from 'vitest';
import { buildTikServer, tokenHash, type Authorship, type TikServer } from '../../../src/tik/server/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { collectBundle, encodeBundle, encodeIdList, indexStore } from '../../../src/tik/sync/index.js';
import { cleanup, supportStore, tik } from '../cli/harness.js';

// Issue 12: sync push is a write, authenticated like the write API. Before, a replica under the
// default policy took a push from anyone: unsigned events naming any actor went straight in.

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

/** A store holding one ticket by each of `actors`; returns the dir and the ticket ids. */
async function source(actors: readonly string[]): Promise<{ dir: string; tickets: string[] }> {
  const dir = await supportStore();
  dirs.push(dir);
  const tickets: string[] = [];
  for (const a of actors) tickets.push((await tik(dir, ['--actor', a, 'new', 'support-request', '--title', `by ${a}`])).stdout.trim());
  return { dir, tickets };
}

/** Everything of `tickets` (events, definitions) as a push bundle, as a sync would send it. */
async function bundleOf(dir: string, tickets: readonly string[]): Promise<Buffer> {
  const store = await openFileStore(dir);
  const index = await indexStore(store);
  const ids = [...index.ticketOf].filter(([, t]) => tickets.includes(t)).map(([id]) => id);
  return Buffer.from(encodeBundle(await collectBundle(store, index, ids)));
}

async function replica(authorship?: Authorship): Promise<{ dir: string; server: TikServer }> {
  const dir = await supportStore();
  dirs.push(dir);
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { HOME: dir }, ...(authorship ? { authorship } : {}) });
  servers.push(server);
  return { dir, server };
}

const push = async (server: TikServer, bundle: Buffer, token?: string): Promise<{ status: number; code?: string; refused?: { ticket: string; code: string }[]; stored?: number }> => {
  const res = await server.app.inject({ method: 'POST', url: '/sync/v1/push', headers: { 'content-type': 'application/octet-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) }, payload: bundle });
  const j = JSON.parse(res.body) as { error?: { code: string }; refused?: { ticket: string; code: string }[]; stored?: number };
  return { status: res.statusCode, ...(j.error ? { code: j.error.code } : {}), ...(j.refused ? { refused: j.refused } : {}), ...(j.stored !== undefined ? { stored: j.stored } : {}) };
};
const fetchStatus = async (server: TikServer, token?: string): Promise<number> =>
  (await server.app.inject({ method: 'POST', url: '/sync/v1/fetch', headers: { 'content-type': 'application/octet-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) }, payload: Buffer.from(encodeIdList([])) })).statusCode;
const held = async (dir: string): Promise<readonly string[]> => (await openFileStore(dir)).ticketIds();

describe('sync push authorship', () => {
  it('closed (the default): an anonymous push of an unsigned event naming any actor is 401 and stores nothing; pulls stay open', async () => {
    const src = await source(['mallory']);
    const { dir, server } = await replica();
    expect(await push(server, await bundleOf(src.dir, src.tickets))).toMatchObject({ status: 401, code: 'auth/unauthenticated' });
    expect(await push(server, await bundleOf(src.dir, src.tickets), 'made-up')).toMatchObject({ status: 401, code: 'auth/unauthenticated' });
    expect(await held(dir)).toEqual([]);
    expect(await fetchStatus(server)).toBe(200);
  });

  it('tokens: a peer token pushes any actor; a person’s token pushes only events of its own actors', async () => {
    const tokens = new Map([
      [tokenHash('token-alice'), { principal: 'alice', actors: ['alice'], sync: false }],
      [tokenHash('token-peer'), { principal: 'replica-b', actors: [], sync: true }],
      [tokenHash('token-reader'), { principal: 'reader', actors: [], sync: false }],
    ]);
    const src = await source(['alice', 'bob']);
    const [aliceTicket, bobTicket] = src.tickets as [string, string];
    const { dir, server } = await replica({ mode: 'tokens', tokens });
    expect(await push(server, await bundleOf(src.dir, [bobTicket]))).toMatchObject({ status: 401, code: 'auth/unauthenticated' });
    expect(await push(server, await bundleOf(src.dir, [bobTicket]), 'token-alice')).toMatchObject({ status: 403, code: 'auth/forbidden' });
    expect(await push(server, await bundleOf(src.dir, [bobTicket]), 'token-reader')).toMatchObject({ status: 403, code: 'auth/forbidden' });
    expect(await held(dir)).toEqual([]);
    // both tickets in one push: alice's is stored, bob's is refused and named
    const mixed = await push(server, await bundleOf(src.dir, [aliceTicket, bobTicket]), 'token-alice');
    expect(mixed).toMatchObject({ status: 200, stored: 1, refused: [{ ticket: bobTicket, code: 'auth/forbidden' }] });
    expect(await held(dir)).toEqual([aliceTicket]);
    // a peer replica relays anyone's events
    expect(await push(server, await bundleOf(src.dir, [bobTicket]), 'token-peer')).toMatchObject({ status: 200, stored: 1 });
    expect([...(await held(dir))].sort()).toEqual([aliceTicket, bobTicket].sort());
    // sync reads need a token, any token
    expect(await fetchStatus(server)).toBe(401);
    expect(await fetchStatus(server, 'token-reader')).toBe(200);
  });

  it('open and signed take an anonymous push (signed judges each event by its signature)', async () => {
    const src = await source(['mallory']);
    const open = await replica({ mode: 'open' });
    expect(await push(open.server, await bundleOf(src.dir, src.tickets))).toMatchObject({ status: 200, stored: 1 });
    const signed = await replica({ mode: 'signed' });
    expect(await push(signed.server, await bundleOf(src.dir, src.tickets))).toMatchObject({ status: 403, code: 'auth/unsigned' });
  });
});
