/**
 * Issue 5 acceptance for effects, with real processes: three `tik serve` replicas, each on its own
 * store, synced by `--peer` anti-entropy, sharing one delivery ledger (a SQLite file, then the test
 * PostgreSQL). Every stage-reached webhook arrives exactly once at a local HTTP receiver; killing
 * the lease holder (SIGKILL) while its POST is in flight yields a delivery by another replica after
 * the lease expires, carrying the same Idempotency-Key; a holder stopped (SIGSTOP) past its lease
 * and resumed cannot record the answer it then gets.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import { DeliveryLedger, effectKey, type DeliveryRow } from '../../../src/tik/effects/index.js';
import { startServer, type ServerProcess } from '../../support/processes.js';
import { service } from '../../support/service.js';
import { freePort } from '../../support/services.js';
import { cleanup, tempDir } from '../../tik/cli/harness.js';
import { closedPort, deployStore, startReceiver, until, type Receiver } from '../../tik/effects/effects-fixture.js';

const postgres = service('postgres');
/** Long enough that a loaded machine never loses a live holder's lease; short where a takeover is the point. */
const STEADY_LEASE_MS = 10_000;
const TAKEOVER_LEASE_MS = 3_000;
const dirs: string[] = [];
const running = new Set<ServerProcess>();
let receiver: Receiver | undefined;
afterEach(async () => {
  for (const p of running) await p.kill();
  running.clear();
  await receiver?.close();
  receiver = undefined;
});
afterAll(() => dirs.forEach(cleanup));

interface Replica {
  readonly dir: string;
  readonly port: number;
  readonly url: string;
  proc: ServerProcess | undefined;
}

interface EffectsView {
  writer: string;
  rounds: number;
  totals: { delivered: number; failed: number; dead: number; lost: number };
  deliveries: DeliveryRow[];
  pipelines: { pipeline: string; writer: string | null; live: boolean; epoch: number; untilMs: number | null }[];
}

const effectsOf = async (r: Replica): Promise<EffectsView> => (await fetch(`${r.url}/effects`)).json() as Promise<EffectsView>;

/** Three replicas (file, SQLite, file stores) with the same effects.edn, peers of each other, sharing `ledgerUrl`. */
async function startFleet(ledgerUrl: string, hooks: string, leaseMs: number): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (const sqlite of [false, true, false]) {
    const dir = await deployStore({ sqlite });
    dirs.push(dir);
    writeFileSync(join(dir, 'effects.edn'), hooks);
    const port = await freePort();
    replicas.push({ dir, port, url: `http://127.0.0.1:${port}`, proc: undefined });
  }
  const home = tempDir('tik-effects-home-');
  dirs.push(home);
  await Promise.all(
    replicas.map(async (r) => {
      const peers = replicas.filter((o) => o !== r).flatMap((o) => ['--peer', o.url]);
      r.proc = await startServer(['--root', r.dir, 'serve', '--port', String(r.port), '--interval', '0.2', '--open-writes', '--effects-db', ledgerUrl, ...peers], {
        cwd: r.dir,
        port: r.port,
        system: 'tik',
        readyPath: '/health',
        env: {
          HOME: home,
          TIK_ACTOR: `replica-${r.port}`,
          TIK_EFFECTS_INTERVAL_MS: '200',
          TIK_EFFECTS_LEASE_MS: String(leaseMs),
          TIK_EFFECTS_BACKOFF_MS: '200',
          TIK_EFFECTS_TIMEOUT_MS: '60000',
          TIK_EFFECTS_MAX_ATTEMPTS: '3',
        },
      });
      running.add(r.proc);
    }),
  );
  return replicas;
}

async function post(r: Replica, verb: string, args: string[]): Promise<{ ticket: string }> {
  const res = await fetch(`${r.url}/api/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args, actor: 'seb' }) });
  const body = (await res.json()) as { ticket: string };
  if (!res.ok) throw new Error(`${verb} ${args.join(' ')} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Waits until every replica has the ticket and has since run `n` more effect rounds. */
async function settle(replicas: readonly Replica[], tickets: readonly string[], n = 4): Promise<void> {
  for (const r of replicas) for (const t of tickets) await until(`${t} on ${r.url}`, async () => ((await fetch(`${r.url}/api/status/${t}`)).ok ? true : undefined));
  const start = await Promise.all(replicas.map(async (r) => (await effectsOf(r)).rounds));
  await until('every replica to run more effect rounds', async () => ((await Promise.all(replicas.map(effectsOf))).every((v, i) => v.rounds >= start[i]! + n) ? true : undefined));
}

type Ledger = { readonly name: string; readonly skip: boolean; url(): Promise<string> };

const ledgers: Ledger[] = [
  {
    name: 'a shared SQLite file',
    skip: false,
    url: async () => {
      const d = tempDir('tik-effects-ledger-');
      dirs.push(d);
      return `sqlite:///${join(d, 'effects.db')}`;
    },
  },
  {
    name: 'the test PostgreSQL',
    skip: postgres.skip,
    url: async () => {
      const db = await openSqlClient(postgres.url!);
      await db.exec('DROP TABLE IF EXISTS tik_effect_deliveries; DROP TABLE IF EXISTS tik_effect_leases');
      await db.close();
      return postgres.url!;
    },
  },
];

for (const ledger of ledgers) {
  describe.skipIf(ledger.skip)(`three tik serve replicas sharing ${ledger.name}`, () => {
    it('deliver every stage-reached webhook exactly once, whichever replica saw the stage first', async () => {
      receiver = await startReceiver();
      const url = await ledger.url();
      const gone = `http://127.0.0.1:${await closedPort()}/gone`;
      const hooks = `{:effects [{:stage :requested :url "${receiver.url}/requested" :process :deploy}
                                {:stage :approved :url "${receiver.url}/approved" :pipeline :release}
                                {:stage :approved :url "${gone}" :pipeline :broken}]}`;
      const replicas = await startFleet(url, hooks, STEADY_LEASE_MS);
      const tickets: string[] = [];
      for (const [i, r] of replicas.entries()) tickets.push((await post(r, 'new', ['deploy', '--title', `from replica ${i}`])).ticket);
      // approvals written on a different replica than the one that created the ticket
      for (const [i, t] of tickets.slice(0, 2).entries()) {
        const r = replicas[(i + 1) % 3]!;
        await until(`${t} to reach ${r.url}`, async () => ((await fetch(`${r.url}/api/status/${t}`)).ok ? true : undefined));
        await post(r, 'set', [t, 'approved=true']);
      }
      const expected = [
        ...tickets.map((t) => effectKey(t, ':requested', { type: 'webhook', url: `${receiver!.url}/requested` })),
        ...tickets.slice(0, 2).map((t) => effectKey(t, ':approved', { type: 'webhook', url: `${receiver!.url}/approved` })),
      ].sort();
      await receiver.waitFor(expected.length);
      await settle(replicas, tickets);

      // exactly once each: every expected key arrived, none twice, nothing else
      expect(receiver.received.map((r) => r.key).sort()).toEqual(expected);
      expect(receiver.received.every((r) => r.attempt === '1')).toBe(true);
      const view = await effectsOf(replicas[0]!);
      const toReceiver = (v: EffectsView) => v.deliveries.filter((d) => d.url.startsWith(receiver!.url));
      expect(toReceiver(view).map((d) => [d.key, d.state, d.attempts]).sort()).toEqual(expected.map((k) => [k, 'delivered', 1]));
      // the same ledger seen from every replica
      for (const r of replicas.slice(1)) expect(toReceiver(await effectsOf(r)).map((d) => d.key).sort()).toEqual(expected);
      // the unreachable hook is retried with backoff and dead-lettered after 3 attempts, visible on every replica
      const dead = await until('the unreachable hook to be dead-lettered', async () => {
        const rows = (await (await fetch(`${replicas[2]!.url}/effects?state=dead`)).json() as EffectsView).deliveries;
        return rows.length === 2 ? rows : undefined;
      });
      expect(dead.map((d) => d.key).sort()).toEqual(tickets.slice(0, 2).map((t) => effectKey(t, ':approved', { type: 'webhook', url: gone })).sort());
      for (const d of dead) {
        expect(d.attempts).toBe(3);
        expect(d.lastError).toMatch(/ECONNREFUSED/);
      }
      expect(receiver.received.map((r) => r.key).sort()).toEqual(expected);
      for (const r of replicas) expect(r.proc!.output()).not.toMatch(/\n\s+at .*\.js:\d+/);
    }, 120_000);

    it('a lease holder SIGKILLed mid-delivery: another replica delivers after the lease expires, with the same Idempotency-Key', async () => {
      receiver = await startReceiver();
      const url = await ledger.url();
      const replicas = await startFleet(url, `{:effects [{:stage :requested :url "${receiver.url}/slow"}]}`, TAKEOVER_LEASE_MS);
      // the receiver never answers the first request: the sender is stuck mid-delivery
      receiver.answer = (r) => (r.attempt === '1' ? 'hold' : 200);
      const t = (await post(replicas[0]!, 'new', ['deploy', '--title', 'killed mid-send'])).ticket;
      const key = effectKey(t, ':requested', { type: 'webhook', url: `${receiver.url}/slow` });
      await receiver.waitFor(1);
      expect(receiver.received[0]!.key).toBe(key);

      // find the holder of the pipeline's lease (its writer token is what its /effects calls `writer`)
      const views = await Promise.all(replicas.map(effectsOf));
      const lease = views[0]!.pipelines.find((p) => p.pipeline === 'default')!;
      expect(lease.live).toBe(true);
      const holder = replicas[views.findIndex((v) => v.writer === lease.writer)]!;
      expect(holder).toBeDefined();
      await holder.proc!.kill('SIGKILL');
      running.delete(holder.proc!);
      const survivors = replicas.filter((r) => r !== holder);

      await receiver.waitFor(2);
      const retry = receiver.received[1]!;
      expect(retry.key).toBe(key);
      expect(retry.attempt).toBe('2');
      expect(retry.body).toEqual(receiver.received[0]!.body);

      const row = await until('the retry to be recorded', async () => {
        const d = (await effectsOf(survivors[0]!)).deliveries.find((x) => x.key === key);
        return d?.state === 'delivered' ? d : undefined;
      });
      expect(row.attempts).toBe(2);
      expect(row.deliveredBy).not.toBe(lease.writer);
      // on the database clock, the retry was recorded after the dead holder's lease (as last seen) ended
      expect(row.deliveredAt!).toBeGreaterThanOrEqual(lease.untilMs!);
      expect(survivors.map((r) => r.proc!.output()).join('')).toMatch(/took over an expired lease/);
      // read the ledger directly too: the recording grant came after the dead holder's epoch
      const db = await openSqlClient(url);
      try {
        const direct = await (await DeliveryLedger.open(db)).get(key);
        expect(direct?.deliveredEpoch).toBeGreaterThan(lease.epoch);
      } finally {
        await db.close();
      }
      // (the ticket may exist only on the killed replica: the ledger row carries what a send needs)
      await settle(survivors, []);
      expect(receiver.received.map((r) => r.key)).toEqual([key, key]);
    }, 120_000);
  });
}

describe('a lease holder stopped (SIGSTOP) past its lease, on a shared SQLite file', () => {
  it('cannot record its late answer once another replica took over: the ledger keeps the survivor’s delivery', async () => {
    receiver = await startReceiver();
    const d = tempDir('tik-effects-ledger-');
    dirs.push(d);
    const replicas = await startFleet(`sqlite:///${join(d, 'effects.db')}`, `{:effects [{:stage :requested :url "${receiver.url}/stall"}]}`, TAKEOVER_LEASE_MS);
    receiver.answer = (r) => (r.attempt === '1' ? 'hold' : 200);
    const t = (await post(replicas[0]!, 'new', ['deploy', '--title', 'stalled sender'])).ticket;
    const key = effectKey(t, ':requested', { type: 'webhook', url: `${receiver.url}/stall` });
    await receiver.waitFor(1);
    const views = await Promise.all(replicas.map(effectsOf));
    const lease = views[0]!.pipelines.find((p) => p.pipeline === 'default')!;
    const holder = replicas[views.findIndex((v) => v.writer === lease.writer)]!;
    holder.proc!.child.kill('SIGSTOP');
    try {
      const survivors = replicas.filter((r) => r !== holder);
      await receiver.waitFor(2);
      expect(receiver.received[1]!.key).toBe(key);
      const row = await until('the survivor to record the delivery', async () => {
        const x = (await effectsOf(survivors[0]!)).deliveries.find((y) => y.key === key);
        return x?.state === 'delivered' ? x : undefined;
      });
      expect(row.deliveredEpoch).toBeGreaterThan(lease.epoch);
      // the stalled holder's POST now gets its 200, and the holder resumes
      receiver.releaseHeld(200);
    } finally {
      holder.proc!.child.kill('SIGCONT');
    }
    await until('the resumed holder to find its lease lost', async () => ((await effectsOf(holder)).totals.lost >= 1 ? true : undefined));
    const after = (await effectsOf(holder)).deliveries.find((y) => y.key === key)!;
    expect(after.state).toBe('delivered');
    expect(after.attempts).toBe(2);
    expect(after.deliveredBy).not.toBe(lease.writer);
    expect(holder.proc!.output()).toMatch(/lease was lost before recording/);
    expect(receiver.received.map((r) => r.key)).toEqual([key, key]);
  }, 120_000);
});
