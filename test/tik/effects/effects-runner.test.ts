import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tableClock, type Schedule } from '../../../src/core/lease/index.js';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { Instant } from '../../../src/tik/edn/index.js';
import {
  DeliveryLedger,
  EffectsRunner,
  effectKey,
  httpWebhookSender,
  parseEffectsConfig,
  type EffectsConfig,
} from '../../../src/tik/effects/index.js';
import { closeStore, openStore } from '../../../src/tik/store/index.js';
import type { EventStore } from '../../../src/tik/store/store.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, snapshot, tempDir } from '../cli/harness.js';
import { approve, closedPort, deployStore, newDeploy, startReceiver, type Receiver } from './effects-fixture.js';

const NOW = new Instant(Date.parse(T0));
const DB_T0 = 1_800_000_000_000;
/** Heartbeats never fire in these tests: every round finishes well inside its lease. */
const noTimers: Schedule = () => () => undefined;

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('effect runner (real stores, real HTTP receiver, shared SQLite ledger on a simulated clock)', () => {
  let receiver: Receiver;
  let dbDir: string;
  let clients: SqlClient[];
  let stores: EventStore[];
  const clock = tableClock('effects_test_clock');

  beforeEach(async () => {
    receiver = await startReceiver();
    dbDir = tempDir('tik-effects-db-');
    dirs.push(dbDir);
    clients = [];
    stores = [];
  });
  afterEach(async () => {
    await receiver.close();
    for (const s of stores) await closeStore(s);
    for (const c of clients) await c.close();
  });

  async function ledger(): Promise<DeliveryLedger> {
    const db = await openSqliteClient(join(dbDir, 'effects.db'));
    clients.push(db);
    await db.exec(`CREATE TABLE IF NOT EXISTS ${clock.table} (id INTEGER PRIMARY KEY CHECK (id = 1), now_ms BIGINT NOT NULL)`);
    await db.run(`INSERT INTO ${clock.table} (id, now_ms) VALUES (1, ?) ON CONFLICT (id) DO NOTHING`, [DB_T0]);
    return DeliveryLedger.open(db, { leaseMs: 10_000, clock });
  }

  async function store(dir: string): Promise<EventStore> {
    const s = await openStore(dir);
    stores.push(s);
    return s;
  }

  function runner(s: EventStore, l: DeliveryLedger, config: EffectsConfig, writer: string, maxAttempts = 3): EffectsRunner {
    return new EffectsRunner({
      store: s,
      config,
      ledger: l,
      send: httpWebhookSender(5_000),
      now: () => NOW,
      intervalMs: 1_000,
      maxAttempts,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      writer,
      schedule: noTimers,
    });
  }

  const rules = (url: string) =>
    parseEffectsConfig(`{:effects [{:stage :requested :url "${url}/requested" :process :deploy}
                                   {:stage :approved :url "${url}/approved" :pipeline :release}]}`);

  it('two replicas sharing the ledger deliver each (ticket, stage, effect) exactly once, with its key as Idempotency-Key', async () => {
    const [a, b] = [await deployStore(), await deployStore({ sqlite: true })];
    dirs.push(a, b);
    const shared = await newDeploy(a, 'shared');
    const [sa, sb] = [await store(a), await store(b)];
    await syncWith(sb, localTransport(sa));
    const onlyB = await newDeploy(b, 'only on b');
    await approve(b, shared);
    const config = rules(receiver.url);
    // SQLite's -shm file is its shared-memory read index, rewritten by any reader: not store content
    const files = (dir: string) => Object.fromEntries(Object.entries(snapshot(dir)).filter(([name]) => !name.endsWith('-shm')));
    const before = [files(a), files(b)];
    const [ra, rb] = [runner(sa, await ledger(), config, 'A'), runner(sb, await ledger(), config, 'B')];

    // A only knows `shared` at :requested; B knows it approved and its own ticket too
    const r1 = await ra.round();
    expect(r1).toMatchObject({ discovered: 1, delivered: 1, held: ['default', 'release'] });
    const r2 = await rb.round();
    expect(r2).toMatchObject({ discovered: 2, delivered: 2 });
    for (let i = 0; i < 3; i++) {
      expect((await ra.round()).delivered + (await rb.round()).delivered).toBe(0);
    }
    const got = receiver.received.map((r) => `${r.path} ${String(r.body.ticket)}`).sort();
    expect(got).toEqual([`/approved ${shared}`, `/requested ${onlyB}`, `/requested ${shared}`].sort());
    for (const r of receiver.received) {
      const stage = `:${r.path.slice(1)}`;
      expect(r.key).toBe(effectKey(String(r.body.ticket), stage, { type: 'webhook', url: `${receiver.url}${r.path}` }));
      expect(r.body).toMatchObject({ key: r.key, stage, process: ':deploy', pipeline: r.path === '/approved' ? 'release' : 'default' });
      expect(r.attempt).toBe('1');
    }
    expect(receiver.received.find((r) => r.body.ticket === onlyB)?.body.title).toBe('only on b');
    // delivery never writes events (nor anything else) to a store
    expect([files(a), files(b)]).toEqual(before);
  });

  it('a stage reached later is delivered in a later round; a rule for another process does not fire', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const s = await store(dir);
    const config = parseEffectsConfig(`{:effects [{:stage :approved :url "${receiver.url}/a"} {:stage :requested :url "${receiver.url}/x" :process :other}]}`);
    const r = runner(s, await ledger(), config, 'A');
    expect(await r.round()).toMatchObject({ discovered: 0, delivered: 0 });
    await approve(dir, t);
    expect(await r.round()).toMatchObject({ discovered: 1, delivered: 1 });
    expect(receiver.received.map((x) => x.path)).toEqual(['/a']);
  });

  it('a failing receiver is retried after a backoff with the same key, then dead-lettered after the last attempt', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const s = await store(dir);
    const l = await ledger();
    const r = runner(s, l, parseEffectsConfig(`{:effects [{:stage :requested :url "${receiver.url}/flaky"}]}`), 'A', 3);
    receiver.answer = () => 503;
    const key = effectKey(t, ':requested', { type: 'webhook', url: `${receiver.url}/flaky` });
    expect(await r.round()).toMatchObject({ failed: 1 });
    expect(await l.get(key)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'HTTP 503', nextAttemptAt: DB_T0 + 1_000 });
    expect(await r.round()).toMatchObject({ failed: 0, delivered: 0 }); // not due yet
    await clock.set(l.db, DB_T0 + 1_000);
    expect(await r.round()).toMatchObject({ failed: 1 });
    expect(await l.get(key)).toMatchObject({ attempts: 2, nextAttemptAt: DB_T0 + 1_000 + 2_000 });
    await clock.set(l.db, DB_T0 + 3_000);
    expect(await r.round()).toMatchObject({ dead: 1 });
    expect(await l.get(key)).toMatchObject({ state: 'dead', attempts: 3, lastError: 'HTTP 503' });
    await clock.set(l.db, DB_T0 + 1_000_000);
    expect(await r.round()).toMatchObject({ failed: 0, dead: 0, delivered: 0 });
    expect(receiver.received.map((x) => [x.key, x.attempt])).toEqual([
      [key, '1'],
      [key, '2'],
      [key, '3'],
    ]);
  });

  it('an unreachable URL is a failed attempt naming the connection error', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const port = await closedPort();
    const l = await ledger();
    const r = runner(await store(dir), l, parseEffectsConfig(`{:effects [{:stage :requested :url "http://127.0.0.1:${port}/gone"}]}`), 'A');
    expect(await r.round()).toMatchObject({ failed: 1 });
    const row = await l.get(effectKey(t, ':requested', { type: 'webhook', url: `http://127.0.0.1:${port}/gone` }));
    expect(row).toMatchObject({ state: 'pending', attempts: 1 });
    expect(row?.lastError).toMatch(/ECONNREFUSED/);
  });

  it('a replica that does not hold the lease sends nothing, even for deliveries it discovered', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    await newDeploy(dir);
    const l = await ledger();
    const config = parseEffectsConfig(`{:effects [{:stage :requested :url "${receiver.url}/r"}]}`);
    expect(await l.claim('default', 'someone-else')).not.toBeNull();
    const r = runner(await store(dir), l, config, 'A');
    expect(await r.round()).toMatchObject({ discovered: 1, held: [], delivered: 0 });
    expect(receiver.received).toEqual([]);
    // once the other holder's lease expires, this replica takes over and delivers
    await clock.set(l.db, DB_T0 + 10_000);
    expect(await r.round()).toMatchObject({ held: ['default'], delivered: 1 });
    expect(receiver.received).toHaveLength(1);
  });
  it('two rules with the same stage and URL are one delivery (the key has no pipeline in it)', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    await newDeploy(dir);
    const config = parseEffectsConfig(`{:effects [{:stage :requested :url "${receiver.url}/same" :pipeline :a}
                                                  {:stage :requested :url "${receiver.url}/same" :pipeline :b}]}`);
    const r = runner(await store(dir), await ledger(), config, 'A');
    expect(await r.round()).toMatchObject({ discovered: 1, delivered: 1, held: ['a', 'b'] });
    expect(await r.round()).toMatchObject({ discovered: 0, delivered: 0 });
    expect(receiver.received).toHaveLength(1);
  });

  it('stopping aborts a POST in flight; it is recorded as a failed attempt and retried later with the same key', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const l = await ledger();
    const s = await store(dir);
    const config = parseEffectsConfig(`{:effects [{:stage :requested :url "${receiver.url}/held"}]}`);
    receiver.answer = () => 'hold';
    const r = runner(s, l, config, 'A');
    const round = r.round();
    await receiver.waitFor(1);
    await r.stop();
    expect(await round).toMatchObject({ failed: 1, delivered: 0 });
    const key = effectKey(t, ':requested', { type: 'webhook', url: `${receiver.url}/held` });
    expect(await l.get(key)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'aborted: tik serve is stopping' });
    // a fresh start (another process) picks it up once the backoff has passed
    receiver.answer = () => 200;
    await clock.set(l.db, DB_T0 + 1_000);
    expect(await runner(s, l, config, 'B').round()).toMatchObject({ delivered: 1 });
    expect(receiver.received.map((x) => [x.key, x.attempt])).toEqual([
      [key, '1'],
      [key, '2'],
    ]);
  });
});
