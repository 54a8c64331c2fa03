import { describe, expect, it } from 'vitest';
import { normaliseServer, serverSchema } from '../../../src/shoal/config/server-config.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import type { QueryService } from '../../../src/shoal/server/query-service.js';
import { noAuth } from './no-auth.js';

const service: QueryService = {
  auth: noAuth(),
  isReady: () => true,
  health: async () => ({ status: 'ok', dependencies: {} }),
  async query() {
    return { columns: [{ name: 'x', type: 'INTEGER' }], batches: (async function* () { yield [[1]]; })(), headers: { 'x-shoal-route': 'engine' } };
  },
};

const corsHeaders = (headers: Record<string, unknown>): string[] => Object.keys(headers).filter((h) => h.startsWith('access-control-'));
const query = (origin: string) => ({ method: 'POST' as const, url: '/data/sql', payload: { sql: 'select 1', role: 'analyst' }, headers: { origin } });
const preflight = (origin: string, method = 'POST') => ({
  method: 'OPTIONS' as const,
  url: '/data/sql',
  headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type' },
});
const configured = normaliseServer(serverSchema.parse({ cors: { origins: ['https://app.example.com'] } }));

describe('CORS', () => {
  it('is off when server.cors is not configured: no Access-Control-* header, no preflight answer', async () => {
    const app = await buildApp({ service });
    const r = await app.inject(query('https://app.example.com'));
    expect(r.statusCode).toBe(200);
    expect(corsHeaders(r.headers)).toEqual([]);
    const p = await app.inject(preflight('https://app.example.com'));
    expect(p.statusCode).toBe(404);
    expect(corsHeaders(p.headers)).toEqual([]);
    await app.close();
  });

  it('a configured origin gets its origin echoed and the exposed headers; its preflight is answered 204', async () => {
    const app = await buildApp({ service, server: configured });
    const r = await app.inject(query('https://app.example.com'));
    expect(r.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(r.headers['access-control-expose-headers']).toContain('x-shoal-route');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers.vary).toContain('Origin');
    const p = await app.inject(preflight('https://app.example.com'));
    expect(p.statusCode).toBe(204);
    expect(p.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(p.headers['access-control-allow-methods']).toContain('POST');
    expect(p.headers['access-control-allow-headers']).toContain('content-type');
    expect(p.headers['access-control-max-age']).toBe('600');
    await app.close();
  });

  it('a disallowed origin gets no CORS headers, and its preflight is refused with 403 CORS_NOT_ALLOWED', async () => {
    const app = await buildApp({ service, server: configured });
    for (const origin of ['https://evil.example.com', 'http://app.example.com', 'https://app.example.com.evil.com', 'null']) {
      const r = await app.inject(query(origin));
      expect(corsHeaders(r.headers), origin).toEqual([]);
      const p = await app.inject(preflight(origin));
      expect(p.statusCode, origin).toBe(403);
      expect(p.json().error.code).toBe('CORS_NOT_ALLOWED');
      expect(corsHeaders(p.headers), origin).toEqual([]);
    }
    // a listed origin asking for a method that is not listed is refused as well
    const put = await app.inject(preflight('https://app.example.com', 'PUT'));
    expect(put.statusCode).toBe(403);
    expect(corsHeaders(put.headers)).toEqual([]);
    await app.close();
  });

  it('a preflight is answered before authentication (browsers send it without credentials)', async () => {
    const locked = { ...service, auth: undefined };
    const app = await buildApp({ service: locked, server: configured });
    expect((await app.inject(query('https://app.example.com'))).statusCode).toBe(401);
    const p = await app.inject(preflight('https://app.example.com'));
    expect(p.statusCode).toBe(204);
    expect(p.headers['access-control-allow-origin']).toBe('https://app.example.com');
    await app.close();
  });

  it('credentials: true is sent only to a listed origin', async () => {
    const app = await buildApp({ service, server: normaliseServer(serverSchema.parse({ cors: { origins: ['https://app.example.com'], credentials: true } })) });
    expect((await app.inject(query('https://app.example.com'))).headers['access-control-allow-credentials']).toBe('true');
    expect((await app.inject(query('https://evil.example.com'))).headers['access-control-allow-credentials']).toBeUndefined();
    await app.close();
  });
});
