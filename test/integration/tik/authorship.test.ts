import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../../../src/tik/server/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { encodeBundle } from '../../../src/tik/sync/index.js';
import { startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { T0, cleanup, supportStore, tempDir, tik } from '../../tik/cli/harness.js';

// Authorship with real `tik serve` processes (issue 12): bearer tokens map a principal to the
// actors it may write as; under `--admit signed` only events signed by their own actor's
// registered key get in — on the write API (refused outright) and on sync push — and a signed
// event relayed through a middle replica that checks nothing is admitted at the far end, with the
// definition it pins, which the signed replica admits only as published (`tik process sign`).

const dirs: string[] = [];
const procs: ServerProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.kill();
  dirs.forEach(cleanup);
});

async function serve(dir: string, args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const p = await startServer(['--root', dir, 'serve', '--port', String(port), ...args], { cwd: dir, port, system: 'tik', readyPath: '/health', env: { HOME: dir, TIK_NOW: T0, TIK_ACTOR: 'tik-backend', ...env } });
  procs.push(p);
  return p;
}

function keypair(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return path;
}

const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: { error?: { code: string }; ticket?: string } }> => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as { error?: { code: string }; ticket?: string } };
};

const pushBundle = async (url: string, bundle: Uint8Array): Promise<{ status: number; code: string | undefined }> => {
  const r = await fetch(`${url}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bundle });
  const j = (await r.json()) as { error?: { code: string } };
  return { status: r.status, code: j.error?.code };
};

/** The events and sidecars of one ticket of a file store, as a push bundle. */
async function bundleOf(dir: string, ticket: string, withSidecars: boolean): Promise<Uint8Array> {
  const store = await openFileStore(dir);
  const events = (await store.events(ticket)).map((e) => ({ ticket, id: e.id, bytes: e.bytes }));
  const sidecars = [];
  if (withSidecars) for (const name of await store.sidecarNames(ticket)) sidecars.push({ ticket, name, bytes: (await store.readSidecar(ticket, name))! });
  return encodeBundle({ processes: [], blobs: [], events, sidecars });
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 60_000; // guards a hang only; nothing is timed
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('tik serve --tokens (real processes)', () => {
  it('an unauthenticated write is 401, a token for alice cannot write as bob (403), and writes as alice', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const tokens = join(dir, 'tokens.json');
    writeFileSync(tokens, JSON.stringify({ tokens: [{ sha256: tokenHash('alice-secret'), principal: 'alice', actors: ['alice'] }] }));
    const s = await serve(dir, ['--tokens', tokens]);
    expect((await postJson(`${s.url}/api/tickets`, { process: 'support-request' })).status).toBe(401);
    const asBob = await postJson(`${s.url}/api/tickets`, { process: 'support-request', actor: 'bob' }, { authorization: 'Bearer alice-secret' });
    expect([asBob.status, asBob.body.error?.code]).toEqual([403, 'auth/forbidden']);
    const legacyAsBob = await postJson(`${s.url}/api/new`, { args: ['support-request'], actor: 'bob' }, { authorization: 'Bearer alice-secret' });
    expect(legacyAsBob.status).toBe(403);
    const ok = await postJson(`${s.url}/api/tickets`, { process: 'support-request' }, { authorization: 'Bearer alice-secret' });
    expect(ok.status).toBe(200);
    const log = JSON.parse((await tik(dir, ['log', ok.body.ticket!, '--json'])).stdout) as { actor: string }[];
    expect(log.map((e) => e.actor)).toEqual(['alice']);

    // `tik --remote` with a person's token: it pulls (a sync read needs any token) and pushes
    // what it minted, admitted because every pushed event names one of the token's actors.
    const nowhere = tempDir('tik-remote-cwd-');
    dirs.push(nowhere);
    const asBobRemote = await tik(nowhere, ['--remote', s.url, '--actor', 'bob', 'comment', ok.body.ticket!, 'hi'], { TIK_TOKEN: 'alice-secret' });
    expect([asBobRemote.code, asBobRemote.stderr]).toEqual([1, expect.stringMatching(/auth\/forbidden/)]);
    const asAliceRemote = await tik(nowhere, ['--remote', s.url, '--actor', 'alice', 'comment', ok.body.ticket!, 'hi'], { TIK_TOKEN: 'alice-secret' });
    expect(asAliceRemote.code, asAliceRemote.stderr).toBe(0);
    const after = JSON.parse((await tik(dir, ['log', ok.body.ticket!, '--json'])).stdout) as { actor: string }[];
    expect(after.map((e) => e.actor)).toEqual(['alice', 'alice']);
  }, 120_000);
});

describe('tik serve --admit signed (real processes)', () => {
  it('refuses unsigned and wrongly signed events on write and on push; admits a signed one relayed through an untrusting replica', async () => {
    const keys = tempDir('tik-keys-');
    dirs.push(keys);
    const alice = keypair(keys, 'alice');
    const mallory = keypair(keys, 'mallory');

    // The far replica C trusts alice's key only (its own actors register).
    const far = await supportStore();
    dirs.push(far);
    expect((await tik(far, ['actor', 'add', 'alice', `${alice}.pub`])).code).toBe(0);
    const c = await serve(far, ['--admit', 'signed']);

    // Writes through the API are refused outright: C mints nothing for clients.
    const w = await postJson(`${c.url}/api/tickets`, { process: 'support-request', actor: 'alice' });
    expect([w.status, w.body.error?.code]).toEqual([403, 'auth/signed-only']);

    // Alice's own store: one ticket signed by alice, one unsigned, one "alice" signed by mallory.
    const home = await supportStore();
    dirs.push(home);
    // alice publishes the definition her tickets pin: C admits no definition without that
    expect((await tik(home, ['process', 'sign', 'support-request', '--key', alice])).code).toBe(0);
    const signed = (await tik(home, ['--actor', 'alice', 'new', 'support-request', '--title', 'signed'], { TIK_KEY: alice })).stdout.trim();
    const unsigned = (await tik(home, ['--actor', 'alice', 'new', 'support-request', '--title', 'unsigned'])).stdout.trim();
    const forged = (await tik(home, ['--actor', 'alice', 'new', 'support-request', '--title', 'forged'], { TIK_KEY: mallory })).stdout.trim();

    expect(await pushBundle(c.url, await bundleOf(home, unsigned, true))).toEqual({ status: 403, code: 'auth/unsigned' });
    expect(await pushBundle(c.url, await bundleOf(home, forged, true))).toEqual({ status: 403, code: 'auth/bad-signature' });
    // a valid signature stripped off in transit is an unsigned event
    expect(await pushBundle(c.url, await bundleOf(home, signed, false))).toEqual({ status: 403, code: 'auth/unsigned' });
    const farStore = await openFileStore(far);
    expect(await farStore.ticketIds()).toEqual([]);

    // The middle replica M checks no signature (it takes pushes from any token allowed to sync)
    // and pushes to C by anti-entropy; C, signed-only, takes an anonymous push and judges each event.
    const middle = await supportStore();
    dirs.push(middle);
    const middleTokens = join(middle, 'tokens.json');
    writeFileSync(middleTokens, JSON.stringify({ tokens: [{ sha256: tokenHash('relay-secret'), principal: 'home', actors: [], sync: true }] }));
    const m = await serve(middle, ['--tokens', middleTokens, '--peer', c.url, '--interval', '0.2']);
    const pushed = await tik(home, ['sync', m.url, '--push'], { TIK_TOKEN: 'relay-secret' });
    expect(pushed.code, pushed.stderr).toBe(0);
    // M holds the signed ticket and passes it on; C admits it by its signature, with the signature.
    // (sidecars are stored after their events: wait for both)
    await until('the signed ticket at C', async () => ((await farStore.ticketIds()).includes(signed) && (await farStore.sidecarNames(signed)).length === 1 ? true : undefined));
    const status = JSON.parse((await tik(far, ['status', signed, '--json'])).stdout) as { title: string };
    expect(status.title).toBe('signed');
    // The bad tickets M also holds travel in the same pushes and are refused one by one, never admitted.
    expect((await farStore.ticketIds()).includes(unsigned)).toBe(false);
    expect((await farStore.ticketIds()).includes(forged)).toBe(false);

    // `tik --remote URL set …` mints and signs here and pushes through sync: admitted when signed.
    const nowhere = tempDir('tik-remote-cwd-');
    dirs.push(nowhere);
    const unsignedSet = await tik(nowhere, ['--remote', c.url, '--actor', 'alice', 'set', signed, 'category=technical']);
    expect([unsignedSet.code, unsignedSet.stderr]).toEqual([1, expect.stringMatching(/auth\/unsigned/)]);
    const set = await tik(nowhere, ['--remote', c.url, '--actor', 'alice', 'set', signed.slice(0, 8), 'category=technical'], { TIK_KEY: alice });
    expect(set.code, set.stderr).toBe(0);
    const after = JSON.parse((await tik(far, ['status', signed, '--json'])).stdout) as { facts: Record<string, { value: string }> };
    expect(after.facts.category!.value).toBe(':technical');
  }, 180_000);

  it('judges what a signed replica pulls from its --peer by anti-entropy: stores the signed event, refuses and reports the unsigned one', async () => {
    const keys = tempDir('tik-keys-');
    dirs.push(keys);
    const alice = keypair(keys, 'alice');

    // The open replica O holds one ticket signed by alice and one unsigned ticket.
    const open = await supportStore();
    dirs.push(open);
    expect((await tik(open, ['process', 'sign', 'support-request', '--key', alice])).code).toBe(0);
    const signed = (await tik(open, ['--actor', 'alice', 'new', 'support-request', '--title', 'signed'], { TIK_KEY: alice })).stdout.trim();
    const unsigned = (await tik(open, ['--actor', 'alice', 'new', 'support-request', '--title', 'unsigned'])).stdout.trim();
    const o = await serve(open, ['--open-writes']);

    // The signed replica S trusts alice's key and pulls from O by anti-entropy.
    const far = await supportStore();
    dirs.push(far);
    expect((await tik(far, ['actor', 'add', 'alice', `${alice}.pub`])).code).toBe(0);
    const s = await serve(far, ['--admit', 'signed', '--peer', o.url, '--interval', '0.2']);
    const farStore = await openFileStore(far);
    await until('the signed ticket at S', async () => ((await farStore.ticketIds()).includes(signed) && (await farStore.sidecarNames(signed)).length === 1 ? true : undefined));
    // Both tickets travel in the same fetch answer: the unsigned one is never stored.
    expect((await farStore.ticketIds()).includes(unsigned)).toBe(false);
    // The refusal is reported on S's peer status (the sync itself succeeded).
    type Health = { peerStatus: { url: string; state: string; refused?: { ticket: string; code: string }[] }[] };
    const peer = await until('the refusal on S /health', async () => {
      const h = (await (await fetch(`${s.url}/health`)).json()) as Health;
      const p = h.peerStatus.find((x) => x.url === o.url);
      return p?.refused !== undefined && p.refused.length > 0 ? p : undefined;
    });
    expect(peer.state).toBe('ok');
    expect(peer.refused!.map((r) => [r.ticket, r.code])).toEqual([[unsigned, 'auth/unsigned']]);
    expect((await farStore.ticketIds()).includes(unsigned)).toBe(false);
    const tickets = (await (await fetch(`${s.url}/api/ls`)).json()) as unknown;
    expect(JSON.stringify(tickets)).toContain(signed);
    expect(JSON.stringify(tickets)).not.toContain(unsigned);
  }, 180_000);
});

describe('sync push is authenticated (real processes)', () => {
  it('the default policy refuses an anonymous push naming any actor (401); a peer token pushes to a --tokens replica; anti-entropy with a refusing peer still pulls', async () => {
    const peerTokens = join(tempDir('tik-tokens-'), 'tokens.json');
    dirs.push(join(peerTokens, '..'));
    writeFileSync(peerTokens, JSON.stringify({ tokens: [{ sha256: tokenHash('peer-secret'), principal: 'replica-2', actors: [], sync: true }] }));

    // R1: the default policy; R3: --tokens with a peer token; each holds a ticket of its own.
    const [d1, d2, d3] = [await supportStore(), await supportStore(), await supportStore()];
    dirs.push(d1, d2, d3);
    const made = async (dir: string, actor: string): Promise<string> => (await tik(dir, ['--actor', actor, 'new', 'support-request', '--title', `at ${actor}`])).stdout.trim();
    const [t1, t2, t3] = [await made(d1, 'one'), await made(d2, 'x'), await made(d3, 'three')];
    const r1 = await serve(d1, []);
    const r3 = await serve(d3, ['--tokens', peerTokens]);

    // An unsigned event naming actor x, pushed by anyone: refused by both, stored by neither.
    const bundle = await bundleOf(d2, t2, true);
    expect(await pushBundle(r1.url, bundle)).toEqual({ status: 401, code: 'auth/unauthenticated' });
    expect(await pushBundle(r3.url, bundle)).toEqual({ status: 401, code: 'auth/unauthenticated' });
    const s1 = await openFileStore(d1);
    const s3 = await openFileStore(d3);
    expect(await s1.ticketIds()).toEqual([t1]);
    // `tik sync` both ways with R1: the pull stands, the refused push is reported (exit 0); --push alone fails.
    const probe = await supportStore();
    dirs.push(probe);
    const tp = await made(probe, 'x');
    const both = await tik(probe, ['sync', r1.url, '--json']);
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toMatchObject({ ok: true, pulled: 1, pushed: 0, pushRefused: { code: 'auth/unauthenticated', status: 401 } });
    expect(both.stderr).toMatch(/refused the push/);
    const onlyPush = await tik(probe, ['sync', r1.url, '--push']);
    expect([onlyPush.code, onlyPush.stderr]).toEqual([1, expect.stringMatching(/sync\/push-refused/)]);
    expect((await s1.ticketIds()).includes(tp)).toBe(false);

    // R2 syncs with both by anti-entropy, presenting TIK_PEER_TOKEN: R3 takes its push, R1 refuses it.
    const r2 = await serve(d2, ['--peer', r1.url, '--peer', r3.url, '--interval', '0.2'], { TIK_PEER_TOKEN: 'peer-secret' });
    const s2 = await openFileStore(d2);
    await until('R2 pulled from both', async () => ((await s2.ticketIds()).includes(t1) && (await s2.ticketIds()).includes(t3) ? true : undefined));
    await until('R3 holds R2’s ticket', async () => ((await s3.ticketIds()).includes(t2) ? true : undefined));
    type Health = { peerStatus: { url: string; state: string; pushRefused?: { code: string; status: number; retryAt?: string } }[] };
    const h = await until('R1’s refusal on R2 /health', async () => {
      const body = (await (await fetch(`${r2.url}/health`)).json()) as Health;
      return body.peerStatus.find((p) => p.url === r1.url)?.pushRefused && body.peerStatus.find((p) => p.url === r3.url)?.state === 'ok' ? body : undefined;
    });
    const p1 = h.peerStatus.find((p) => p.url === r1.url)!;
    expect(p1).toMatchObject({ state: 'ok', pushRefused: { code: 'auth/unauthenticated', status: 401, retryAt: expect.any(String) } });
    expect(h.peerStatus.find((p) => p.url === r3.url)).toMatchObject({ state: 'ok' });
    expect(h.peerStatus.find((p) => p.url === r3.url)!.pushRefused).toBeUndefined();
    expect((await s1.ticketIds()).includes(t2)).toBe(false);
    expect(r2.output()).toMatch(/peer refused our push/);
    expect(r2.output()).not.toMatch(/quarantined/);
  }, 180_000);
});
