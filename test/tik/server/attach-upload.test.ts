import { afterAll, describe, expect, it } from 'vitest';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { ATTACH_BODY_LIMIT } from '../../../src/tik/server/api-routes.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { T0, cleanup, supportStore, tik } from '../cli/harness.js';

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

describe('attach by upload', () => {
  it('stores the uploaded bytes as a blob and attaches them at the path; refuses a body over the limit', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0 }, authorship: { mode: 'open' } });
    servers.push(server);
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    const bytes = Buffer.from('steps to reproduce\n', 'utf8');
    const r = await server.app.inject({ method: 'PUT', url: `/api/tickets/${ticket}/artifacts/repro/steps.txt?actor=seb`, headers: { 'content-type': 'text/plain' }, payload: bytes });
    expect(r.statusCode, r.body).toBe(200);
    expect((JSON.parse(r.body) as { events: { type: string }[] }).events.map((e) => e.type)).toEqual([':artifact/attach']);
    const store = await openFileStore(dir);
    expect(Buffer.from((await store.readBlob(ticket, sha256Id(bytes)))!).toString('utf8')).toBe('steps to reproduce\n');
    const log = JSON.parse((await tik(dir, ['log', ticket, '--json'])).stdout) as { actor: string }[];
    expect(log.map((e) => e.actor)).toEqual(['seb', 'seb']);

    const big = await server.app.inject({ method: 'PUT', url: `/api/tickets/${ticket}/artifacts/repro/big.bin?actor=seb`, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.alloc(ATTACH_BODY_LIMIT + 1) });
    expect(big.statusCode).toBe(413);
    expect((JSON.parse((await tik(dir, ['log', ticket, '--json'])).stdout) as unknown[]).length).toBe(2);
    // an upload needs the same authorship as any write
    const closed = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0 } });
    servers.push(closed);
    const refused = await closed.app.inject({ method: 'PUT', url: `/api/tickets/${ticket}/artifacts/x?actor=seb`, headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(refused.statusCode).toBe(403);
  });
});
