import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTikServer, tokenHash, type Authorship, type TikServer } from '../../../src/tik/server/index.js';
import { formatInstant } from '../../../src/tik/edn/instant-text.js';
import { Instant, Uuid, kw } from '../../../src/tik/edn/value.js';
import { heads, mintEvent, parseEvent } from '../../../src/tik/kernel/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { ednMapOf } from '../sync/edn-helpers.js';
import { T0, cleanup, supportStore, tik } from '../cli/harness.js';

// The reads behind the browser board (issue 19): /api/board and /api/ls take `ls --where`
// selectors (the same parser, the same error), /api/ticket-view, /api/whoami, the UI's own
// static routes, and the security headers every answer carries.

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

async function replica(authorship: Authorship = { mode: 'open' }): Promise<{ dir: string; server: TikServer }> {
  const dir = await supportStore();
  dirs.push(dir);
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, authorship });
  servers.push(server);
  return { dir, server };
}

/**
 * An attach event appended through the store API, as a sync peer would deliver it (admitted, but
 * written by no `tik` verb), after the ticket's heads; `bytes` are stored as its blob first.
 */
async function deliverAttach(dir: string, ticket: string, atMs: number, path: (at: string) => string, hash: string, bytes?: Uint8Array): Promise<string> {
  const store = await openFileStore(dir);
  if (bytes !== undefined) await store.putBlob(ticket, bytes);
  const events = (await store.events(ticket)).map((e) => parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id));
  const at = new Instant(atMs);
  const m = mintEvent({ ticket: new Uuid(ticket), type: kw('artifact/attach'), actor: 'seb', at, parents: heads(events), body: ednMapOf({ 'artifact/path': path(formatInstant(atMs)), 'artifact/hash': hash }) });
  await store.append(ticket, m.event.id, Buffer.from(m.text));
  return m.event.id;
}

const json = <T = Record<string, unknown>>(r: { body: string }): T => JSON.parse(r.body) as T;
const errorOf = (r: { statusCode: number; body: string }): [number, string] => [r.statusCode, json<{ error: { code: string } }>(r).error.code];

describe('the board API', () => {
  it('filters the board and the listing with the selectors of tik ls --where, refusing a bad one alike', async () => {
    const { dir, server } = await replica();
    const a = (await tik(dir, ['new', 'support-request', '--title', 'Login fails'])).stdout.trim();
    await tik(dir, ['new', 'support-request', '--title', 'Nothing yet']);
    await tik(dir, ['set', a, 'category=technical', 'severity=high']);
    const where = encodeURIComponent('stage=:triaged and fact:severity=:high');
    const board = await server.app.inject({ method: 'GET', url: `/api/board?where=${where}` });
    expect(board.statusCode, board.body).toBe(200);
    expect(json<{ cards: { ticket: string }[] }>(board).cards.map((c) => c.ticket)).toEqual([a]);
    const ls = await server.app.inject({ method: 'GET', url: `/api/ls?where=${where}` });
    expect(json(ls)).toEqual(JSON.parse((await tik(dir, ['ls', '--where', 'stage=:triaged and fact:severity=:high', '--json'])).stdout));
    expect(json<{ cards: unknown[] }>(await server.app.inject({ method: 'GET', url: '/api/board?where=' })).cards).toHaveLength(2);

    const cli = await tik(dir, ['ls', '--where', 'bogus=1']);
    expect(cli.stderr).toContain('select/bad-term');
    for (const url of ['/api/board?where=bogus%3D1', '/api/ls?where=bogus%3D1']) expect(errorOf(await server.app.inject({ method: 'GET', url })), url).toEqual([400, 'select/bad-term']);
    expect(errorOf(await server.app.inject({ method: 'GET', url: `/api/board?where=${'x'.repeat(8193)}` }))).toEqual([400, 'input/invalid']);
  });

  it('derives the board at `at=` as /api/status does, and refuses a bad instant alike', async () => {
    const { dir, server } = await replica();
    const t = (await tik(dir, ['new', 'support-request', '--title', 'Login fails'])).stdout.trim();
    const board = json<{ at: string; cards: { ageMs: number }[] }>(await server.app.inject({ method: 'GET', url: '/api/board?at=2026-07-09T10:00:00Z' }));
    expect([board.at, board.cards[0]!.ageMs]).toEqual(['2026-07-09T10:00:00Z', 24 * 3_600_000]);
    const status = errorOf(await server.app.inject({ method: 'GET', url: `/api/status/${t}?at=garbage` }));
    expect(status[0]).toBe(400);
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/board?at=garbage' }))).toEqual(status);
  });

  it('serves the ticket page data by id prefix, and a coded 404 for an unknown ticket', async () => {
    const { dir, server } = await replica();
    const t = (await tik(dir, ['new', 'support-request', '--title', 'printer on fire'])).stdout.trim();
    await tik(dir, ['comment', t, 'toner everywhere']);
    const r = await server.app.inject({ method: 'GET', url: `/api/ticket-view/${t.slice(0, 8)}` });
    expect(r.statusCode, r.body).toBe(200);
    const v = json<{ ticket: string; title: string; log: { comment: string | null }[]; svg: string; blocks: { stage: string; missing: string[] }[] }>(r);
    expect([v.ticket, v.title]).toEqual([t, 'printer on fire']);
    expect(v.log.map((e) => e.comment)).toEqual([null, 'toner everywhere']);
    expect(v.svg).toMatch(/^<svg /);
    expect(v.blocks.find((b) => b.stage === ':triaged')!.missing).toContain('category is missing; :triager (seb) must set it');
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/ticket-view/ffffffff' }))).toEqual([404, 'ticket/unknown']);
  });

  it('shows only what tik comment writes as a comment: the exact path, valid UTF-8, at most 65,536 characters', async () => {
    const { dir, server } = await replica();
    const t = (await tik(dir, ['new', 'support-request', '--title', 'big files'])).stdout.trim();
    const later = Date.parse(T0) + 60_000;
    const sha = (b: Uint8Array): string => `sha256-${createHash('sha256').update(b).digest('hex')}`;
    // A big file under comment/ is an attachment, not a comment: its bytes stay out of the page.
    const big = new Uint8Array(2 * 1024 * 1024).fill(1);
    const file = await deliverAttach(dir, t, later, () => 'comment/x', sha(big), big);
    // The exact form, but bytes that are not UTF-8, and a text longer than the comment API takes.
    const bad = Uint8Array.of(0x68, 0x69, 0xff, 0xfe);
    const notText = await deliverAttach(dir, t, later + 1000, (at) => `comment/${at}`, sha(bad), bad);
    const long = new TextEncoder().encode('é'.repeat(70_000));
    const tooLong = await deliverAttach(dir, t, later + 2000, (at) => `comment/${at}`, sha(long), long);
    const r = await server.app.inject({ method: 'GET', url: `/api/ticket-view/${t}` });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body.length).toBeLessThan(300_000);
    const log = new Map(json<{ log: { id: string; summary: string; comment: string | null; commentNote: string | null }[] }>(r).log.map((e) => [e.id, e] as const));
    expect(log.get(file)).toMatchObject({ summary: 'attached comment/x', comment: null, commentNote: null });
    expect(log.get(notText)).toMatchObject({ summary: 'commented', comment: null, commentNote: 'the text is not shown: it is not valid UTF-8' });
    expect(log.get(tooLong)).toMatchObject({ summary: 'commented', comment: 'é'.repeat(65_536), commentNote: 'truncated: the first 65,536 of 70,000 characters' });
  });

  it('shows a comment whose hash is not a content id as unavailable instead of failing the page', async () => {
    const { dir, server } = await replica();
    const t = (await tik(dir, ['new', 'support-request', '--title', 'junk hash'])).stdout.trim();
    const junk = await deliverAttach(dir, t, Date.parse(T0) + 60_000, (at) => `comment/${at}`, 'junk');
    const r = await server.app.inject({ method: 'GET', url: `/api/ticket-view/${t}` });
    expect(r.statusCode, r.body).toBe(200);
    const entry = json<{ log: { id: string; comment: string | null; commentNote: string | null }[] }>(r).log.find((e) => e.id === junk);
    expect(entry).toMatchObject({ comment: null, commentNote: 'the text is unavailable: its hash "junk" is not a content id' });
  });

  it('says who the caller is: the token’s principal and actors, 401 without a token under --tokens', async () => {
    const tokens = new Map([[tokenHash('seb-secret'), { principal: 'seb', actors: ['seb', 'seb-bot'], sync: false }]]);
    const { server } = await replica({ mode: 'tokens', tokens });
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/whoami' }))).toEqual([401, 'auth/unauthenticated']);
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/whoami', headers: { authorization: 'Bearer nope' } }))).toEqual([401, 'auth/unauthenticated']);
    expect(json(await server.app.inject({ method: 'GET', url: '/api/whoami', headers: { authorization: 'Bearer seb-secret' } }))).toEqual({ mode: 'tokens', principal: 'seb', actors: ['seb', 'seb-bot'], writes: true });
    // The page itself holds no data: it loads without a token (and asks for one).
    expect((await server.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/board' }))).toEqual([401, 'auth/unauthenticated']);
    const open = await replica();
    expect(json(await open.server.app.inject({ method: 'GET', url: '/api/whoami' }))).toEqual({ mode: 'open', principal: null, actors: [], writes: true });
    const closed = await replica({ mode: 'closed' });
    expect(json(await closed.server.app.inject({ method: 'GET', url: '/api/whoami' }))).toEqual({ mode: 'closed', principal: null, actors: [], writes: false });
  });

  it('serves its script and style from its own routes, with a strict policy on every answer', async () => {
    const { server } = await replica();
    const page = await server.app.inject({ method: 'GET', url: '/' });
    const script = await server.app.inject({ method: 'GET', url: '/ui/app.js' });
    const style = await server.app.inject({ method: 'GET', url: '/ui/style.css' });
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
    // Ticket data reaches the DOM only as text: the script never parses markup from it.
    expect(script.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    expect(page.body).not.toMatch(/https?:\/\//);
    for (const r of [page, script, style, await server.app.inject({ method: 'GET', url: '/api/ls' })]) {
      expect(r.headers['content-security-policy']).toContain("default-src 'self'");
      expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(r.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
  });
});
