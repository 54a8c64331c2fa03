/**
 * `shoal serve --pg-port` with real PostgreSQL clients against a real `shoal serve` process: Debian's
 * psql, node-postgres and the PostgreSQL JDBC driver (a Java client run from source). The data is
 * a PostgreSQL source with non-ASCII names and a view that sleeps (to cancel); two registry users
 * with different `provisa.user_region` values see different rows (RLS), exactly as over HTTP.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distBin, startServer, type ServerProcess } from '../../../support/processes.js';
import { selfSignedCert } from '../../../support/self-signed-cert.js';
import { freePort } from '../../../support/services.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const SCHEMA = `shoal_pgwire_${process.pid}`;
const JDBC_VERSION = '42.7.14';
const M2 = process.env.M2_REPO ?? join(homedir(), '.m2', 'repository');
const JDBC_JAR = join(M2, 'org', 'postgresql', 'postgresql', JDBC_VERSION, `postgresql-${JDBC_VERSION}.jar`);

async function eventually(check: () => Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

describe.skipIf(postgres.skip)('PostgreSQL clients through shoal serve --pg-port (real processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-pgwire-'));
  let server: ServerProcess;
  let pgPort: number;
  let admin: pg.Client;
  const shoal = (args: string[], input?: string) =>
    spawnSync(process.execPath, [distBin('shoal'), ...args], { cwd: dir, encoding: 'utf8', ...(input === undefined ? {} : { input }), env: { ...process.env, SHOAL_USER_PASSWORD: '' } });
  const client = (user: string, password: string, extra: Partial<pg.ClientConfig> = {}) => new pg.Client({ host: '127.0.0.1', port: pgPort, user, password, database: 'shoal', ...extra });
  const slowRunning = async (): Promise<number> =>
    Number((await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%slow%' AND application_name = 'shoal'`)).rows[0].n);

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA};
      CREATE VIEW ${SCHEMA}.slow AS SELECT 1 AS id, pg_sleep(30)::text AS waited;
      CREATE TABLE ${SCHEMA}.people (id integer, name text, region varchar, amount numeric(12,2), born date, seen timestamptz, at timestamp,
        score double precision, active boolean, big bigint, small smallint);
      INSERT INTO ${SCHEMA}.people VALUES
        (1, 'Zoë Ünal', 'eu', 1234.50, '1990-02-03', '2026-03-04 05:06:07.089+00', '2026-03-04 05:06:07.5', 0.25, true, 9007199254740993, -7),
        (2, '山田 太郎', 'us', -0.07, '2001-12-31', '2020-01-01 00:00:00+00', '2020-01-01 00:00:00', -1.5, false, -42, 3),
        (3, 'Ølaf 🐟', 'eu', 0, '1970-01-01', '1999-12-31 23:59:59.999999+00', '1999-12-31 23:59:59.999999', 1e300, true, 0, 0)`);
    const base = new URL(postgres.url!);
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {enabled: false}
server: {limits: {max_concurrent_queries: 1}}
domains: [{id: sales}, {id: ops}]
sources:
  - {id: pg, type: postgresql, host: ${base.hostname}, port: ${base.port}, database: ${base.pathname.slice(1)}, username: ${decodeURIComponent(base.username)}}
tables:
  - {source_id: pg, domain_id: sales, schema: ${SCHEMA}, table: people, hot: false, columns: [
      {name: id, data_type: integer}, {name: name, data_type: text}, {name: region, data_type: varchar}, {name: amount, data_type: "numeric(12,2)"},
      {name: born, data_type: date}, {name: seen, data_type: timestamptz}, {name: at, data_type: timestamp}, {name: score, data_type: double precision},
      {name: active, data_type: boolean}, {name: big, data_type: bigint}, {name: small, data_type: smallint}]}
  - {source_id: pg, domain_id: ops, schema: ${SCHEMA}, table: slow, hot: false, columns: [{name: id, data_type: integer}, {name: waited, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [sales, ops]}
rls_rules:
  - {table_id: people, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`);
    for (const [user, region] of [['alice', 'eu'], ['bob', 'us']] as const) {
      const added = shoal(['user', 'add', '--config', 'shoal.yaml', user, '--role', 'analyst', '--var', `user_region=${region}`, '--password-stdin'], `${user} pass phrase\n`);
      expect(added.status, added.stderr).toBe(0);
    }
    const port = await freePort();
    pgPort = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--pg-port', String(pgPort)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
  }, 180_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    await admin?.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%slow%' AND application_name = 'shoal'`).catch(() => undefined);
    await admin?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const psql = (user: string, password: string, ...commands: string[]) =>
    spawnSync('/usr/bin/psql', ['-X', '-h', '127.0.0.1', '-p', String(pgPort), '-U', user, '-d', 'shoal', ...commands.flatMap((c) => ['-c', c])], {
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: password, PGCLIENTENCODING: 'UTF8', PGCONNECT_TIMEOUT: '10' },
    });

  it('psql: queries with non-ASCII text, several statements in one message, \\dt, \\d and \\d table, as the role sees them', () => {
    const r = psql('alice', 'alice pass phrase', 'SELECT id, name FROM sales.people ORDER BY id; SELECT count(*) AS n FROM sales.people', '\\dt sales.*', '\\d', '\\d sales.people', '\\dn');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Zoë Ünal');
    expect(r.stdout).toContain('Ølaf 🐟');
    expect(r.stdout).not.toContain('山田'); // alice is in eu: RLS holds
    expect(r.stdout).toMatch(/\bn\s*\n-+\n\s*2\n/);
    expect(r.stdout).toMatch(/sales\s*\|\s*people\s*\|\s*table/);
    expect(r.stdout).toMatch(/ops\s*\|\s*slow\s*\|\s*table/);
    expect(r.stdout).toContain('Table "sales.people"');
    expect(r.stdout).toMatch(/amount\s*\|\s*numeric\(12,2\)/);
    expect(r.stdout).toMatch(/seen\s*\|\s*timestamptz/);
  });

  it('psql: a wrong password is refused (28P01) and the connection closed; an error carries its SQLSTATE, message and hint', async () => {
    const bad = psql('alice', 'not the pass phrase', 'SELECT 1');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('AUTH_INVALID');
    const c = client('alice', 'not the pass phrase');
    await expect(c.connect()).rejects.toMatchObject({ code: '28P01' });
    const err = psql('alice', 'alice pass phrase', '\\set VERBOSITY verbose', 'SELECT nope FROM sales.people');
    expect(err.status).toBe(1);
    expect(err.stderr).toContain('42703');
    expect(err.stderr).toContain('SQL_UNKNOWN_COLUMN');
    expect(err.stderr).toContain('HINT');
  });

  it('node-postgres: simple and parameterised queries, non-ASCII in both directions, RLS per principal', async () => {
    const alice = client('alice', 'alice pass phrase');
    const bob = client('bob', 'bob pass phrase');
    await alice.connect();
    await bob.connect();
    try {
      expect((await alice.query('SELECT id, name FROM sales.people ORDER BY id')).rows).toEqual([{ id: 1, name: 'Zoë Ünal' }, { id: 3, name: 'Ølaf 🐟' }]);
      expect((await bob.query('SELECT id, name FROM sales.people ORDER BY id')).rows).toEqual([{ id: 2, name: '山田 太郎' }]);
      const p = await alice.query('SELECT id, amount, born, big, active FROM sales.people WHERE name = $1 AND id > $2', ['Ølaf 🐟', 0]);
      expect(p.rows).toHaveLength(1);
      expect(p.rows[0].id).toBe(3);
      expect(p.rows[0].amount).toBe('0.00');
      expect(p.rows[0].active).toBe(true);
      // a parameter is a value, never SQL: a quote in it is data
      expect((await alice.query('SELECT count(*) AS n FROM sales.people WHERE name = $1', ["x' OR '1'='1"])).rows[0].n).toBe('0');
      // bob asking for an eu name through a parameter still gets nothing: the filter is governance's
      expect((await bob.query('SELECT count(*) AS n FROM sales.people WHERE name = $1', ['Zoë Ünal'])).rows[0].n).toBe('0');
      const named = { name: 'by-id', text: 'SELECT name FROM sales.people WHERE id = $1', values: [1] };
      expect((await alice.query(named)).rows).toEqual([{ name: 'Zoë Ünal' }]);
      expect((await alice.query({ ...named, values: [3] })).rows).toEqual([{ name: 'Ølaf 🐟' }]);
      await expect(alice.query('SELECT region FROM sales.nope')).rejects.toMatchObject({ code: '42P01' });
      // after an error in the extended protocol the connection recovers at Sync
      expect((await alice.query('SELECT $1::text AS t', ['ok'])).rows).toEqual([{ t: 'ok' }]);
      // SET ROLE only among the principal's own roles
      await expect(alice.query('SET ROLE admin')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await alice.end();
      await bob.end();
    }
  });

  it('node-postgres: client.cancel stops the running query (57014) and its source statement; the query slot is shared with HTTP', async () => {
    const alice = client('alice', 'alice pass phrase');
    await alice.connect();
    try {
      const running = alice.query('SELECT id, waited FROM ops.slow').then(
        () => undefined,
        (e: unknown) => e,
      );
      await eventually(async () => (await slowRunning()) === 1, 'the slow statement running at PostgreSQL');
      // the principal's one query slot (max_concurrent_queries: 1) is shared with HTTP
      const http = await fetch(`${server.url}/data/sql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('alice:alice pass phrase').toString('base64')}` },
        body: JSON.stringify({ sql: 'SELECT 1' }),
      });
      expect(http.status).toBe(429);
      const canceller = client('alice', 'alice pass phrase');
      await (canceller as unknown as { cancel(c: pg.Client, q: unknown): Promise<void> }).cancel(alice, (alice as unknown as { activeQuery: unknown }).activeQuery);
      expect(await running).toMatchObject({ code: '57014' });
      await eventually(async () => (await slowRunning()) === 0, 'the slow statement cancelled at PostgreSQL');
      expect((await alice.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await alice.end();
    }
  });

  it('the PostgreSQL JDBC driver: server-prepared binary results, non-ASCII, getTables/getColumns, fetch size, Statement.cancel', () => {
    if (!existsSync(JDBC_JAR)) {
      spawnSync('mvn', ['-B', '-q', 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:get', `-Dartifact=org.postgresql:postgresql:${JDBC_VERSION}`, '-Dtransitive=false', ...(process.env.M2_REPO ? [`-Dmaven.repo.local=${M2}`] : [])], { stdio: 'ignore' });
    }
    expect(existsSync(JDBC_JAR), `the JDBC driver (${JDBC_JAR}); .ci/run fetches it`).toBe(true);
    const source = resolve(process.cwd(), 'test/fixtures/pgwire/JdbcClient.java');
    const r = spawnSync('java', ['-cp', JDBC_JAR, source, `jdbc:postgresql://127.0.0.1:${pgPort}/shoal`, 'alice', 'alice pass phrase'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const out = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const expected = '1|Zoë Ünal|1234.50|1990-02-03|2026-03-04T05:06:07.089Z|2026-03-04T05:06:07.500|0.25|true|9007199254740993|-7';
    for (let i = 1; i <= 7; i++) expect(out[`row${i}`]).toBe(expected);
    expect(out.unicode_param).toBe('1');
    expect(out.described).toBe('3:name:numeric:1');
    expect(out.tables).toBe('sales.people:TABLE');
    expect(out.columns).toBe('id:int4,name:text,region:varchar,amount:numeric,born:date,seen:timestamptz,at:timestamp,score:float8,active:bool,big:int8,small:int2');
    expect(out.fetched).toBe('2');
    expect(out.cancel).toBe('57014');
    expect(out.after_cancel).toBe('1');
  }, 180_000);

  it('every statement is audited like an HTTP query; a transaction block refuses statements after an error until ROLLBACK', async () => {
    const made = shoal(['token', 'create', '--config', 'shoal.yaml', '--name', 'auditor', '--role', 'admin', '--json']);
    expect(made.status, made.stderr).toBe(0);
    const { token } = JSON.parse(made.stdout) as { token: string };
    const bob = client('bob', 'bob pass phrase');
    await bob.connect();
    try {
      await bob.query('BEGIN');
      await expect(bob.query('SELECT nope FROM sales.people')).rejects.toMatchObject({ code: '42703' });
      await expect(bob.query('SELECT 1')).rejects.toMatchObject({ code: '25P02' });
      await bob.query('ROLLBACK');
      expect((await bob.query('SELECT count(*) AS n FROM sales.people')).rows).toEqual([{ n: '1' }]);
    } finally {
      await bob.end();
    }
    const r = await fetch(`${server.url}/admin/audit?principal=user:bob&limit=50`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    const { records } = (await r.json()) as { records: { method: string; outcome: string; rows: number | null; tables: string[]; role: string }[] };
    const pgwire = records.filter((x) => x.method === 'PGWIRE');
    expect(pgwire.some((x) => x.outcome === 'ok' && x.rows === 1 && x.tables.includes('sales.people') && x.role === 'analyst')).toBe(true);
    expect(pgwire.some((x) => x.outcome === 'SQL_UNKNOWN_COLUMN')).toBe(true);
  });

  it('hostile input: an oversize length, garbage before startup and a half message are refused and the server keeps serving', async () => {
    const exchange = (bytes: Buffer, endAfter = false) =>
      new Promise<Buffer>((resolve, reject) => {
        const s = connect(pgPort, '127.0.0.1');
        const got: Buffer[] = [];
        s.on('data', (b) => got.push(b));
        s.on('error', reject);
        s.on('close', () => resolve(Buffer.concat(got)));
        s.write(bytes, () => {
          if (endAfter) s.end();
        });
      });
    const huge = Buffer.alloc(8);
    huge.writeInt32BE(0x7fffffff, 0);
    huge.writeInt32BE(196_608, 4);
    const a = await exchange(huge);
    expect(a.toString('latin1')).toContain('08P01');
    const b = await exchange(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(b.toString('latin1')).toContain('invalid length of startup packet');
    const half = Buffer.alloc(8);
    half.writeInt32BE(40, 0);
    half.writeInt32BE(196_608, 4);
    expect((await exchange(half, true)).length).toBe(0);
    // an authenticated client sending a message longer than the cap
    const alice = client('alice', 'alice pass phrase');
    await alice.connect();
    const closed = new Promise((r) => alice.once('error', r).once('end', r));
    await alice.query(`SELECT '${'x'.repeat(5 * 1024 * 1024)}' AS big`).catch((e: unknown) => e);
    await closed;
    const after = client('bob', 'bob pass phrase');
    await after.connect();
    expect((await after.query('SELECT count(*) AS n FROM sales.people')).rows[0].n).toBe('1');
    await after.end();
  });
});

describe('shoal serve --pg-port and transport security (real process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-pgwire-tls-'));
  let server: ServerProcess | undefined;
  let pgPort: number;
  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const psqlAt = (conninfo: string) =>
    spawnSync('/usr/bin/psql', ['-X', '-At', conninfo, '-c', 'SELECT count(*) FROM sales.orders'], { encoding: 'utf8', env: { ...process.env, PGPASSWORD: 'carol pass phrase', PGCONNECT_TIMEOUT: '10' } });

  it('SSLRequest is answered with TLS (server.tls); a password from another host is refused without TLS', async () => {
    const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    expect(external, 'a non-loopback IPv4 address on this machine').toBeDefined();
    const cert = selfSignedCert(dir);
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
server: {tls: {cert_file: ${cert.certFile}, key_file: ${cert.keyFile}}, allowed_hosts: ["*"]}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
roles:
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
`);
    const added = spawnSync(process.execPath, [distBin('shoal'), 'user', 'add', '--config', 'shoal.yaml', 'carol', '--role', 'analyst', '--password-stdin'], { cwd: dir, encoding: 'utf8', input: 'carol pass phrase\n' });
    expect(added.status, added.stderr).toBe(0);
    const port = await freePort();
    pgPort = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--host', '0.0.0.0', '--port', String(port), '--pg-port', String(pgPort)], {
      cwd: dir,
      port,
      tlsCa: cert.cert,
      env: { SHOAL_MV_TICK_MS: '0' },
    });
    const tls = psqlAt(`host=127.0.0.1 port=${pgPort} user=carol dbname=shoal sslmode=verify-ca sslrootcert=${cert.certFile}`);
    expect(tls.status, tls.stderr).toBe(0);
    expect(tls.stdout.trim()).toBe('2');
    const plainRemote = psqlAt(`host=${external} port=${pgPort} user=carol dbname=shoal sslmode=disable`);
    expect(plainRemote.status).toBe(2);
    expect(plainRemote.stderr).toContain('unencrypted');
    const tlsRemote = psqlAt(`host=${external} port=${pgPort} user=carol dbname=shoal sslmode=require`);
    expect(tlsRemote.status, tlsRemote.stderr).toBe(0);
  }, 180_000);
});
