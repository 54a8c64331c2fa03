import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ShardDirectory } from '../../../src/tik/shard/shard-directory.js';
import { freePort } from '../../support/services.js';

const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

/** A stand-in replica: announces `announce` on /health and answers /x as a replica holding `holds`. */
async function replica(announce: string, holds: string, name: string): Promise<{ url: string; seen: string[] }> {
  const app = Fastify();
  apps.push(app);
  const seen: string[] = [];
  app.get('/health', async () => ({ status: 'ok', shard: announce }));
  app.get('/x', async (req, res) => {
    seen.push(String(req.headers['x-tik-shard']));
    if (req.headers['x-tik-shard'] !== holds) return res.code(409).send({ error: { code: 'shard/mismatch', message: `holds ${holds}` } });
    return { from: name };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, seen };
}

describe('ShardDirectory', () => {
  it('learns shards from /health and calls a replica of the wanted shard, naming it in x-tik-shard', async () => {
    const a = await replica('0/2', '0/2', 'a');
    const b = await replica('1/2', '1/2', 'b');
    const dir = new ShardDirectory({ index: 0, count: 2 }, [a.url, b.url]);
    expect(await dir.replicasOf(1)).toEqual([b.url]);
    const answer = await dir.call(1, '/x');
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { from: 'b' }]);
    expect(b.seen).toEqual(['1/2']);
    expect(a.seen).toEqual([]);
  });

  it('skips a replica that was reconfigured since it was learned (409 shard/mismatch) and one that is down', async () => {
    const stale = await replica('1/2', '1/3', 'stale'); // announced 1/2 once, now holds something else
    const good = await replica('1/2', '1/2', 'good');
    const down = `http://127.0.0.1:${await freePort()}`;
    const dir = new ShardDirectory({ index: 0, count: 2 }, [down, stale.url, good.url]);
    const answer = await dir.call(1, '/x');
    expect(JSON.parse(answer.body)).toEqual({ from: 'good' });
    expect(stale.seen).toEqual(['1/2']);
  });

  it('sends a request the caller rejects (a 404 from a replica that has not synced the ticket yet) on to the next replica', async () => {
    const lagging = await replica('1/2', '1/2', 'lagging');
    const app = Fastify();
    apps.push(app);
    app.get('/health', async () => ({ status: 'ok', shard: '1/2' }));
    app.get('/x', async (_req, res) => res.code(404).send({ error: { code: 'ticket/unknown', message: 'no ticket' } }));
    const missing = await app.listen({ port: 0, host: '127.0.0.1' });
    const dir = new ShardDirectory({ index: 0, count: 2 }, [missing, lagging.url]);
    const is404 = (a: { status: number }): boolean => a.status === 404;
    expect(JSON.parse((await dir.call(1, '/x', {}, is404)).body)).toEqual({ from: 'lagging' });
    expect((await dir.call(1, '/x')).status).toBe(404); // without the predicate the first answer stands
    expect((await new ShardDirectory({ index: 0, count: 2 }, [missing]).call(1, '/x', {}, is404)).status).toBe(404); // every replica says so
  });

  it('fails with shard/unavailable naming the shard when no replica of it answers', async () => {
    const other = await replica('0/2', '0/2', 'other');
    const down = `http://127.0.0.1:${await freePort()}`;
    await expect(new ShardDirectory({ index: 0, count: 2 }, [other.url, down]).call(1, '/x')).rejects.toMatchObject({
      code: 'shard/unavailable',
      message: 'no reachable replica of shard 1/2 (none known)',
    });
    await expect(new ShardDirectory({ index: 0, count: 3 }, []).call(2, '/x')).rejects.toMatchObject({ code: 'shard/unavailable', hint: expect.stringContaining('--shard 2/3') });
  });
});
