/**
 * The Redis result store on a private redis-server: entries expire with Redis' own PX, the
 * per-table index lives as long as its longest entry, invalidation by table or of everything,
 * the bytes gauge, and an outage that fails a command at once instead of queueing it.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisResultStore } from '../../../../src/shoal/cache/result-redis-store.js';
import { service } from '../../../support/service.js';
import { OwnRedis } from './own-redis.js';

const redisService = service('redis'); // decides only whether redis-server exists here; this file runs its own

describe.skipIf(redisService.skip)('Redis result store', () => {
  let server: OwnRedis;
  let store: RedisResultStore;
  let probe: Redis;

  beforeAll(async () => {
    server = await OwnRedis.start();
    store = await RedisResultStore.open(server.url, { commandTimeoutMs: 10_000 });
    probe = new Redis(server.url);
  });

  afterAll(async () => {
    await store?.close();
    probe?.disconnect();
    await server?.stop();
  });

  it('stores under shoal:result:<deployment>:<key> with the TTL as PX, and indexes the key under each table', async () => {
    await store.set('k1', 'entry-1', 60_000, ['sales.orders', 'crm.customers']);
    expect(await store.get('k1')).toBe('entry-1');
    expect(await probe.get('shoal:result:local:k1')).toBe('entry-1');
    const pttl = await probe.pttl('shoal:result:local:k1');
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
    expect(await probe.smembers('shoal:result-table:local:sales.orders')).toEqual(['k1']);
    expect(await store.get('absent')).toBeUndefined();
  });

  it('an index outlives every entry it lists (NX then GT), and never lives forever', async () => {
    await store.set('long', 'x', 600_000, ['t.idx']);
    await store.set('short', 'y', 1_000, ['t.idx']);
    const ttl = await probe.pttl('shoal:result-table:local:t.idx');
    expect(ttl).toBeGreaterThan(1_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
  });

  it('an entry is gone once Redis expires it', async () => {
    await store.set('brief', 'z', 50, ['t.brief']);
    let gone = false;
    for (let i = 0; i < 200 && !gone; i++) {
      gone = (await store.get('brief')) === undefined;
      if (!gone) await new Promise((r) => setTimeout(r, 20));
    }
    expect(gone).toBe(true);
  });

  it('invalidates the entries of one table, then everything (entries and indexes)', async () => {
    await store.set('a', '1', 60_000, ['x.one']);
    await store.set('b', '2', 60_000, ['x.one', 'x.two']);
    await store.set('c', '3', 60_000, ['x.two']);
    await store.invalidate('X.One');
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([undefined, undefined, '3']);
    expect(await probe.exists('shoal:result-table:local:x.one')).toBe(0);
    await probe.set('unrelated', 'kept');
    await store.invalidate();
    expect(await probe.keys('shoal:result*')).toEqual([]);
    expect(await probe.get('unrelated')).toBe('kept');
    expect(store.bytes()).toBe(0);
  });

  it('counts the bytes of the live entries it wrote', async () => {
    await store.invalidate();
    await store.set('u', 'é'.repeat(10), 60_000, []);
    await store.set('v', 'abc', 60_000, []);
    expect(store.bytes()).toBe(23);
  });

  it('with Redis down a command fails at once (it does not queue), and the store works again when Redis is back', async () => {
    await server.kill();
    await expect(store.get('u')).rejects.toThrow();
    await expect(store.set('w', 'x', 1000, [])).rejects.toThrow();
    await server.stop();
    server = await OwnRedis.start(server.port);
    let back = false;
    for (let i = 0; i < 200 && !back; i++) {
      back = await store.set('w', 'x', 60_000, []).then(() => true, () => false);
      if (!back) await new Promise((r) => setTimeout(r, 50));
    }
    expect(back).toBe(true);
    expect(await store.get('w')).toBe('x');
  });

  it('opened while Redis is down: commands fail at once, and it connects by itself when Redis comes up', async () => {
    let later = await OwnRedis.start();
    await later.kill();
    const s = await RedisResultStore.open(later.url, { commandTimeoutMs: 10_000, connectTimeoutMs: 500 });
    try {
      await expect(s.get('k')).rejects.toThrow();
      await later.stop();
      later = await OwnRedis.start(later.port);
      let up = false;
      for (let i = 0; i < 200 && !up; i++) {
        up = await s.set('k', 'v', 60_000, []).then(() => true, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 50));
      }
      expect(up).toBe(true);
      expect(await s.get('k')).toBe('v');
    } finally {
      await s.close();
      await later.stop();
    }
  });
});
