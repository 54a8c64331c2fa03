import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditQueue } from '../../../src/shoal/audit/audit-queue.js';
import type { StoredAuditRecord } from '../../../src/shoal/audit/audit-record.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { routeOf } from '../../../src/shoal/server/audit-plugin.js';
import type { QueryService } from '../../../src/shoal/server/query-service.js';
import { noAuth } from './no-auth.js';
import { openAuditStoreAt } from '../../support/audit-store.js';

// How a request ended, as the audit log records it: the streams here are the HTTP layer's own
// (a service that yields rows, fails mid-stream or waits until the client goes away).
const dir = mkdtempSync(join(tmpdir(), 'shoal-audit-outcomes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function service(mode: 'fail-after-first' | 'wait-for-abort' | 'locked'): QueryService {
  return {
    ...(mode === 'locked' ? {} : { auth: noAuth() }),
    isReady: () => true,
    health: async () => ({ status: 'ok', dependencies: {} }),
    async query(_req, signal) {
      return {
        columns: [{ name: 'n', type: 'INTEGER' }],
        tables: ['d.t'],
        headers: { 'x-shoal-route': 'direct:pg' },
        batches: (async function* () {
          yield [[1], [2]];
          if (mode === 'fail-after-first') throw new Error('boom: row value 4111');
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new ShoalError('QUERY_CANCELLED', 'the client went away'))));
        })(),
      };
    },
  };
}

async function setup(mode: 'fail-after-first' | 'wait-for-abort' | 'locked', name: string) {
  const store = await openAuditStoreAt(`sqlite:///${join(dir, `${name}.db`)}`);
  const queue = new AuditQueue(store);
  const lines: string[] = [];
  const logger = { level: 'info', stream: new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }) };
  const app = await buildApp({ service: service(mode), audit: { sink: queue }, logger });
  const records = async (): Promise<readonly StoredAuditRecord[]> => {
    await queue.flush();
    return store.list({ limit: 10 });
  };
  const close = async () => {
    await app.close();
    await queue.close();
    await store.close();
  };
  return { app, records, lines, close };
}

describe('audit outcomes', () => {
  it('a failure after the first rows is recorded with its code and the rows sent, and logged as a structured line', async () => {
    const { app, records, lines, close } = await setup('fail-after-first', 'fail');
    await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: "select n from t where s = 'x-4111'", role: 'analyst' } }).catch(() => undefined);
    let recs = await records();
    for (let i = 0; recs.length === 0 && i < 100; i++) recs = await new Promise((r) => setTimeout(() => void records().then(r), 20));
    expect(recs[0]).toMatchObject({ outcome: 'INTERNAL', rows: 2, route: 'direct', tables: ['d.t'], role: 'analyst' });
    const line = lines.map((l) => JSON.parse(l) as { msg: string; audit?: { outcome: string; sql_fingerprint: string } }).find((l) => l.msg === 'audit');
    expect(line?.audit).toMatchObject({ outcome: 'INTERNAL', sql_fingerprint: recs[0]!.sql_fingerprint });
    expect(lines.join('')).not.toContain('x-4111');
    await close();
  });

  it('a client that goes away mid-stream is recorded as cancelled', async () => {
    const { app, records, close } = await setup('wait-for-abort', 'cancel');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/data/sql', headers: { 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => {
          req.destroy(); // the first rows arrived: hang up
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ sql: 'select n from t', role: 'analyst' }));
    });
    let recs = await records();
    for (let i = 0; recs.length === 0 && i < 200; i++) recs = await new Promise((r) => setTimeout(() => void records().then(r), 20));
    expect(recs[0]).toMatchObject({ outcome: 'cancelled', rows: 2, status: 200 });
    await close();
  });
});

describe('audit of refused credentials', () => {
  it('a request refused by authentication is recorded, as unauthenticated, with the 401 code', async () => {
    const { app, records, close } = await setup('locked', 'locked');
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'select 1' }, headers: { authorization: 'Bearer nope' } });
    expect(r.statusCode).toBe(401);
    const recs = await records();
    expect(recs[0]).toMatchObject({ principal: 'unauthenticated', status: 401, outcome: r.json().error.code, path: '/data/sql' });
    await close();
  });
});

describe('audit route', () => {
  it('is read from the result headers: cache hit, MV, direct, engine', () => {
    expect(routeOf({ 'x-provisa-cache': 'HIT', 'x-shoal-route': 'direct:pg' })).toBe('cache');
    expect(routeOf({ 'x-shoal-mv': 'sales.totals=snapshot:abc', 'x-shoal-route': 'engine' })).toBe('mv');
    expect(routeOf({ 'x-shoal-route': 'direct:pg', 'x-provisa-cache': 'MISS' })).toBe('direct');
    expect(routeOf({ 'x-shoal-route': 'engine' })).toBe('engine');
  });
});
