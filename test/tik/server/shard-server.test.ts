import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { shardOf, type ShardSpec } from '../../../src/tik/shard/shard-spec.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { freePort } from '../../support/services.js';
import { T0, cleanup, supportStore, tik } from '../cli/harness.js';

// 2 shards × 2 replicas, in process but over real loopback HTTP: routing of per-ticket requests,
// scatter-gather of ls/next against one store holding every ticket, sync restricted to a shard.

const M = 2;
const dirs: string[] = [];
const servers: TikServer[] = [];

interface Replica {
  readonly shard: ShardSpec;
  readonly dir: string;
  readonly url: string;
  readonly server: TikServer;
}

let replicas: Replica[] = [];
let single = '';

async function startCluster(): Promise<Replica[]> {
  const ports = await Promise.all(Array.from({ length: 2 * M }, () => freePort()));
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  const out: Replica[] = [];
  for (let r = 0; r < 2 * M; r++) {
    const shard = { index: r % M, count: M };
    const dir = await supportStore();
    dirs.push(dir);
    const peers = urls.filter((_u, k) => k !== r && k % M === shard.index);
    const shardPeers = urls.filter((_u, k) => k % M !== shard.index);
    const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, shard, peers, shardPeers, authorship: { mode: 'open' } });
    servers.push(server);
    await server.app.listen({ port: ports[r]!, host: '127.0.0.1' });
    out.push({ shard, dir, url: urls[r]!, server });
  }
  return out;
}

beforeAll(async () => {
  replicas = await startCluster();
  single = await supportStore();
  dirs.push(single);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

const get = async (r: Replica, path: string): Promise<{ status: number; body: string }> => {
  const res = await fetch(`${r.url}${path}`);
  return { status: res.status, body: await res.text() };
};
const post = async (r: Replica, verb: string, args: string[], actor = 'seb'): Promise<{ status: number; body: string }> => {
  const res = await fetch(`${r.url}/api/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args, actor }) });
  return { status: res.status, body: await res.text() };
};
const errorCode = (body: string): string => (JSON.parse(body) as { error: { code: string } }).error.code;

/** Anti-entropy inside each shard, then copy every shard into the single reference store. */
async function settle(): Promise<void> {
  for (const r of replicas) await r.server.antiEntropy.round();
  const target = await openFileStore(single);
  for (const r of replicas) await syncWith(target, localTransport(await openFileStore(r.dir)), { direction: 'pull' });
}

/** Every lens URL and the `tik` arguments that answer it on one store. */
const LENSES: readonly [string, string[]][] = [
  ['/api/ls', ['ls', '--json']],
  ['/api/ls?all=true', ['ls', '--all', '--json']],
  ['/api/next', ['next', '--json']],
  ['/api/next?all=true', ['next', '--all', '--json']],
  ['/api/next?actor=seb', ['--actor', 'seb', 'next', '--json']],
  ['/api/next?actor=billing&all=true', ['--actor', 'billing', 'next', '--all', '--json']],
  ['/api/next?role=triager', ['next', '--role', 'triager', '--json']],
];

async function expectSameAsSingleStore(): Promise<void> {
  for (const [path, argv] of LENSES) {
    const expected = await tik(single, argv);
    expect(expected.code, `${argv.join(' ')}: ${expected.stderr}`).toBe(0);
    for (const r of replicas) {
      const got = await get(r, path);
      expect(got.status, `${path} via shard ${r.shard.index}: ${got.body}`).toBe(200);
      expect(got.body, `${path} via ${r.url} (shard ${r.shard.index})`).toBe(expected.stdout);
    }
  }
}

const ticketsOf = async (dir: string): Promise<readonly string[]> => (await openFileStore(dir)).ticketIds();

describe('tik serve --shard', () => {
  it('announces its shard on /health and mints new tickets only in its own shard', async () => {
    for (const r of replicas) {
      expect(JSON.parse((await get(r, '/health')).body)).toMatchObject({ status: 'ok', shard: `${r.shard.index}/${M}` });
      for (let i = 0; i < 3; i++) {
        const created = await post(r, 'new', ['support-request', '--title', `minted on ${r.url}`]);
        expect(created.status).toBe(200);
        expect(shardOf((JSON.parse(created.body) as { ticket: string }).ticket, M)).toBe(r.shard.index);
      }
    }
    await settle();
    for (const r of replicas) for (const t of await ticketsOf(r.dir)) expect(shardOf(t, M)).toBe(r.shard.index);
    await expectSameAsSingleStore();
    // the board of any replica lists the tickets of every shard
    const board = await get(replicas[0]!, '/api/board');
    for (const r of replicas) expect(board.body).toContain(`minted on ${r.url}`);
  }, 120_000);

  it('scatter-gather of ls and next through any replica equals one store holding every ticket (random writes through random replicas)', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('new' as const), via: fc.nat(2 * M - 1), title: fc.string({ maxLength: 12 }) }),
      fc.record({
        kind: fc.constant('set' as const),
        via: fc.nat(2 * M - 1),
        ticket: fc.nat(),
        kv: fc.constantFrom('category=technical', 'category=billing', 'severity=high', 'severity=low', 'resolution.ref=abcdef123', 'customer.ack=true'),
        actor: fc.constantFrom('seb', 'billing', 'someone'),
      }),
      fc.record({ kind: fc.constant('link' as const), via: fc.nat(2 * M - 1), ticket: fc.nat(), target: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        for (const o of ops) {
          const all = [...new Set((await Promise.all(replicas.map((r) => ticketsOf(r.dir)))).flat())].sort();
          const via = replicas[o.via]!;
          if (o.kind === 'new' || all.length === 0) {
            expect((await post(via, 'new', ['support-request', '--title', o.kind === 'new' ? o.title : 'x'])).status).toBe(200);
            // a new ticket reaches the other replica of its shard by anti-entropy; writes to it come after
            for (const r of replicas) await r.server.antiEntropy.round();
          } else if (o.kind === 'set') {
            const t = all[o.ticket % all.length]!;
            const r = await post(via, 'set', [t.slice(0, 13), o.kv], o.actor);
            expect(r.status, r.body).toBe(200);
          } else {
            const t = all[o.ticket % all.length]!;
            const target = all[o.target % all.length]!;
            expect((await post(via, 'set', [t, `link.depends-on=${target}`])).status).toBe(200);
          }
        }
        await settle();
        await expectSameAsSingleStore();
      }),
      { numRuns: 5 },
    );
  }, 180_000);

  it('answers a per-ticket read on any replica exactly as the owning shard (by id or unique prefix)', async () => {
    await settle();
    const all = await ticketsOf(single);
    expect(all.length).toBeGreaterThan(0);
    for (const t of all.slice(0, 3)) {
      const owner = replicas.find((r) => r.shard.index === shardOf(t, M))!;
      for (const verb of ['status', 'explain', 'log']) {
        const expected = await tik(single, [verb, t, '--json']);
        for (const r of replicas) {
          for (const arg of [t, t.slice(0, 12)]) {
            const got = await get(r, `/api/${verb}/${arg}`);
            expect(got.status, got.body).toBe(200);
            expect(JSON.parse(got.body), `${verb} ${arg} via shard ${r.shard.index} (owner ${owner.shard.index})`).toEqual(JSON.parse(expected.stdout));
          }
        }
      }
    }
    const unknown = await get(replicas[0]!, '/api/status/ffffffff');
    expect([unknown.status, errorCode(unknown.body)]).toEqual([404, 'ticket/unknown']);
    const unknownFull = await get(replicas[0]!, '/api/status/ffffffff-ffff-4fff-8fff-ffffffffffff');
    expect([unknownFull.status, errorCode(unknownFull.body)]).toEqual([404, 'ticket/unknown']);
    // a prefix shared by tickets (of any shards) is ambiguous, as on one store
    const firstChars = async (): Promise<string | undefined> => {
      const seen = new Set<string>();
      for (const t of await ticketsOf(single)) if (seen.has(t[0]!)) return t[0]; else seen.add(t[0]!);
      return undefined;
    };
    while ((await firstChars()) === undefined) {
      expect((await post(replicas[0]!, 'new', ['support-request'])).status).toBe(200);
      await settle();
    }
    const prefix = (await firstChars())!;
    const expected = await tik(single, ['status', prefix, '--json']);
    expect(expected.stderr).toMatch(/ticket\/ambiguous/);
    for (const r of replicas) {
      const ambiguous = await get(r, `/api/status/${prefix}`);
      expect([ambiguous.status, errorCode(ambiguous.body)]).toEqual([409, 'ticket/ambiguous']);
    }
  }, 120_000);

  it('finds a new ticket not yet synced to its sibling replica, from every replica, by id and by prefix', async () => {
    const origin = replicas[2]!; // shard 0; its sibling is replicas[0]
    const ticket = (JSON.parse((await post(origin, 'new', ['support-request', '--title', 'fresh'])).body) as { ticket: string }).ticket;
    const sibling = replicas.find((r) => r !== origin && r.shard.index === origin.shard.index)!;
    expect(await ticketsOf(sibling.dir)).not.toContain(ticket); // no anti-entropy has run
    for (const r of replicas) {
      for (const arg of [ticket, ticket.slice(0, 14)]) {
        const got = await get(r, `/api/status/${arg}`);
        expect(got.status, `${arg} via ${r.url}: ${got.body}`).toBe(200);
        expect(JSON.parse(got.body)).toMatchObject({ ticket, title: 'fresh' });
      }
    }
    // a write through the sibling lands at the replica that has the ticket
    const w = await post(sibling, 'set', [ticket, 'severity=high']);
    expect(w.status, w.body).toBe(200);
    expect((await tik(origin.dir, ['status', ticket, '--json'])).stdout).toContain('"severity"');
    expect(await ticketsOf(sibling.dir)).not.toContain(ticket);
    await settle();
  }, 120_000);

  it('forwards a write to a ticket of another shard to that shard, and refuses a forwarded request it does not own (421)', async () => {
    const foreignTo = (r: Replica) => (t: string): boolean => shardOf(t, M) !== r.shard.index;
    const r0 = replicas[0]!;
    const t = (await ticketsOf(single)).find(foreignTo(r0))!;
    const before = await ticketsOf(r0.dir);
    const w = await post(r0, 'set', [t.slice(0, 10), 'resolution.ref=forwarded-42']);
    expect(w.status, w.body).toBe(200);
    expect(JSON.parse(w.body)).toMatchObject({ ticket: t });
    expect(await ticketsOf(r0.dir)).toEqual(before); // nothing of the other shard landed here
    await settle();
    const status = JSON.parse((await tik(single, ['status', t, '--json'])).stdout) as { facts: Record<string, { value: string }> };
    expect(status.facts['resolution.ref']!.value).toBe('"forwarded-42"');

    const misdirected = await fetch(`${r0.url}/api/status/${t}`, { headers: { 'x-tik-forwarded': '1/2' } });
    expect(misdirected.status).toBe(421);
    expect(errorCode(await misdirected.text())).toBe('shard/misdirected');
    const wrongShard = await fetch(`${r0.url}/shard/v1/ls`, { headers: { 'x-tik-shard': '1/2' } });
    expect([wrongShard.status, errorCode(await wrongShard.text())]).toEqual([409, 'shard/mismatch']);
  }, 120_000);

  it('refuses to sync with a peer of another shard configuration, in either direction', async () => {
    const r0 = replicas[0]!;
    for (const header of [undefined, '1/2', '0/3']) {
      const res = await fetch(`${r0.url}/sync/v1/reconcile`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', ...(header ? { 'x-tik-shard': header } : {}) },
        body: Uint8Array.of(0x61),
      });
      expect(res.status, String(header)).toBe(409);
      expect(errorCode(await res.text())).toBe('sync/shard-mismatch');
    }
    // the CLI learns the replica's shard from /health and syncs only that shard (so it is not refused)
    const dir = await supportStore();
    dirs.push(dir);
    const r = await tik(dir, ['sync', r0.url, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${r0.url} holds shard 0/2: syncing only this store's tickets of that shard`);
    const own = (await ticketsOf(dir)).map((t) => shardOf(t, M));
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own)).toEqual(new Set([0]));
    // an unsharded replica refuses a sharded peer too
    const plain = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, authorship: { mode: 'open' } });
    servers.push(plain);
    const res = await plain.app.inject({ method: 'POST', url: '/sync/v1/reconcile', headers: { 'content-type': 'application/octet-stream', 'x-tik-shard': '0/2' }, payload: Buffer.from([0x61]) });
    expect([res.statusCode, errorCode(res.body)]).toEqual([409, 'sync/shard-mismatch']);
  }, 120_000);

  it('refuses bad sharding and recurrence flags before serving, as usage errors', async () => {
    for (const [args, code, message] of [
      [['--shard', '2/2'], 2, /--shard must be i\/M with 0 ≤ i < M/],
      [['--shard', '0/2', '--shard-peer', 'ftp://x'], 2, /--shard-peer must be an http\(s\) URL/],
      [['--recur', 'track=hourly'], 2, /unknown cadence "hourly"/],
      [['--recur-interval', '0'], 2, /--recur-interval must be a positive number/],
      [['--recurrences', 'nope.edn'], 1, /recur\/bad-config: cannot read .*nope\.edn/],
    ] as const) {
      const r = await tik(single, ['serve', '--port', '0', ...args]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([code, expect.stringMatching(message)]);
    }
  }, 120_000);

  it('answers a write for a ticket whose shard has no live replica with 503, writing nothing here', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const lonely = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, shard: { index: 0, count: 2 }, shardPeers: [`http://127.0.0.1:${await freePort()}`], authorship: { mode: 'open' } });
    servers.push(lonely);
    const foreign = (await ticketsOf(single)).find((t) => shardOf(t, M) === 1)!;
    const res = await lonely.app.inject({ method: 'POST', url: '/api/set', payload: { args: [foreign, 'severity=low'], actor: 'seb' } });
    expect([res.statusCode, errorCode(res.body)]).toEqual([503, 'shard/unavailable']);
    expect(await ticketsOf(dir)).toEqual([]);
  }, 120_000);

  it('answers 503 naming the shard when no replica of a shard is reachable, never a partial list', async () => {
    const port = await freePort();
    const dir = await supportStore();
    dirs.push(dir);
    const lonely = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, shard: { index: 0, count: 3 }, shardPeers: [replicas[0]!.url, `http://127.0.0.1:${port}`] });
    servers.push(lonely);
    for (const url of ['/api/ls', '/api/next']) {
      const res = await lonely.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      const e = JSON.parse(res.body) as { error: { code: string; message: string } };
      expect(e.error.code).toBe('shard/unavailable');
      expect(e.error.message).toMatch(/shard 1\/3/);
    }
    const board = await lonely.app.inject({ method: 'GET', url: '/api/board' });
    expect([board.statusCode, (JSON.parse(board.body) as { error: { code: string } }).error.code]).toEqual([503, 'shard/unavailable']);
  }, 120_000);
});
