/**
 * The PostgreSQL source's client pool on a real server: the most recently released connection is
 * handed out again; a full pool makes a checkout wait for a release, and fail after its timeout;
 * an idle connection is closed after the idle timeout; a connection killed while idle neither
 * crashes the process nor is handed out again; after end() nothing is handed out.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgClientPool } from '../../../../src/shoal/sources/pg-client-pool.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('PgClientPool', () => {
  let admin: pg.Client;
  const pools: PgClientPool[] = [];
  const open = (over: Partial<ConstructorParameters<typeof PgClientPool>[0]> = {}): PgClientPool => {
    const p = new PgClientPool({ client: { connectionString: postgres.url, application_name: 'pool-test' }, max: 2, idleTimeoutMs: 60_000, connectionTimeoutMs: 5_000, ...over });
    pools.push(p);
    return p;
  };
  const pidOf = async (c: pg.Client): Promise<number> => ((await c.query('SELECT pg_backend_pid() AS p')).rows[0] as { p: number }).p;
  const alive = async (pid: number): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 1;
  /** Whether backend `pid` exits (polled: a backend leaves pg_stat_activity shortly after its client closes). */
  const exits = async (pid: number): Promise<boolean> => {
    for (let i = 0; i < 200 && (await alive(pid)); i++) await new Promise((r) => setTimeout(r, 25));
    return !(await alive(pid));
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
  });

  afterAll(async () => {
    for (const p of pools) await p.end();
    await admin?.end();
  });

  it('hands the most recently released connection out again', async () => {
    const pool = open();
    const a = await pool.acquire();
    const b = await pool.acquire();
    pool.release(a);
    pool.release(b);
    expect(await pool.acquire()).toBe(b);
    expect(await pool.acquire()).toBe(a);
    pool.release(a);
    pool.release(b);
  });

  it('a checkout of a full pool waits for a release, and fails after its timeout when none comes', async () => {
    const pool = open({ max: 1, connectionTimeoutMs: 200 });
    const a = await pool.acquire();
    const waiting = pool.acquire();
    pool.release(a);
    expect(await waiting).toBe(a);
    await expect(pool.acquire()).rejects.toThrow('timeout exceeded when trying to connect');
    // a discarded connection makes room: the next checkout gets a new one
    const next = pool.acquire();
    pool.release(a, true);
    const b = await next;
    expect(b).not.toBe(a);
    expect((await b.query('SELECT 1 AS x')).rows).toEqual([{ x: 1 }]);
    pool.release(b);
  });

  it('closes a connection idle longer than the idle timeout', async () => {
    const pool = open({ idleTimeoutMs: 50 });
    const c = await pool.acquire();
    const pid = await pidOf(c);
    pool.release(c);
    expect(await exits(pid)).toBe(true);
    const d = await pool.acquire();
    expect(d).not.toBe(c);
    pool.release(d);
  });

  it('a connection killed while idle is dropped, not handed out, and the process survives', async () => {
    const pool = open();
    const c = await pool.acquire();
    const pid = await pidOf(c);
    pool.release(c);
    const ended = new Promise((r) => c.once('end', r));
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
    const d = await pool.acquire();
    expect(d).not.toBe(c);
    expect(await pidOf(d)).not.toBe(pid);
    pool.release(d);
  });

  it('after end() no connection is handed out and idle ones are closed', async () => {
    const pool = open();
    const c = await pool.acquire();
    const pid = await pidOf(c);
    pool.release(c);
    await pool.end();
    expect(await exits(pid)).toBe(true);
    await expect(pool.acquire()).rejects.toThrow('Cannot use a pool after calling end on the pool');
  });
});
