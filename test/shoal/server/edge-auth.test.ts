/**
 * Identity at the edge (law S7) over a real instance: a local OIDC issuer (jose on loopback), the
 * registry's tokens and users, the role a principal may act as, the capabilities routes need, and
 * the session values RLS reads — which come from the identity, never from the client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../../src/shoal/auth/credential-admin.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { credentialAdminPlugin } from '../../../src/shoal/server/credential-admin-plugin.js';
import { mvAdminPlugin } from '../../../src/shoal/server/mv-admin-plugin.js';
import { AUDIENCE, LocalIssuer, hmacWithPublicKey, makeKey, unsignedToken, type IssuerKey } from '../auth/oidc-issuer.js';

const CATALOG = `domains: [{id: sales}, {id: hr}]
sources: [{id: crm, type: csv, path: customers.csv}, {id: people, type: csv, path: staff.csv}]
tables:
  - source_id: crm
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: constant, mask_value: "***"}
      - {name: region, data_type: varchar}
  - source_id: people
    domain_id: hr
    table: staff
    columns: [{name: id, data_type: integer}, {name: name, data_type: varchar}]
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales, hr]}
  - {id: viewer, capabilities: [], domain_access: [sales]}
rls_rules:
  - {table_id: customers, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

const SQL = 'SELECT id, email, region FROM sales.customers ORDER BY id';

function writeData(dir: string): void {
  writeFileSync(join(dir, 'customers.csv'), 'id,email,region\n1,ann@eu.test,eu\n2,bob@us.test,us\n3,cy@eu.test,eu\n');
  writeFileSync(join(dir, 'staff.csv'), 'id,name\n1,Dee\n');
}

async function startApp(dir: string, yaml: string): Promise<{ instance: ShoalInstance; app: FastifyInstance }> {
  writeFileSync(join(dir, 'shoal.yaml'), yaml);
  const instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
  const app = await buildApp({ service: instance, plugins: [adminPlugin(instance), mvAdminPlugin(instance), credentialAdminPlugin(instance.auth!)] });
  return { instance, app };
}

type Headers = Record<string, string>;
const bearer = (t: string): Headers => ({ authorization: `Bearer ${t}` });

describe('OIDC bearer tokens, access tokens, roles and session values at the edge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-edge-oidc-'));
  let issuer: LocalIssuer;
  let k1: IssuerKey;
  let k2: IssuerKey;
  let stranger: IssuerKey;
  let instance: ShoalInstance;
  let app: FastifyInstance;

  beforeAll(async () => {
    writeData(dir);
    issuer = await LocalIssuer.start();
    [k1, k2, stranger] = await Promise.all([makeKey('k1'), makeKey('k2'), makeKey('k9')]);
    issuer.publish(k1);
    ({ instance, app } = await startApp(
      dir,
      `control_plane: {tenant_url: "sqlite:///registry.db"}
auth:
  provider: oidc
  oidc:
    issuer: https://issuer.shoal.test
    audience: ${AUDIENCE}
    jwks_url: ${issuer.jwksUrl}
    clock_skew_seconds: 5
    jwks_cache_seconds: 0
    jwks_cooldown_seconds: 0
  role_mapping:
    - {claim: groups, contains: data-admins, provisa_role: admin}
  session_vars:
    - {name: provisa.user_region, claim: region}
    - {name: provisa.report_label, client_settable: true}
${CATALOG}`,
    ));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sql = (headers: Headers, body: Record<string, unknown> = {}) => app.inject({ method: 'POST', url: '/data/sql', headers, payload: { sql: SQL, ...body } });
  const analyst = (region = 'eu', key = k1) => issuer.sign(key, { sub: 'ana', roles: ['analyst'], region });
  const code = (r: { body: string }) => (JSON.parse(r.body) as { error?: { code: string } }).error?.code;

  it('no credential is 401 with a Bearer challenge; the probes answer without one; /metrics does not', async () => {
    const r = await sql({ 'x-provisa-role': 'admin' });
    expect(r.statusCode).toBe(401);
    expect(code(r)).toBe('AUTH_REQUIRED');
    expect(String(r.headers['www-authenticate'])).toContain('Bearer realm="shoal"');
    expect(String(r.headers['www-authenticate'])).not.toContain('Basic');
    expect((await app.inject('/live')).statusCode).toBe(200);
    expect((await app.inject('/ready')).statusCode).toBe(200);
    const health = await app.inject('/health');
    expect(health.json()).toMatchObject({ auth: { provider: 'oidc' } });
    expect(health.json().auth.warning).toBeUndefined();
    expect((await app.inject('/metrics')).statusCode).toBe(401);
    expect((await app.inject({ url: '/metrics', headers: bearer(await analyst()) })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/admin/sources' })).statusCode).toBe(401);
  });

  it('a valid token acts as its granted role; RLS reads the region from the token, not the client', async () => {
    const r = await sql(bearer(await analyst('eu')));
    expect(r.statusCode).toBe(200);
    expect(r.json().rows).toEqual([[1, '***', 'eu'], [3, '***', 'eu']]);
    const us = await sql(bearer(await analyst('us')));
    expect(us.json().rows).toEqual([[2, '***', 'us']]);
  });

  it('the client cannot change an identity-derived session value, in any spelling', async () => {
    const t = await analyst('eu');
    for (const name of ['provisa.user_region', 'user_region', 'PROVISA.USER_REGION', 'User_Region']) {
      const r = await sql(bearer(t), { vars: { [name]: 'us' } });
      expect(r.statusCode, name).toBe(400);
      expect(code(r), name).toBe('VAR_NOT_SETTABLE');
    }
  });

  it('a client-settable variable may be sent; any other vars entry is refused with 400', async () => {
    const t = await analyst('eu');
    expect((await sql(bearer(t), { vars: { 'provisa.report_label': 'q3' } })).statusCode).toBe(200);
    const other = await sql(bearer(t), { vars: { 'provisa.tenant': 'acme' } });
    expect(other.statusCode).toBe(400);
    expect(code(other)).toBe('VAR_NOT_SETTABLE');
    expect(code(await sql(bearer(t), { vars: { 'not a name': 'x' } }))).toBe('VAR_INVALID');
  });

  it('an analyst asking for admin is 403 on data and admin routes, and is not told the other roles', async () => {
    const t = await analyst();
    for (const r of [
      await sql({ ...bearer(t), 'x-provisa-role': 'admin' }),
      await sql(bearer(t), { role: 'admin' }),
      await app.inject({ method: 'GET', url: '/admin/sources', headers: { ...bearer(t), 'x-provisa-role': 'admin' } }),
      await app.inject({ method: 'POST', url: '/admin/sources', headers: { ...bearer(t), 'x-provisa-role': 'admin' }, payload: { id: 'pw', type: 'csv', path: '/etc/passwd' } }),
      await app.inject({ method: 'GET', url: '/admin/mv', headers: { ...bearer(t), 'x-provisa-role': 'admin' } }),
      await app.inject({ method: 'GET', url: '/admin/tokens', headers: { ...bearer(t), 'x-provisa-role': 'admin' } }),
    ]) {
      expect(r.statusCode).toBe(403);
      expect(code(r)).toBe('ROLE_NOT_GRANTED');
      expect(r.body).not.toContain('viewer');
    }
    // acting as its own role, the admin API still refuses it: analyst lacks admin
    const own = await app.inject({ method: 'GET', url: '/admin/sources', headers: bearer(t) });
    expect(own.statusCode).toBe(403);
    expect(code(own)).toBe('CAPABILITY_MISSING');
    expect((await instance.registry.snapshot()).catalog.sources.map((s) => s.id)).not.toContain('pw');
  });

  it('ad-hoc SQL needs query_development on the chosen role', async () => {
    const t = await issuer.sign(k1, { sub: 'vic', roles: ['viewer'] });
    const r = await sql(bearer(t));
    expect(r.statusCode).toBe(403);
    expect(code(r)).toBe('CAPABILITY_MISSING');
  });

  it('upstream role_id:domain_id claims limit the role to that domain', async () => {
    const t = await issuer.sign(k1, { sub: 'hr-only', roles: ['analyst:hr'], region: 'eu' });
    expect((await app.inject({ method: 'POST', url: '/data/sql', headers: bearer(t), payload: { sql: 'SELECT name FROM hr.staff' } })).json().rows).toEqual([['Dee']]);
    // a table outside the assigned domain is unknown to the identity, exactly as a missing one
    const r = await sql(bearer(t));
    expect(r.statusCode).toBe(404);
    expect(code(r)).toBe('SQL_UNKNOWN_TABLE');
  });

  it('a role_mapping rule grants admin from a group claim; admin sees unmasked values of every region', async () => {
    const t = await issuer.sign(k1, { sub: 'root', groups: ['staff', 'data-admins'] });
    const r = await sql(bearer(t));
    expect(r.statusCode).toBe(200);
    expect(r.json().rows).toEqual([[1, 'ann@eu.test', 'eu'], [2, 'bob@us.test', 'us'], [3, 'cy@eu.test', 'eu']]);
    expect((await app.inject({ method: 'GET', url: '/admin/sources', headers: bearer(t) })).statusCode).toBe(200);
  });

  it('refuses expired, not-yet-valid, wrong-audience and wrong-issuer tokens with 401', async () => {
    for (const t of [
      await issuer.sign(k1, { sub: 'ana', roles: ['analyst'], region: 'eu' }, { expSecondsFromNow: -60 }),
      await issuer.sign(k1, { sub: 'ana', roles: ['analyst'], region: 'eu' }, { nbfSecondsFromNow: 600 }),
      await issuer.sign(k1, { sub: 'ana', roles: ['analyst'], region: 'eu' }, { aud: 'someone-else' }),
      await issuer.sign(k1, { sub: 'ana', roles: ['analyst'], region: 'eu' }, { iss: 'https://evil.test' }),
    ]) {
      const r = await sql(bearer(t));
      expect(r.statusCode).toBe(401);
      expect(code(r)).toBe('AUTH_INVALID');
      expect(String(r.headers['www-authenticate'])).toContain('Bearer');
    }
  });

  it('refuses alg: none, HS256 keyed with the RSA public key (HS/RS confusion), an unknown key id, and garbage', async () => {
    const claims = { sub: 'mallory', roles: ['admin'], groups: ['data-admins'] };
    for (const t of [unsignedToken(claims, 'k1'), await hmacWithPublicKey(claims, k1), await issuer.sign(stranger, claims), 'not.a.jwt', 'abc']) {
      const r = await sql(bearer(t));
      expect(r.statusCode, t.slice(0, 20)).toBe(401);
      expect(code(r)).toBe('AUTH_INVALID');
    }
  });

  it('honours key rotation: a newly published key is accepted, a withdrawn one is refused', async () => {
    const old = await analyst('eu', k1);
    const next = await analyst('eu', k2);
    expect((await sql(bearer(next))).statusCode).toBe(401); // not published yet
    issuer.publish(k1, k2);
    expect((await sql(bearer(next))).statusCode).toBe(200);
    expect((await sql(bearer(old))).statusCode).toBe(200);
    issuer.publish(k2);
    expect((await sql(bearer(old))).statusCode).toBe(401);
    expect((await sql(bearer(next))).statusCode).toBe(200);
    issuer.publish(k1);
  });

  it('access tokens: created by an admin (secret shown once), used, listed without secrets, revoked', async () => {
    const root = bearer(await issuer.sign(k1, { sub: 'root', groups: ['data-admins'] }));
    const created = await app.inject({ method: 'POST', url: '/admin/tokens', headers: root, payload: { name: 'us-report', roles: ['analyst'], vars: { 'provisa.user_region': 'us' }, expires_in_days: 7 } });
    expect(created.statusCode).toBe(201);
    const { id, token } = created.json() as { id: string; token: string };
    expect(token).toMatch(/^shoal_pat_[A-Za-z0-9_-]{43}$/);
    const used = await sql(bearer(token));
    expect(used.statusCode).toBe(200);
    expect(used.json().rows).toEqual([[2, '***', 'us']]);
    expect(code(await sql(bearer(token), { vars: { user_region: 'eu' } }))).toBe('VAR_NOT_SETTABLE');
    expect(code(await sql({ ...bearer(token), 'x-provisa-role': 'admin' }))).toBe('ROLE_NOT_GRANTED');

    const list = await app.inject({ method: 'GET', url: '/admin/tokens', headers: root });
    expect(list.body).not.toContain(token);
    expect(list.body).not.toContain(token.slice(10));
    const listed = (list.json() as { tokens: Record<string, unknown>[] }).tokens.find((t) => t.id === id);
    expect(listed).toMatchObject({ name: 'us-report', roles: ['analyst'], created_by: 'oidc:https://issuer.shoal.test#root', revoked_at: null });
    expect(Object.keys(listed!)).not.toContain('secretSha256');

    expect((await app.inject({ method: 'DELETE', url: `/admin/tokens/${id}`, headers: root })).statusCode).toBe(200);
    const after = await sql(bearer(token));
    expect(after.statusCode).toBe(401);
    expect(code(after)).toBe('AUTH_INVALID');
    expect((await app.inject({ method: 'DELETE', url: `/admin/tokens/${id}`, headers: root })).statusCode).toBe(404);
    // a token that merely looks like one, and a token-admin call from a token without admin
    expect((await sql(bearer(`shoal_pat_${'A'.repeat(43)}`))).statusCode).toBe(401);
  });

  it('an expired access token is refused', async () => {
    const root = bearer(await issuer.sign(k1, { sub: 'root', groups: ['data-admins'] }));
    const past = await app.inject({ method: 'POST', url: '/admin/tokens', headers: root, payload: { name: 'old', roles: ['analyst'], expires_at: '2001-01-01T00:00:00Z' } });
    expect(past.statusCode).toBe(400);
    const { issueToken } = await import('../../../src/shoal/auth/credential-admin.js');
    const { secret } = await issueToken(instance.auth!.store!, { name: 'short', roles: ['analyst'], vars: { user_region: 'eu' }, expiresAt: new Date(Date.now() + 1000).toISOString(), createdBy: 'test' }, (await instance.registry.snapshot()).catalog.roles, new Date());
    // a second authenticator over the same store whose clock is past the expiry: no sleeping
    const { createAuthenticator } = await import('../../../src/shoal/auth/authenticator.js');
    const later = createAuthenticator({ auth: instance.auth!.config, store: instance.auth!.store!, clock: () => Date.now() + 60_000 });
    await expect(later.authenticate(`Bearer ${secret}`)).rejects.toMatchObject({ code: 'AUTH_INVALID', message: expect.stringContaining('expired') });
    expect((await sql(bearer(secret))).statusCode).toBe(200);
  });

  it('basic credentials are refused when the provider is oidc', async () => {
    const r = await sql({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
    expect(r.statusCode).toBe(401);
  });
});

describe('the default (no auth: key): registry users by password, and tokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-edge-basic-'));
  let instance: ShoalInstance;
  let app: FastifyInstance;
  const basic = (user: string, password: string): Headers => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

  beforeAll(async () => {
    writeData(dir);
    ({ instance, app } = await startApp(dir, `control_plane: {tenant_url: "sqlite:///registry.db"}\n${CATALOG}`));
    const roles = (await instance.registry.snapshot()).catalog.roles;
    const cheap = { N: 1024, r: 8, p: 1 }; // fast hashes for the test; the default cost is higher
    await addUser(instance.auth!.store!, { username: 'eve', password: 'correct horse', roles: ['analyst'], vars: { user_region: 'us' } }, roles, cheap);
    await addUser(instance.auth!.store!, { username: 'root', password: 'root password', roles: ['admin'] }, roles, cheap);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sql = (headers: Headers) => app.inject({ method: 'POST', url: '/data/sql', headers, payload: { sql: SQL } });

  it('authentication is required: no credential is 401 with Bearer and Basic challenges, and the role header alone gets nothing', async () => {
    const r = await sql({ 'x-provisa-role': 'admin' });
    expect(r.statusCode).toBe(401);
    const challenges = ([] as string[]).concat(r.headers['www-authenticate'] as string | string[]);
    expect(challenges.join(' | ')).toContain('Bearer');
    expect(challenges.join(' | ')).toContain('Basic');
    expect((await app.inject('/health')).json().auth).toEqual({ provider: 'basic' });
  });

  it('a good password is the user; its stored region is what RLS reads', async () => {
    const r = await sql(basic('eve', 'correct horse'));
    expect(r.statusCode).toBe(200);
    expect(r.json().rows).toEqual([[2, '***', 'us']]);
  });

  it('a wrong password and an unknown user are 401 alike', async () => {
    for (const h of [basic('eve', 'wrong horse'), basic('nobody', 'correct horse'), { authorization: 'Basic !!!' }, { authorization: 'Digest x' }]) {
      const r = await sql(h);
      expect(r.statusCode).toBe(401);
      expect(r.body).not.toContain('correct horse');
    }
  });

  it('users are managed through /admin/users by an admin, never showing a hash', async () => {
    const root = basic('root', 'root password');
    const made = await app.inject({ method: 'POST', url: '/admin/users', headers: root, payload: { username: 'fay', password: 'fay password', roles: ['analyst'], vars: { 'provisa.user_region': 'eu' } } });
    expect(made.statusCode).toBe(201);
    expect(made.body).not.toContain('scrypt');
    expect((await sql(basic('fay', 'fay password'))).json().rows).toEqual([[1, '***', 'eu'], [3, '***', 'eu']]);
    const list = await app.inject({ method: 'GET', url: '/admin/users', headers: root });
    expect(list.body).not.toContain('scrypt');
    expect((await app.inject({ method: 'GET', url: '/admin/users', headers: basic('eve', 'correct horse') })).statusCode).toBe(403);
    expect((await app.inject({ method: 'DELETE', url: '/admin/users/fay', headers: root })).statusCode).toBe(200);
    expect((await sql(basic('fay', 'fay password'))).statusCode).toBe(401);
  });
});

describe('provider: none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-edge-none-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('warns when the config is loaded and in /health; the role header then picks any role', async () => {
    writeData(dir);
    const yaml = `control_plane: {tenant_url: "sqlite:///registry.db"}\nauth: {provider: none}\n${CATALOG}`;
    writeFileSync(join(dir, 'shoal.yaml'), yaml);
    expect(loadConfig({ path: join(dir, 'shoal.yaml') }).warnings.map((w) => w.code)).toContain('CONFIG_AUTH_NONE');
    const { instance, app } = await startApp(dir, yaml);
    try {
      expect((await app.inject('/health')).json().auth).toEqual({ provider: 'none', warning: expect.stringContaining('authentication is off') });
      const r = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': 'analyst' }, payload: { sql: SQL, vars: { user_region: 'us' } } });
      expect(r.json().rows).toEqual([[2, '***', 'us']]);
      // a credential that is presented is still checked
      expect((await app.inject({ method: 'POST', url: '/data/sql', headers: bearer(`shoal_pat_${'B'.repeat(43)}`), payload: { sql: SQL } })).statusCode).toBe(401);
    } finally {
      await app.close();
      await instance.close();
    }
  }, 120_000);
});
