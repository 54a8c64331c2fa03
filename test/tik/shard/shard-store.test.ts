import { afterAll, describe, expect, it } from 'vitest';
import { ShardStore } from '../../../src/tik/shard/shard-store.js';
import { shardOf } from '../../../src/tik/shard/shard-spec.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { collectBundle, encodeBundle, indexStore, localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, snapshot, supportStore, tik } from '../cli/harness.js';
import { buildTikServer } from '../../../src/tik/server/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

async function storeWith(n: number): Promise<string> {
  const dir = await supportStore();
  dirs.push(dir);
  for (let i = 0; i < n; i++) {
    const r = await tik(dir, ['new', 'support-request', '--title', `t${i}`]);
    expect(r.code).toBe(0);
    expect((await tik(dir, ['set', r.stdout.trim(), 'category=technical'])).code).toBe(0);
  }
  return dir;
}

const byShard = (ids: readonly string[], i: number): string[] => ids.filter((t) => shardOf(t, 2) === i);

describe('ShardStore (sync restricted to a shard)', () => {
  it('two replicas of a shard exchange exactly that shard’s events, and then agree in one round trip despite foreign tickets', async () => {
    const a = await storeWith(8);
    const b = await storeWith(6);
    const [rawA, rawB] = [await openFileStore(a), await openFileStore(b)];
    const [idsA, idsB] = [await rawA.ticketIds(), await rawB.ticketIds()];
    expect(byShard([...idsA, ...idsB], 0).length).toBeGreaterThan(0);
    expect(byShard([...idsA, ...idsB], 1).length).toBeGreaterThan(0);

    const [a0, b0] = [new ShardStore(rawA, { index: 0, count: 2 }), new ShardStore(rawB, { index: 0, count: 2 })];
    expect(await a0.ticketIds()).toEqual(byShard(idsA, 0));
    const first = await syncWith(a0, localTransport(b0));
    expect(first.pulled + first.pushed).toBe(2 * (byShard(idsA, 0).length + byShard(idsB, 0).length));
    // shard 0 is now the union on both sides; each side's shard-1 tickets stayed where they were
    expect(byShard(await rawA.ticketIds(), 0)).toEqual(byShard([...idsA, ...idsB], 0).sort());
    expect(byShard(await rawB.ticketIds(), 0)).toEqual(byShard([...idsA, ...idsB], 0).sort());
    expect(byShard(await rawA.ticketIds(), 1)).toEqual(byShard(idsA, 1));
    expect(byShard(await rawB.ticketIds(), 1)).toEqual(byShard(idsB, 1));
    const second = await syncWith(a0, localTransport(b0));
    expect(second).toMatchObject({ rounds: 1, need: 0, have: 0, pulled: 0, pushed: 0 });
    // without the view, the stores still differ (the foreign tickets): the restriction is what makes them agree
    expect((await syncWith(rawA, localTransport(rawB), { direction: 'pull' })).need).toBeGreaterThan(0);
  });

  it('refuses a bundle carrying a ticket of another shard, writing nothing', async () => {
    const a = await storeWith(4);
    const b = await storeWith(0);
    const rawA = await openFileStore(a);
    const foreign = byShard(await rawA.ticketIds(), 1);
    expect(foreign.length).toBeGreaterThan(0);
    const index = await indexStore(rawA);
    const ids = [...index.ticketOf].filter(([, t]) => t === foreign[0]).map(([id]) => id);
    const bundle = encodeBundle(await collectBundle(rawA, index, ids));
    const before = snapshot(b);
    const server = await buildTikServer({ root: b, store: await openFileStore(b), env: { TIK_NOW: T0, HOME: b }, shard: { index: 0, count: 2 }, authorship: { mode: 'open' } });
    const res = await server.app.inject({ method: 'POST', url: '/sync/v1/push', headers: { 'content-type': 'application/octet-stream', 'x-tik-shard': '0/2' }, payload: Buffer.from(bundle) });
    await server.close();
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'sync/refused', message: expect.stringMatching(/belongs to shard 1\/2, not to this replica's shard 0\/2/) } });
    // and the view refuses the append itself, whatever path reaches it
    await expect(new ShardStore(await openFileStore(b), { index: 0, count: 2 }).append(foreign[0]!, ids[0]!, new Uint8Array())).rejects.toMatchObject({ code: 'sync/refused' });
    expect(snapshot(b)).toEqual(before);
  });
});
