/**
 * The lease across real processes on the real database clock (compiled dist, as every
 * multi-process test): three workers race for one key, exactly one wins; a holder stopped with
 * SIGSTOP past its lease cannot commit after SIGCONT once a peer reclaimed; a holder killed with
 * SIGKILL is reclaimed after its lease expires.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FencedLease, LEASE_COLUMNS_DDL } from '../../../../src/core/lease/index.js';
import { openSqlClient } from '../../../../src/core/sql/open-sql-client.js';
import type { SqlClient } from '../../../../src/core/sql/sql-client.js';
import { service } from '../../../support/service.js';

const LEASE_MS = 1_500;
const dist = (p: string) => resolve(process.cwd(), 'dist/src', p);

// a worker: one FencedLease on its own connection, driven by JSON lines on stdin
const WORKER = `
import { createInterface } from 'node:readline';
const { FencedLease } = await import(${JSON.stringify(dist('core/lease/index.js'))});
const { openSqlClient } = await import(${JSON.stringify(dist('core/sql/open-sql-client.js'))});
const [url, table, writer, leaseMs] = process.argv.slice(1);
const db = await openSqlClient(url);
const lease = new FencedLease(db, { table, keyColumn: 'name' }, { leaseMs: Number(leaseMs) });
let grant = null;
process.stdout.write(JSON.stringify({ ready: true }) + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const { op, key } = JSON.parse(line);
  let result;
  if (op === 'claim') { grant = await lease.claim(key, writer); result = grant; }
  else if (op === 'commit') result = grant ? await lease.commit(grant, { set: { payload: writer } }) : false;
  process.stdout.write(JSON.stringify({ result }) + '\\n');
}
await db.close();
`;

interface Worker {
  readonly child: ChildProcess;
  send(op: string, key: string): Promise<unknown>;
}

const children = new Set<ChildProcess>();

function startWorker(url: string, table: string, writer: string): Promise<Worker> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', WORKER, url, table, writer, String(LEASE_MS)], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let buf = '';
  let err = '';
  const waiting: ((v: unknown) => void)[] = [];
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout!.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, i)) as { ready?: boolean; result?: unknown };
      buf = buf.slice(i + 1);
      waiting.shift()?.(msg.ready ? true : msg.result);
    }
  });
  const next = () =>
    new Promise<unknown>((res, rej) => {
      waiting.push(res);
      child.once('exit', (code) => rej(new Error(`worker ${writer} exited (${code}): ${err}`)));
    });
  const worker: Worker = {
    child,
    send(op, key) {
      const p = next();
      child.stdin!.write(`${JSON.stringify({ op, key })}\n`);
      return p;
    },
  };
  return next().then(() => worker);
}

async function waitUntilExpired(lease: FencedLease, key: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (!(await lease.state(key))?.live) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the lease never expired');
}

afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
});

const pg = service('postgres');
const dir = mkdtempSync(join(tmpdir(), 'lease-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const targets: { name: string; url: () => string; skip: boolean }[] = [
  { name: 'SQLite', url: () => `sqlite:///${join(dir, 'leases.db')}`, skip: false },
  { name: 'PostgreSQL', url: () => pg.url!, skip: pg.skip },
];

for (const t of targets) {
  describe.skipIf(t.skip)(`lease across processes on ${t.name}`, () => {
    let db: SqlClient;
    const table = `proc_leases_${t.name.toLowerCase()}`;

    const setup = async () => {
      db = await openSqlClient(t.url());
      await db.exec(`DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (name TEXT PRIMARY KEY, payload TEXT, ${LEASE_COLUMNS_DDL})`);
      await db.run(`INSERT INTO ${table} (name) VALUES (?)`, ['pipeline']);
      return new FencedLease(db, { table, keyColumn: 'name' }, { leaseMs: LEASE_MS });
    };

    it('three racing workers: one claim wins; a paused holder cannot commit after a peer reclaimed; a killed holder is reclaimed', async () => {
      const observer = await setup();
      try {
        const workers = await Promise.all(['W1', 'W2', 'W3'].map((w) => startWorker(t.url(), table, w)));
        const claims = (await Promise.all(workers.map((w) => w.send('claim', 'pipeline')))) as ({ writer: string; epoch: number } | null)[];
        const winners = claims.filter((c) => c !== null);
        expect(winners).toHaveLength(1);
        expect(winners[0]!.epoch).toBe(1);
        const holder = workers[claims.findIndex((c) => c !== null)]!;
        const peers = workers.filter((w) => w !== holder);

        // pause the holder past its lease; a peer reclaims on the database clock
        holder.child.kill('SIGSTOP');
        await waitUntilExpired(observer, 'pipeline');
        const reclaimed = (await peers[0]!.send('claim', 'pipeline')) as { writer: string; epoch: number; reclaimedFrom: string };
        expect(reclaimed).toMatchObject({ epoch: 2, reclaimedFrom: winners[0]!.writer });
        holder.child.kill('SIGCONT');
        expect(await holder.send('commit', 'pipeline')).toBe(false);

        // the reclaimer is killed mid-lease; after expiry the last peer takes over and commits
        peers[0]!.child.kill('SIGKILL');
        await waitUntilExpired(observer, 'pipeline');
        const third = (await peers[1]!.send('claim', 'pipeline')) as { writer: string; epoch: number; reclaimedFrom: string };
        expect(third).toMatchObject({ epoch: 3, reclaimedFrom: reclaimed.writer });
        expect(await peers[1]!.send('commit', 'pipeline')).toBe(true);
        const rows = await db.query<{ payload: string; writer: string | null }>(`SELECT payload, writer FROM ${table}`);
        expect(rows).toEqual([{ payload: third.writer, writer: null }]);
      } finally {
        await db.exec(`DROP TABLE ${table}`);
        await db.close();
      }
    });
  });
}
