import { afterAll, describe, expect, it } from 'vitest';
import { buildTikServer, tokenHash, type TikServer } from '../../../src/tik/server/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { freePort } from '../../support/services.js';
import { T0, cleanup, supportStore } from '../cli/harness.js';

// Two shards under a tokens policy: a user's token reads and writes through any replica; the
// gathering replicas present their peer token to each other; nobody else reaches a shard's lenses.

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

describe('tik serve --shard with --tokens', () => {
  it('gathers ls across shards with the peer token, writes as the token\'s actor, and refuses anonymous shard calls', async () => {
    const tokens = new Map([
      [tokenHash('user'), { principal: 'ana', actors: ['ana'], sync: false }],
      [tokenHash('peer'), { principal: 'fleet', actors: [], sync: true }],
    ]);
    const ports = [await freePort(), await freePort()];
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    for (let i = 0; i < 2; i++) {
      const dir = await supportStore();
      dirs.push(dir);
      const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0 }, shard: { index: i, count: 2 }, shardPeers: [urls[1 - i]!], authorship: { mode: 'tokens', tokens }, peerToken: 'peer' });
      servers.push(server);
      await server.app.listen({ port: ports[i]!, host: '127.0.0.1' });
    }
    const user = { authorization: 'Bearer user', 'content-type': 'application/json' };
    const made: string[] = [];
    for (let k = 0; k < 6; k++) {
      const r = await fetch(`${urls[k % 2]}/api/tickets`, { method: 'POST', headers: user, body: JSON.stringify({ process: 'support-request' }) });
      expect(r.status).toBe(200);
      made.push(((await r.json()) as { ticket: string }).ticket);
    }
    const ls = await fetch(`${urls[0]}/api/ls`, { headers: user });
    expect(ls.status).toBe(200);
    expect(((await ls.json()) as { ticket: string }[]).map((t) => t.ticket).sort()).toEqual([...made].sort());
    // a write to a ticket of the other shard is forwarded with the caller's token, as the caller
    const other = made.find((t) => !servers[0]!.gateway!.owns(t))!;
    const set = await fetch(`${urls[0]}/api/tickets/${other}/facts`, { method: 'POST', headers: user, body: JSON.stringify({ facts: [{ key: 'category', value: 'technical' }] }) });
    expect(set.status).toBe(200);
    expect((await fetch(`${urls[0]}/api/tickets/${other}/facts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ facts: [{ key: 'category', value: 'x' }] }) })).status).toBe(401);
    expect((await fetch(`${urls[1]}/shard/v1/ls?all=true`)).status).toBe(401);
    expect((await fetch(`${urls[1]}/shard/v1/ls?all=true`, { headers: { authorization: 'Bearer user' } })).status).toBe(403);
  });
});
