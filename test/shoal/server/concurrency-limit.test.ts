import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../../src/shoal/auth/authenticator.js';
import { checkAuth } from '../../../src/shoal/config/auth-checks.js';
import { makeRole } from '../../../src/shoal/config/model.js';
import { ConcurrencyLimit } from '../../../src/shoal/server/concurrency-limit.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { ANONYMOUS_PRINCIPAL_ID, principalIdOf } from '../../../src/shoal/server/principal-id.js';
import type { QueryResult, QueryService } from '../../../src/shoal/server/query-service.js';

describe('ConcurrencyLimit', () => {
  it('counts slots per key, refuses over the limit, and a release is idempotent', () => {
    const limit = new ConcurrencyLimit(2);
    const a1 = limit.tryAcquire('a');
    const a2 = limit.tryAcquire('a');
    expect(a1 && a2).toBeTruthy();
    expect(limit.tryAcquire('a')).toBeUndefined();
    expect(limit.tryAcquire('b')).toBeDefined();
    a1!();
    a1!();
    expect(limit.inFlight('a')).toBe(1);
    expect(limit.tryAcquire('a')).toBeDefined();
    expect(limit.tryAcquire('a')).toBeUndefined();
  });

  it('keys a request by its principal, or one anonymous id when none is attached', () => {
    expect(principalIdOf({} as FastifyRequest)).toBe(ANONYMOUS_PRINCIPAL_ID);
    expect(principalIdOf({ principal: { id: 'user:alice', kind: 'basic', roles: ['analyst'], vars: {} } } as unknown as FastifyRequest)).toBe('user:alice');
  });
});

// Authentication is off here (provider none): every request is the one anonymous principal.
const NONE = checkAuth({ provider: 'none', default_role: 'r' }, []).auth;
const ROLES = [makeRole({ id: 'r', capabilities: ['query_development'] })];

/** A service whose queries stay running until the test opens the gate. */
function gatedService(max: number) {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let started = 0;
  const waiters: (() => void)[] = [];
  const service: QueryService = {
    maxConcurrentQueries: max,
    auth: { authenticator: createAuthenticator({ auth: NONE }), config: NONE, roles: async () => ROLES },
    isReady: () => true,
    health: async () => ({ status: 'ok', dependencies: {} }),
    async query(): Promise<QueryResult> {
      started++;
      waiters.splice(0).forEach((w) => w());
      await gate;
      return { columns: [{ name: 'one', type: 'INTEGER' }], batches: (async function* () { yield [[1]]; })() };
    },
  };
  const startedAtLeast = async (n: number): Promise<void> => {
    while (started < n) await new Promise<void>((r) => waiters.push(r));
  };
  return { service, open: () => open(), startedAtLeast };
}

describe('per-principal concurrency over HTTP', () => {
  it('a principal over max_concurrent_queries is answered 429 with Retry-After, and served again once a query ends', async () => {
    const { service, open, startedAtLeast } = gatedService(2);
    const app = await buildApp({ service });
    const ask = () => app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'SELECT 1', role: 'r' } });
    const running = [ask(), ask()];
    await startedAtLeast(2);
    const refused = await ask();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ error: { code: 'TOO_MANY_CONCURRENT_QUERIES' } });
    open();
    for (const r of await Promise.all(running)) expect(r.statusCode).toBe(200);
    const after = await ask();
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ columns: [{ name: 'one', type: 'INTEGER' }], rows: [[1]] });
    await app.close();
  });
});
