import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../../src/tik/verify/index.js';
import { encodeIdList } from '../../../src/tik/sync/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { buildTikServer, tokenHash, type TikServer } from '../../../src/tik/server/index.js';
import { T0, cleanup, eventFiles, snapshot, supportStore, tempDir, tik } from '../cli/harness.js';

// The write-API holes of issue 12, each reproduced against the old server (which ran commander
// on the request's argv in process, and signed with TIK_KEY whatever actor the client named).

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

type Options = Parameters<typeof buildTikServer>[0];

async function replica(extra: Partial<Options> = {}): Promise<{ dir: string; server: TikServer }> {
  const dir = await supportStore();
  dirs.push(dir);
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, authorship: { mode: 'open' }, ...extra } as Options);
  servers.push(server);
  return { dir, server };
}

const body = <T = Record<string, unknown>>(r: { body: string }): T => JSON.parse(r.body) as T;
const errorOf = (r: { statusCode: number; body: string }): [number, string] => [r.statusCode, body<{ error: { code: string } }>(r).error.code];
const tickets = async (dir: string): Promise<readonly string[]> => (await openFileStore(dir)).ticketIds();

describe('the write API takes no argv: no option reaches the CLI', () => {
  it('a smuggled --root (as the value of --title) writes nowhere: not into the other store, not here', async () => {
    const { dir, server } = await replica();
    const other = await supportStore();
    dirs.push(other);
    const before = snapshot(other);
    const r = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--title', '--root', other], actor: 'seb' } });
    expect(await tickets(other)).toEqual([]);
    expect(snapshot(other)).toEqual(before);
    expect(await tickets(dir)).toEqual([]);
    expect(errorOf(r)).toEqual([400, 'cli/usage']);
  });

  it('a smuggled --root postgresql:// URL opens no connection: the request is a usage error', async () => {
    const { dir, server } = await replica();
    const r = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request', '--title', '--root', 'postgresql://tik@127.0.0.1:1/tik'], actor: 'seb' } });
    expect(errorOf(r)).toEqual([400, 'cli/usage']);
    expect(await tickets(dir)).toEqual([]);
  });

  it('a smuggled --actor (as the value of --reason) cannot write as someone else', async () => {
    const { dir, server } = await replica();
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    const before = eventFiles(dir, ticket);
    const r = await server.app.inject({ method: 'POST', url: '/api/dispute', payload: { args: [ticket, 'category', '--reason', '--actor', 'mallory'], actor: 'seb' } });
    expect((await tik(dir, ['log', ticket, '--json'])).stdout).not.toContain('mallory');
    expect(eventFiles(dir, ticket)).toEqual(before);
    expect(errorOf(r)).toEqual([400, 'cli/usage']);
  });

  it('an option that is not the verb\'s own is refused, and --title text that looks like an option is just text on the typed route', async () => {
    const { dir, server } = await replica();
    for (const args of [['support-request', '--root', '/tmp'], ['support-request', '--actor=mallory'], ['support-request', '--json']]) {
      expect(errorOf(await server.app.inject({ method: 'POST', url: '/api/new', payload: { args, actor: 'seb' } })), args.join(' ')).toEqual([400, 'server/bad-option']);
    }
    const typed = await server.app.inject({ method: 'POST', url: '/api/tickets', payload: { process: 'support-request', title: '--root /etc', actor: 'seb' } });
    expect(typed.statusCode, typed.body).toBe(200);
    const ticket = body<{ ticket: string }>(typed).ticket;
    expect((await tickets(dir)).includes(ticket)).toBe(true);
    expect(body<{ title: string }>(await server.app.inject({ method: 'GET', url: `/api/status/${ticket}` })).title).toBe('--root /etc');
  });

  it('a typed body with an unknown field is refused naming it', async () => {
    const { server } = await replica();
    const r = await server.app.inject({ method: 'POST', url: '/api/tickets', payload: { process: 'support-request', root: '/tmp', actor: 'seb' } });
    expect(errorOf(r)).toEqual([400, 'input/invalid']);
  });

  it('/api/status/--help is a coded error, never the CLI help text', async () => {
    const { server } = await replica();
    for (const url of ['/api/status/--help', '/api/explain/--version', '/api/log/-h']) {
      const r = await server.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expect(body<{ error: { code: string } }>(r).error.code, url).toBe('ticket/bad-prefix');
      expect(r.body, url).not.toMatch(/Usage|Options:/);
    }
  });

  it('no file path of the server appears in an error', async () => {
    const { dir, server } = await replica();
    const r = await server.app.inject({ method: 'POST', url: '/api/tickets', payload: { process: 'no-such-process', actor: 'seb' } });
    expect(errorOf(r)).toEqual([404, 'cli/unknown-process']);
    expect(r.body).not.toContain(dir);
  });
});

describe('errors and listings come from the service, not from stderr', () => {
  it('a warning followed by an error gives the real error over HTTP', async () => {
    const { dir, server } = await replica();
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    expect((await tik(dir, ['set', ticket, 'category=technical'])).code).toBe(0);
    // Lose the create: the fact's parent is missing (a warning) and the pin is gone (the error).
    const [create] = JSON.parse((await tik(dir, ['log', ticket, '--json'])).stdout) as { id: string }[];
    rmSync(join(dir, 'tickets', ticket, 'events', `${create!.id}.edn`));
    const cli = await tik(dir, ['status', ticket, '--json']);
    expect(cli.stderr.split('\n')[0]).toMatch(/log INCOMPLETE/);
    const r = await server.app.inject({ method: 'GET', url: `/api/status/${ticket}` });
    expect(errorOf(r)).toEqual([422, 'process/unresolved']);
    expect(body<{ error: { message: string } }>(r).error.message).toContain('cannot be found');
  });

  it('one broken ticket leaves ls, next and the board working, and names it', async () => {
    const { dir, server } = await replica();
    const good = (await tik(dir, ['new', 'support-request', '--title', 'the good one'])).stdout.trim();
    const bad = (await tik(dir, ['new', 'support-request', '--title', 'the bad one'])).stdout.trim();
    const [file] = readdirSync(join(dir, 'tickets', bad, 'events')).filter((f) => f.endsWith('.edn'));
    writeFileSync(join(dir, 'tickets', bad, 'events', file!), '{:not "an event"');

    const ls = await server.app.inject({ method: 'GET', url: '/api/ls?all=true' });
    expect(ls.statusCode, ls.body).toBe(200);
    expect(body<{ ticket: string }[]>(ls).map((t) => t.ticket)).toEqual([good]);
    expect(JSON.parse(String(ls.headers['tik-skipped']))).toEqual([{ ticket: bad, code: 'event/hash-mismatch' }]);

    const next = await server.app.inject({ method: 'GET', url: '/api/next' });
    expect(next.statusCode, next.body).toBe(200);
    expect(body<{ skipped: { ticket: string; code: string }[] }>(next).skipped.map((s) => [s.ticket, s.code])).toEqual([[bad, 'event/hash-mismatch']]);
    expect(body<{ items: { unlocks: { ticket: string }[] }[] }>(next).items.flatMap((i) => i.unlocks.map((u) => u.ticket))).toContain(good);

    const board = await server.app.inject({ method: 'GET', url: '/api/board' });
    expect(board.statusCode).toBe(200);
    expect(body<{ cards: { title: string }[] }>(board).cards.map((c) => c.title)).toEqual(['the good one']);
    expect(body<{ skipped: { ticket: string; code: string }[] }>(board).skipped.map((s) => [s.ticket, s.code])).toEqual([[bad, 'event/hash-mismatch']]);

    // The CLI says the same: the good ticket listed, the bad one named on stderr, exit 1.
    const cli = await tik(dir, ['ls', '--all', '--json']);
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout)).toEqual(body(ls));
    expect(cli.stderr).toContain(`ticket ${bad}: event/hash-mismatch`);
    const cliNext = await tik(dir, ['next', '--json']);
    expect(JSON.parse(cliNext.stdout)).toEqual(body(next));
  });
});

describe('authorship', () => {
  it('a replica never signs a client\'s write with its own key; it signs only its own actor\'s events', async () => {
    const keys = tempDir('tik-keys-');
    dirs.push(keys);
    const keyPath = join(keys, 'replica');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'replica', '-f', keyPath]);
    const key = await loadSigningKey(keyPath);
    const { dir, server } = await replica({ env: { TIK_NOW: T0, TIK_KEY: keyPath }, self: { actor: 'tik-backend', key } });
    const created = await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request'], actor: 'mallory' } });
    expect(created.statusCode, created.body).toBe(200);
    const ticket = body<{ ticket: string }>(created).ticket;
    const store = await openFileStore(dir);
    expect(await store.sidecarNames(ticket)).toEqual([]);
  });

  it('closed by default: the write API refuses every write, reads still answer', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0 } });
    servers.push(server);
    expect(errorOf(await server.app.inject({ method: 'POST', url: '/api/tickets', payload: { process: 'support-request', actor: 'seb' } }))).toEqual([403, 'auth/writes-disabled']);
    expect(errorOf(await server.app.inject({ method: 'POST', url: '/api/new', payload: { args: ['support-request'], actor: 'seb' } }))).toEqual([403, 'auth/writes-disabled']);
    expect((await server.app.inject({ method: 'GET', url: '/api/ls' })).statusCode).toBe(200);
  });

  it('tokens: no token → 401, a token for A cannot write as B (403), and writes as A by default', async () => {
    const tokens = new Map([
      [tokenHash('token-a'), { principal: 'alice', actors: ['alice'], sync: false }],
      [tokenHash('token-peer'), { principal: 'peer', actors: [], sync: true }],
    ]);
    const { dir, server } = await replica({ authorship: { mode: 'tokens', tokens } });
    const post = (headers: Record<string, string>, payload: object) => server.app.inject({ method: 'POST', url: '/api/tickets', headers, payload });
    expect(errorOf(await post({}, { process: 'support-request' }))).toEqual([401, 'auth/unauthenticated']);
    expect(errorOf(await post({ authorization: 'Bearer wrong' }, { process: 'support-request' }))).toEqual([401, 'auth/unauthenticated']);
    expect(errorOf(await post({ authorization: 'Bearer token-a' }, { process: 'support-request', actor: 'bob' }))).toEqual([403, 'auth/forbidden']);
    expect(errorOf(await post({ authorization: 'Bearer token-peer' }, { process: 'support-request', actor: 'alice' }))).toEqual([403, 'auth/forbidden']);
    const ok = await post({ authorization: 'Bearer token-a' }, { process: 'support-request' });
    expect(ok.statusCode, ok.body).toBe(200);
    const ticket = body<{ ticket: string }>(ok).ticket;
    expect(JSON.parse((await tik(dir, ['log', ticket, '--json'])).stdout)[0].actor).toBe('alice');
    // reads and sync are gated too; a sync read (fetch) needs any valid token, like the read API
    expect((await server.app.inject({ method: 'GET', url: '/api/ls' })).statusCode).toBe(401);
    expect((await server.app.inject({ method: 'GET', url: '/api/ls', headers: { authorization: 'Bearer token-a' } })).statusCode).toBe(200);
    const sync = (auth?: string) => server.app.inject({ method: 'POST', url: '/sync/v1/fetch', headers: { 'content-type': 'application/octet-stream', ...(auth ? { authorization: auth } : {}) }, payload: Buffer.from(encodeIdList([])) });
    expect(errorOf(await sync())).toEqual([401, 'auth/unauthenticated']);
    expect(errorOf(await sync('Bearer wrong'))).toEqual([401, 'auth/unauthenticated']);
    expect((await sync('Bearer token-a')).statusCode).toBe(200);
    expect((await sync('Bearer token-peer')).statusCode).toBe(200);
  });

  it('a Host allow-list refuses any other Host', async () => {
    const { server } = await replica({ allowedHosts: ['tik.example'] });
    expect(errorOf(await server.app.inject({ method: 'GET', url: '/api/ls', headers: { host: 'evil.example:7777' } }))).toEqual([421, 'server/bad-host']);
    expect((await server.app.inject({ method: 'GET', url: '/api/ls', headers: { host: 'tik.example:7777' } })).statusCode).toBe(200);
  });
});
