import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/shoal/server/app.js';
import { hostAllowList, hostOf } from '../../../src/shoal/server/host-allow-list.js';
import type { QueryService } from '../../../src/shoal/server/query-service.js';
import { noAuth } from './no-auth.js';

const service: QueryService = {
  auth: noAuth(),
  isReady: () => true,
  health: async () => ({ status: 'ok', dependencies: {} }),
  async query() {
    return { columns: [{ name: 'x', type: 'INTEGER' }], batches: (async function* () { yield [[1]]; })() };
  },
};

const sql = (host: string) => ({ method: 'POST' as const, url: '/data/sql', payload: { sql: 'select 1', role: 'analyst' }, headers: { host } });

describe('Host allow-list', () => {
  it('by default answers loopback names and refuses any other Host with 421 HOST_NOT_ALLOWED', async () => {
    const app = await buildApp({ service });
    for (const host of ['localhost:8000', '127.0.0.1:8000', '[::1]:8000', 'LOCALHOST']) expect((await app.inject(sql(host))).statusCode, host).toBe(200);
    const r = await app.inject(sql('attacker.example:8000'));
    expect(r.statusCode).toBe(421);
    expect(r.json().error.code).toBe('HOST_NOT_ALLOWED');
    expect(r.json().error.message).toContain('attacker.example');
    expect(r.json().error.hint).toContain('server.allowed_hosts');
    await app.close();
  });

  it('adds server.hostname and a specific bind address to the default list', async () => {
    const app = await buildApp({ service, server: { hostname: 'shoal.example.com' }, bindHost: '10.1.2.3' });
    expect((await app.inject(sql('shoal.example.com'))).statusCode).toBe(200);
    expect((await app.inject(sql('10.1.2.3:8000'))).statusCode).toBe(200);
    expect((await app.inject(sql('other.example.com'))).statusCode).toBe(421);
    await app.close();
  });

  it('server.allowed_hosts replaces the defaults: loopback is refused unless listed; *.domain matches subdomains only', async () => {
    const app = await buildApp({ service, server: { allowed_hosts: ['shoal.example.com', '*.internal'] } });
    expect((await app.inject(sql('shoal.example.com:443'))).statusCode).toBe(200);
    expect((await app.inject(sql('a.b.internal'))).statusCode).toBe(200);
    expect((await app.inject(sql('internal'))).statusCode).toBe(421);
    expect((await app.inject(sql('evilinternal'))).statusCode).toBe(421);
    expect((await app.inject(sql('localhost'))).statusCode).toBe(421);
    await app.close();
  });

  it('refuses admin and unknown routes too, but the probes answer on any Host', async () => {
    const app = await buildApp({ service });
    expect((await app.inject({ url: '/admin/epoch', headers: { host: 'evil' } })).statusCode).toBe(421);
    expect((await app.inject({ url: '/no/such/route', headers: { host: 'evil' } })).statusCode).toBe(421);
    for (const url of ['/live', '/ready', '/health', '/metrics?x=1']) expect((await app.inject({ url, headers: { host: '10.9.9.9:8000' } })).statusCode, url).toBe(200);
    await app.close();
  });

  it('a malformed Host header is never allowed, even with "*"', () => {
    expect(hostOf('a b')).toBeUndefined();
    expect(hostOf('host:99999999')).toBeUndefined();
    expect(hostOf('[::1')).toBeUndefined();
    expect(hostOf('Example.COM.:80')).toBe('example.com');
    expect(hostAllowList({ allowed_hosts: ['*'] }).allows('any.where:1')).toBe(true);
    expect(hostAllowList({ allowed_hosts: ['*'] }).allows('a b')).toBe(false);
    expect(hostAllowList({ allowed_hosts: ['*'] }).allows(undefined)).toBe(false);
  });
});
