import { afterAll, describe, expect, it } from 'vitest';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { T0, cleanup, supportStore } from '../cli/harness.js';

// Issue 12: the typed HTTP API is described by an OpenAPI document generated from the schemas
// the routes validate with, so what it says a body may hold is what the route accepts.

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

type Doc = { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[]; additionalProperties?: unknown; properties?: Record<string, { minItems?: number; maxLength?: number }> } }> } }>> };

describe('GET /api/openapi.json', () => {
  it('describes every typed route, with the request bodies the routes validate', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, authorship: { mode: 'open' } });
    servers.push(server);
    const res = await server.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/api/status/{ticket}',
        '/api/explain/{ticket}',
        '/api/log/{ticket}',
        '/api/next',
        '/api/ls',
        '/api/board',
        '/api/ticket-view/{ticket}',
        '/api/whoami',
        '/api/tickets',
        '/api/tickets/{ticket}/facts',
        '/api/tickets/{ticket}/retract',
        '/api/tickets/{ticket}/dispute',
        '/api/tickets/{ticket}/comments',
        '/api/tickets/{ticket}/attestations',
        '/api/tickets/{ticket}/artifacts/{path}',
      ].sort(),
    );
    const create = doc.paths['/api/tickets']!.post!.requestBody!.content['application/json']!.schema;
    expect(create.required).toEqual(['process']);
    expect(create.additionalProperties).toBe(false);
    const facts = doc.paths['/api/tickets/{ticket}/facts']!.post!.requestBody!.content['application/json']!.schema;
    expect(facts.properties!.facts!.minItems).toBe(1);
    // what the document says is refused, the route refuses
    const post = (url: string, payload: object) => server.app.inject({ method: 'POST', url, payload });
    expect(JSON.parse((await post('/api/tickets', { process: 'support-request', actor: 'seb', extra: 1 })).body).error.code).toBe('input/invalid');
    expect(JSON.parse((await post('/api/tickets', { title: 'no process', actor: 'seb' })).body).error.code).toBe('input/invalid');
    const made = JSON.parse((await post('/api/tickets', { process: 'support-request', actor: 'seb' })).body) as { ticket: string };
    expect(JSON.parse((await post(`/api/tickets/${made.ticket}/facts`, { facts: [], actor: 'seb' })).body).error.code).toBe('input/invalid');
  });
});
