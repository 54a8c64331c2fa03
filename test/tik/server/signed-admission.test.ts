import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TikError } from '../../../src/tik/errors.js';
import { signedFilter } from '../../../src/tik/server/signed-admission.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { encodeBundle, receiveBundle, type Bundle } from '../../../src/tik/sync/index.js';
import { cleanup, json, supportStore, tempDir, tik } from '../cli/harness.js';

// Issue 13, "definitions verified against their hash and, under the `signed` policy, signed": a
// `--admit signed` replica admits a definition it does not hold only with a publication signature
// (`tik process sign`, namespace tik-process) by a key its actors register lists. Before, a
// validly signed create carried an unsigned definition in with it.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

const keys = tempDir('tik-keys-');
dirs.push(keys);
function keypair(name: string): string {
  const path = join(keys, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return path;
}
const ALICE = keypair('alice');
const MALLORY = keypair('mallory');

/** Alice's store with one ticket whose create alice signed; `publishWith` signs the definition first. */
async function sender(publishWith?: string): Promise<{ store: FileStore; ticket: string; hash: string }> {
  const dir = await supportStore();
  dirs.push(dir);
  if (publishWith !== undefined) {
    const pub = await tik(dir, ['process', 'sign', 'support-request', '--key', publishWith, '--json']);
    expect(pub.code, pub.stderr).toBe(0);
  }
  const made = await tik(dir, ['--actor', 'alice', 'new', 'support-request', '--json'], { TIK_KEY: ALICE });
  expect(made.code, made.stderr).toBe(0);
  const { ticket, process } = json<{ ticket: string; process: { hash: string } }>(made);
  return { store: new FileStore(dir), ticket, hash: process.hash };
}

/** What a peer sends for that ticket: the event, its signature, the pinned definition and the definition's signatures. */
async function bundleOf(s: { store: FileStore; ticket: string; hash: string }): Promise<Bundle> {
  const events = (await s.store.events(s.ticket)).map((e) => ({ ticket: s.ticket, id: e.id, bytes: e.bytes }));
  const sidecars = [];
  for (const name of await s.store.sidecarNames(s.ticket)) sidecars.push({ ticket: s.ticket, name, bytes: (await s.store.readSidecar(s.ticket, name))! });
  const processSidecars = [];
  for (const name of await s.store.processSidecarNames(s.hash)) processSidecars.push({ name, bytes: (await s.store.readProcessSidecar(s.hash, name))! });
  return { processes: [(await s.store.readProcessByHash(s.hash))!], blobs: [], events, sidecars, processSidecars };
}

/** A `--admit signed` replica whose actors register holds alice's key. */
async function signedReplica(): Promise<FileStore> {
  const dir = await supportStore();
  dirs.push(dir);
  expect((await tik(dir, ['actor', 'add', 'alice', `${ALICE}.pub`])).code).toBe(0);
  return new FileStore(dir);
}

async function refusalOf(p: Promise<unknown>): Promise<{ code: string; message: string; hint?: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TikError) return { code: e.code, message: e.message, ...(e.hint !== undefined ? { hint: e.hint } : {}) };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('--admit signed judges definitions too', () => {
  it('an unsigned definition pushed with a validly signed create is refused, and nothing is stored', async () => {
    const alice = await sender();
    const far = await signedReplica();
    const r = await refusalOf(receiveBundle(far, encodeBundle(await bundleOf(alice)), { filter: signedFilter(far, 'error') }));
    expect(r.code).toBe('auth/unsigned');
    expect(r.message).toMatch(/pins the definition sha256-[0-9a-f]{64}, which carries no publication signature/);
    expect(r.hint).toMatch(/tik process sign/);
    expect(await far.ticketIds()).toEqual([]);
    expect(await far.readProcessByHash(alice.hash)).toBeUndefined();
  });

  it('a definition signed by a key the register does not list is refused (auth/bad-signature)', async () => {
    const alice = await sender(MALLORY);
    const far = await signedReplica();
    const r = await refusalOf(receiveBundle(far, encodeBundle(await bundleOf(alice)), { filter: signedFilter(far, 'error') }));
    expect(r.code).toBe('auth/bad-signature');
    expect(r.message).toMatch(/pins the definition .* is not signed by a key in the actors register/);
    expect(await far.ticketIds()).toEqual([]);
  });

  it('a pulled bundle with an unsigned definition stores nothing of that ticket and reports it (the sync succeeds)', async () => {
    const alice = await sender();
    const far = await signedReplica();
    const s = await receiveBundle(far, encodeBundle(await bundleOf(alice)), { filter: signedFilter(far, 'report') });
    expect(s.stored).toBe(0);
    expect(s.refused?.map((x) => [x.ticket, x.code])).toEqual([[alice.ticket, 'auth/unsigned']]);
    expect(await far.ticketIds()).toEqual([]);
    expect(await far.readProcessByHash(alice.hash)).toBeUndefined();
  });

  it('a definition published with tik process sign by a registered key enters with its signature', async () => {
    const alice = await sender(ALICE);
    const far = await signedReplica();
    const s = await receiveBundle(far, encodeBundle(await bundleOf(alice)), { filter: signedFilter(far, 'error') });
    expect(s.stored).toBe(1);
    expect(await far.readProcessByHash(alice.hash)).toBe(await alice.store.readProcessByHash(alice.hash));
    // the publication signature travels and is stored beside the definition
    expect(await far.processSidecarNames(alice.hash)).toEqual(await alice.store.processSidecarNames(alice.hash));
    const v = await tik(far.base, ['verify', '--json']);
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('a definition the replica already holds needs no signature (it did not enter now)', async () => {
    const alice = await sender();
    const far = await signedReplica();
    await far.archiveProcess((await alice.store.readProcessByHash(alice.hash))!);
    const s = await receiveBundle(far, encodeBundle(await bundleOf(alice)), { filter: signedFilter(far, 'error') });
    expect(s.stored).toBe(1);
  });

  it('a forged definition signature is refused by admission whatever the policy', async () => {
    const alice = await sender(ALICE);
    const b = await bundleOf(alice);
    const open = await signedReplica();
    const forged = { ...b, processSidecars: b.processSidecars!.map((x) => ({ name: x.name, bytes: Buffer.from(String(x.bytes).replace(/[A-Za-z](?=[^-]*-----END)/, (c) => (c === 'A' ? 'B' : 'A'))) })) };
    const r = await refusalOf(receiveBundle(open, encodeBundle(forged)));
    expect(r.code).toBe('sync/refused');
    expect(r.message).toMatch(/definition signature .* is refused/);
  });
});
