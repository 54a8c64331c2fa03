import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../../src/shoal/auth/authenticator.js';
import { checkAuth } from '../../../src/shoal/config/auth-checks.js';
import { makeRole } from '../../../src/shoal/config/model.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import type { QueryRequest, QueryResult, QueryService } from '../../../src/shoal/server/query-service.js';

// The HTTP layer on its own: a fixed-table service lets these tests pin the wire formats and the
// error mapping; the instance-level tests exercise the same routes over the real engine.
// Authentication is off here (provider none); test/shoal/server/edge-auth.test.ts covers it.
const NONE = checkAuth({ provider: 'none', default_role: 'analyst' }, []).auth;
const ROLES = [makeRole({ id: 'admin', capabilities: ['admin'] }), makeRole({ id: 'analyst', capabilities: ['query_development'] })];

function fixedService(opts: { ready?: boolean; fail?: unknown; failAfterFirst?: boolean } = {}) {
  const seen: QueryRequest[] = [];
  const service: QueryService = {
    auth: { authenticator: createAuthenticator({ auth: NONE }), config: NONE, roles: async () => ROLES },
    isReady: () => opts.ready ?? true,
    health: async () => ({ status: 'ok', dependencies: { registry: 'ok' } }),
    async query(req): Promise<QueryResult> {
      seen.push(req);
      if (opts.fail) throw opts.fail;
      async function* batches() {
        yield [[1n, 'a,b', null], [9007199254740993n, 'x"y', new Date('2026-01-02T03:04:05.000Z')]];
        if (opts.failAfterFirst) throw new Error('boom: secret row value');
        yield [[3n, 'z', true]];
      }
      return { columns: [{ name: 'id', type: 'BIGINT' }, { name: 's', type: 'VARCHAR' }, { name: 'x', type: 'ANY' }], batches: batches(), headers: { 'x-shoal-route': 'engine' } };
    },
  };
  return { service, seen };
}

describe('shoal HTTP data API', () => {
  it('returns {columns, rows} as JSON with exact big integers and ISO instants', async () => {
    const { service, seen } = fixedService();
    const app = await buildApp({ service });
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'select 1', vars: { user_region: 'eu' } }, headers: { 'x-provisa-role': 'analyst' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-shoal-route']).toBe('engine');
    expect(JSON.parse(r.body)).toEqual({
      columns: [{ name: 'id', type: 'BIGINT' }, { name: 's', type: 'VARCHAR' }, { name: 'x', type: 'ANY' }],
      rows: [[1, 'a,b', null], ['9007199254740993', 'x"y', '2026-01-02T03:04:05.000Z'], [3, 'z', true]],
    });
    expect(seen[0]).toEqual({ sql: 'select 1', role: 'analyst', vars: { 'provisa.user_region': 'eu' } });
    await app.close();
  });

  it('prefers the body role over the header', async () => {
    const { service, seen } = fixedService();
    const app = await buildApp({ service });
    await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'select 1', role: 'admin' }, headers: { 'x-provisa-role': 'analyst' } });
    expect(seen[0]?.role).toBe('admin');
    await app.close();
  });

  it('streams NDJSON and CSV on request', async () => {
    const { service } = fixedService();
    const app = await buildApp({ service });
    const nd = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' }, headers: { accept: 'application/x-ndjson' } });
    expect(nd.body.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { columns: [{ name: 'id', type: 'BIGINT' }, { name: 's', type: 'VARCHAR' }, { name: 'x', type: 'ANY' }] },
      [1, 'a,b', null],
      ['9007199254740993', 'x"y', '2026-01-02T03:04:05.000Z'],
      [3, 'z', true],
    ]);
    const csv = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' }, headers: { accept: 'text/csv' } });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toBe('id,s,x\r\n1,"a,b",\r\n9007199254740993,"x""y",2026-01-02T03:04:05.000Z\r\n3,z,true\r\n');
    await app.close();
  });

  it('maps typed errors to 4xx/503 with code, message and position', async () => {
    const err = new ShoalError('SQL_SYNTAX', 'unexpected token FROM', { position: { line: 1, column: 8 }, hint: 'check the select list' });
    const app = await buildApp({ service: fixedService({ fail: err }).service });
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'select from' } });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ error: { code: 'SQL_SYNTAX', message: 'unexpected token FROM', position: { line: 1, column: 8 }, hint: 'check the select list' } });
    const down = await buildApp({ service: fixedService({ fail: new ShoalError('SOURCE_UNAVAILABLE', 'source sales-pg is unreachable') }).service });
    expect((await down.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' } })).statusCode).toBe(503);
    await app.close();
    await down.close();
  });

  it('never echoes an untyped error text (it may contain row values)', async () => {
    const app = await buildApp({ service: fixedService({ fail: new Error('value 4111-1111 violates …') }).service });
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' } });
    expect(r.statusCode).toBe(500);
    expect(r.body).not.toContain('4111');
    await app.close();
  });

  it('rejects a malformed body with 400', async () => {
    const app = await buildApp({ service: fixedService().service });
    expect((await app.inject({ method: 'POST', url: '/data/sql', payload: { query: 's' } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: '/data/sql', payload: '{not json', headers: { 'content-type': 'application/json' } })).statusCode).toBe(400);
    await app.close();
  });

  it('a failure mid-stream never yields a complete-looking JSON body', async () => {
    const app = await buildApp({ service: fixedService({ failAfterFirst: true }).service });
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' } }).catch((e: unknown) => e);
    if (r instanceof Error) return expect(r).toBeInstanceOf(Error);
    expect(() => JSON.parse((r as { body: string }).body)).toThrow();
    await app.close();
  });

  it('/ready is 503 until the catalog is built; /live, /health and /metrics answer', async () => {
    const warming = await buildApp({ service: fixedService({ ready: false }).service });
    expect((await warming.inject('/ready')).statusCode).toBe(503);
    expect((await warming.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' } })).statusCode).toBe(503);
    expect((await warming.inject('/live')).json()).toEqual({ status: 'ok' });
    await warming.close();
    const app = await buildApp({ service: fixedService().service });
    expect((await app.inject('/ready')).json()).toEqual({ status: 'ready' });
    expect((await app.inject('/health')).json()).toEqual({ status: 'ok', dependencies: { registry: 'ok' }, auth: { provider: 'none', warning: expect.stringContaining('authentication is off') } });
    await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 's' } });
    const m = await app.inject('/metrics');
    expect(m.headers['content-type']).toContain('text/plain');
    expect(m.body).toContain('shoal_queries_total{outcome="ok"} 1');
    await app.close();
  });
});
