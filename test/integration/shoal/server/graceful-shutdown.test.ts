/**
 * Graceful shutdown of a real `shoal serve` process (issue 16): SIGTERM turns /ready 503 at once
 * while queries are still served through the drain delay; a query in flight finishes and its
 * answer arrives; the process exits 0. The shutdown is bounded: past --shutdown-grace it exits 1,
 * and a second signal exits at once. The slow query is a PostgreSQL view that sleeps, and it is
 * known to be in flight when its backend is active in pg_stat_activity.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCode, signalTwice, startServer, type ServerProcess } from '../../../support/processes.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';
import { until } from '../../../support/until.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('shoal serve: graceful shutdown', () => {
  let dir: string;
  let admin: pg.Client;
  let source: pg.Client;
  let db: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-shutdown-'));
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    db = `shutdown_${process.pid}_${Date.now() % 1_000_000}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const base = new URL(postgres.url!);
    source = new pg.Client({ connectionString: `postgresql://${base.username}@${base.host}/${db}` });
    await source.connect();
    await source.query(`CREATE FUNCTION sleepy(s float8) RETURNS TABLE(n int) AS $$ BEGIN PERFORM pg_sleep(s); RETURN QUERY SELECT generate_series(1, 3); END $$ LANGUAGE plpgsql`);
    await source.query('CREATE VIEW slow AS SELECT n FROM sleepy(4)');
    await source.query('CREATE VIEW slower AS SELECT n FROM sleepy(120)');
    const table = (name: string) => `  - {source_id: pg, domain_id: d, schema: public, table: ${name}, columns: [{name: n, data_type: integer, visible_to: [admin]}]}`;
    writeFileSync(
      join(dir, 'shoal.yaml'),
      [
        'control_plane: {tenant_url: "sqlite:///registry.db"}',
        'auth: {provider: none}',
        'domains: [{id: d}]',
        `sources: [{id: pg, type: postgresql, host: ${base.hostname}, port: ${base.port}, database: ${db}, username: ${base.username}}]`,
        'tables:',
        table('slow'),
        table('slower'),
        'roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]',
        '',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    for (const s of servers) await s.kill();
    await source?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (...flags: string[]): Promise<ServerProcess> => {
    const port = await freePort();
    const s = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), ...flags], { cwd: dir, port });
    servers.push(s);
    return s;
  };
  const query = (s: ServerProcess, sql: string) =>
    fetch(`${s.url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ sql }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { rows?: unknown[][] } }));
  /** Resolves once the source runs the view's sleep for a client: the query is in flight. */
  const inFlight = (view: string) =>
    until(`${view} in flight`, async () => {
      const r = await source.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query ILIKE '%${view}%' AND pid <> pg_backend_pid()`);
      return (r.rows[0] as { n: number }).n > 0 ? true : undefined;
    });

  it('finishes a query in flight after SIGTERM, answers /ready 503 while draining, and exits 0', async () => {
    const s = await serve('--drain-delay', '2', '--shutdown-grace', '60');
    const slow = query(s, 'SELECT n FROM d.slow ORDER BY n');
    await inFlight('slow');
    const exited = exitCode(s);
    s.child.kill('SIGTERM');
    const ready = await until('/ready 503', async () => {
      const r = await fetch(`${s.url}/ready`);
      return r.status === 503 ? ((await r.json()) as { status: string }) : undefined;
    });
    expect(ready).toEqual({ status: 'draining' });
    // still serving through the drain: the balancer may not have noticed yet
    expect((await fetch(`${s.url}/live`)).status).toBe(200);
    const answer = await slow;
    expect(answer).toEqual({ status: 200, body: expect.objectContaining({ rows: [[1], [2], [3]] }) });
    const code = await exited;
    if (code !== 0) process.stderr.write(s.output());
    expect(code).toBe(0);
    expect(s.output()).toMatch(/stopped cleanly/);
  });

  it('the PostgreSQL port drains too: a statement in flight is answered, then every session ends with 57P01', async () => {
    const pgPort = await freePort();
    const s = await serve('--pg-port', String(pgPort), '--drain-delay', '1', '--shutdown-grace', '60');
    const connect = async () => {
      const c = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'anyone', database: 'shoal', options: '-c role=admin' });
      const ended = new Promise<string | undefined>((resolve) => {
        c.on('error', (e: Error & { code?: string }) => resolve(e.code));
        c.on('end', () => resolve(undefined));
      });
      await c.connect();
      return { c, ended };
    };
    const busy = await connect();
    const idle = await connect();
    const slow = busy.c.query('SELECT n FROM d.slow ORDER BY n');
    await inFlight('slow');
    const exited = exitCode(s);
    s.child.kill('SIGTERM');
    // the statement in flight is answered in full, then its session is ended by the server
    expect((await slow).rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await busy.ended).toBe('57P01');
    // an idle session is ended at once, with the code a PostgreSQL client knows
    expect(await idle.ended).toBe('57P01');
    const code = await exited;
    if (code !== 0) process.stderr.write(s.output());
    expect(code).toBe(0);
  });

  it('exits 1 when a query in flight outlasts --shutdown-grace, without waiting for it', async () => {
    const s = await serve('--drain-delay', '0.5', '--shutdown-grace', '3');
    const slower = query(s, 'SELECT n FROM d.slower').catch((e: unknown) => e);
    await inFlight('slower');
    const exited = exitCode(s);
    s.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(await slower).toBeInstanceOf(Error);
    expect(s.output()).toMatch(/grace of 3000 ms overran/);
  });

  it('exits at once on a second signal', async () => {
    const s = await serve('--drain-delay', '600', '--shutdown-grace', '600');
    expect(await signalTwice(s)).toBe(1);
    expect(s.output()).toMatch(/second signal/);
  });
});
