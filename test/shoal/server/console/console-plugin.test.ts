import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../../src/shoal/server/app.js';
import type { QueryService } from '../../../../src/shoal/server/query-service.js';
import { noAuth } from '../no-auth.js';
import { createAuthenticator } from '../../../../src/shoal/auth/authenticator.js';
import { checkAuth } from '../../../../src/shoal/config/auth-checks.js';

const service: QueryService = {
  isReady: () => true,
  health: async () => ({ status: 'ok', dependencies: {} }),
  async query() {
    return { columns: [{ name: 'x', type: 'INTEGER' }], batches: (async function* () { yield [[1]]; })() };
  },
};

/** Basic auth with no users: every credential is refused, so only public routes answer. */
function locked() {
  const config = checkAuth({ provider: 'basic' }, []).auth;
  return { authenticator: createAuthenticator({ auth: config }), config, roles: async () => [] };
}

describe('the console routes', () => {
  it('serve the page, script and stylesheet without credentials, with strict headers', async () => {
    const app = await buildApp({ service, auth: locked() });
    for (const [url, type] of [['/', 'text/html'], ['/console/app.js', 'text/javascript'], ['/console/style.css', 'text/css']] as const) {
      const r = await app.inject({ url });
      expect(r.statusCode, url).toBe(200);
      expect(r.headers['content-type']).toContain(type);
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-frame-options']).toBe('DENY');
    }
    // the data routes still need credentials
    expect((await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'select 1' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/auth/whoami' })).statusCode).toBe(401);
    await app.close();
  });

  it('is public for GET and HEAD only: another method on a public path needs credentials', async () => {
    // a plugin that answers POST / (none does today): being on a public path must not make it public
    const app = await buildApp({ service, auth: locked(), plugins: [async (a) => void a.post('/', async () => 'posted')] });
    expect((await app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'HEAD', url: '/health' })).statusCode).not.toBe(401);
    const r = await app.inject({ method: 'POST', url: '/' });
    expect(r.statusCode).toBe(401);
    expect(r.body).not.toContain('posted');
    expect((await app.inject({ method: 'DELETE', url: '/console/app.js' })).statusCode).toBe(401);
    await app.close();
  });

  it('the page has no inline script or style, and the script sets server values as text only', async () => {
    const app = await buildApp({ service, auth: locked() });
    const html = (await app.inject({ url: '/' })).body;
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    const js = (await app.inject({ url: '/console/app.js' })).body;
    expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(js).toContain('function resultCsv(');
    await app.close();
  });

  it('keeps the Host allow-list: the console is refused on a Host the server does not answer to', async () => {
    const app = await buildApp({ service, auth: locked() });
    const r = await app.inject({ url: '/', headers: { host: 'attacker.example' } });
    expect(r.statusCode).toBe(421);
    expect(r.json().error.code).toBe('HOST_NOT_ALLOWED');
    await app.close();
  });

  it('gets no CORS headers for another origin unless server.cors lists it', async () => {
    const app = await buildApp({ service, auth: locked(), server: { cors: { origins: ['https://ok.example'], methods: ['GET'], headers: [], expose_headers: [], credentials: false, max_age: 60 } } });
    expect((await app.inject({ url: '/', headers: { origin: 'https://evil.example' } })).headers['access-control-allow-origin']).toBeUndefined();
    expect((await app.inject({ url: '/', headers: { origin: 'https://ok.example' } })).headers['access-control-allow-origin']).toBe('https://ok.example');
    await app.close();
  });
});

describe('GET /auth/whoami', () => {
  it('names the principal and the roles it may take, with their capabilities', async () => {
    const app = await buildApp({ service: { ...service, auth: noAuth() } });
    const r = await app.inject({ url: '/auth/whoami' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      id: expect.any(String),
      kind: 'anonymous',
      default_role: 'analyst',
      roles: [
        { id: 'admin', capabilities: ['admin'] },
        { id: 'analyst', capabilities: ['query_development'] },
      ],
    });
    await app.close();
  });
});
