import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fpr16, signSshSignature } from '../../../src/core/sshsig.js';
import { Instant, kw } from '../../../src/tik/edn/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import type { StoreProblem } from '../../../src/tik/store/problem.js';
import { storeRoot } from '../../../src/tik/store/store-root.js';
import { loadSigningKey, signEvent, signProcess, verifyStore, witnessEvent, witnessRoot, type VerifyReport } from '../../../src/tik/verify/index.js';
import { T0, TICKET, buildStore, copyCorpus, eventPath, makeKey, mint, snapshot, type Built, type Key } from './store-fixture.js';

let keyDir: string;
let seb: Key;
let bob: Key;
const NOW = new Instant(T0 + 3_600_000);

beforeAll(() => {
  keyDir = mkdtempSync(join(tmpdir(), 'tik-verify-keys-'));
  seb = makeKey(keyDir, 'seb');
  bob = makeKey(keyDir, 'bob');
});
afterAll(() => rmSync(keyDir, { recursive: true, force: true }));

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

async function built(options?: Parameters<typeof buildStore>[0]): Promise<Built> {
  const b = await buildStore(options);
  cleanups.push(b.cleanup);
  return b;
}

/** A signed, archived, clean store with actors seb and bob. */
async function signedStore(): Promise<Built> {
  const b = await built();
  await b.store.addActor('seb', seb.pubLine);
  await b.store.addActor('bob', bob.pubLine);
  for (const id of b.ids) await signEvent(b.store, TICKET, id, seb.key);
  return b;
}

const codes = (ps: readonly StoreProblem[]): string[] => ps.map((p) => p.code);
const ticketOf = (r: VerifyReport) => r.tickets.find((t) => t.ticket === TICKET)!;

describe('verify: a clean store passes', () => {
  it('a signed, archived store passes L0, L1 and L2', async () => {
    const b = await signedStore();
    const r = await verifyStore(b.store, { now: NOW });
    expect(r.ok).toBe(true);
    expect(r.store).toEqual({ ok: true, problems: [], notes: [] });
    const t = ticketOf(r);
    expect(t).toMatchObject({ ok: true, events: 3, signed: 3 });
    for (const level of ['L0', 'L1', 'L2', 'L3'] as const) expect(t.levels[level]).toEqual({ ok: true, problems: [], notes: [] });
  });

  it('unsigned events are "authenticity unclaimed": a note, not a failure', async () => {
    const b = await built();
    const t = ticketOf(await verifyStore(b.store, { now: NOW }));
    expect(t.ok).toBe(true);
    expect(t.signed).toBe(0);
    expect(t.levels.L1.problems).toEqual([]);
    expect(t.levels.L1.notes).toMatchObject([{ code: 'L1/unsigned', message: '3 of 3 event(s) unsigned (authenticity unclaimed)' }]);
  });

  for (const c of ['support-closed-sticky', 'sweep-order-negation']) {
    it(`the corpus case ${c} passes every level`, async () => {
      const { root, cleanup } = copyCorpus(c);
      cleanups.push(cleanup);
      const r = await verifyStore(openFileStore(root), { now: new Instant(Date.parse('2026-07-09T00:00:00Z')) });
      expect(r.tickets.map((t) => [t.levels.L0.problems, t.levels.L1.problems, t.levels.L2.problems])).toEqual([[[], [], []]]);
      expect(r.ok).toBe(true);
    });
  }

  it('the concurrent-conflict corpus case fails L0 with two roots, as upstream says, and nothing else', async () => {
    const { root, cleanup } = copyCorpus('concurrent-conflict');
    cleanups.push(cleanup);
    const r = await verifyStore(openFileStore(root));
    expect(r.ok).toBe(false);
    const [t] = r.tickets;
    expect(codes(t!.levels.L0.problems)).toEqual(['L0/roots']);
    expect(t!.levels.L0.problems[0]!.message).toBe(
      'ticket 018f2f6e-7c1a-7000-8000-00000000f0fc has 2 roots: ' +
        'sha256-403266e30b8dde6c5b3f48eb57be5520f5e6b5bdd6c1ea574dcdc22ffd377f4b, ' +
        'sha256-da34ff64d1f028caf0586ac21502c758eeeb8efed5759e40dfbffbc465b33050',
    );
    expect(t!.levels.L1.ok).toBe(true);
    expect(t!.levels.L2.ok).toBe(true);
  });
});

describe('verify: L0 integrity', () => {
  it('a tampered byte fails with the file and the hash it really has', async () => {
    const b = await built();
    const path = eventPath(b.root, TICKET, b.ids[1]!);
    writeFileSync(path, readFileSync(path, 'utf8').replace(':billing', ':bil1ing'));
    const t = ticketOf(await verifyStore(b.store, { now: NOW }));
    expect(t.ok).toBe(false);
    expect(codes(t.levels.L0.problems)).toEqual(['L0/hash-mismatch']);
    expect(t.levels.L0.problems[0]).toMatchObject({ event: b.ids[1], where: `tickets/${TICKET}/events/${b.ids[1]}.edn` });
    expect(t.levels.L0.problems[0]!.message).toMatch(/the bytes hash to sha256-[0-9a-f]{64}, not to the file name/);
  });

  it('law: flipping any byte of any event file fails L0 for that event', async () => {
    const b = await built();
    const originals = b.ids.map((id) => readFileSync(eventPath(b.root, TICKET, id)));
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 2 }), fc.nat(), fc.integer({ min: 1, max: 255 }), async (which, pos, mask) => {
        const id = b.ids[which]!;
        const bytes = Buffer.from(originals[which]!);
        const i = pos % bytes.length;
        bytes[i] = bytes[i]! ^ mask;
        writeFileSync(eventPath(b.root, TICKET, id), bytes);
        try {
          const t = ticketOf(await verifyStore(b.store));
          expect(t.levels.L0.ok).toBe(false);
          expect(t.levels.L0.problems.some((p) => p.code === 'L0/hash-mismatch' && p.event === id)).toBe(true);
        } finally {
          writeFileSync(eventPath(b.root, TICKET, id), originals[which]!);
        }
      }),
      { numRuns: 40 },
    );
    expect((await verifyStore(b.store)).ok).toBe(true);
  }, 120_000);

  it('a renamed file fails: its name is not its hash, and its child loses a parent', async () => {
    const b = await built();
    const fake = `sha256-${'0'.repeat(64)}`;
    renameSync(eventPath(b.root, TICKET, b.ids[1]!), eventPath(b.root, TICKET, fake));
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L0.problems).sort()).toEqual(['L0/hash-mismatch', 'L0/missing-parent']);
    expect(t.levels.L0.problems.find((p) => p.code === 'L0/hash-mismatch')!.event).toBe(fake);
    expect(t.levels.L0.problems.find((p) => p.code === 'L0/missing-parent')!.message).toBe(
      `event ${b.ids[2]} names parent ${b.ids[1]}, which is not in the log`,
    );
  });

  it('a missing parent is named', async () => {
    const b = await built();
    unlinkSync(eventPath(b.root, TICKET, b.ids[1]!));
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L0.problems).toMatchObject([{ code: 'L0/missing-parent', event: b.ids[2] }]);
    expect(t.levels.L0.problems[0]!.message).toContain(b.ids[1]);
    expect(t.levels.L2.ok).toBe(true); // the rest still derives
  });

  it('bytes that hash to their name but are not canonical fail', async () => {
    const b = await built();
    const text = `${readFileSync(eventPath(b.root, TICKET, b.ids[1]!), 'utf8')}\n`;
    const { createHash } = await import('node:crypto');
    const id = `sha256-${createHash('sha256').update(text).digest('hex')}`;
    writeFileSync(eventPath(b.root, TICKET, id), text);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L0.problems).toMatchObject([{ code: 'L0/not-canonical', event: id }]);
  });

  it('an event outside the schema, or in the wrong ticket directory, fails', async () => {
    const b = await built();
    const other = '018f2f6e-7c1a-7000-8000-0000000000bb';
    const stray = mint(other, 'fact/assert', 'seb', T0 + 1, [b.ids[0]!], [
      ['fact/path', [kw('x')]],
      ['fact/value', 1n],
    ]);
    await b.store.append(TICKET, stray.id, stray.bytes);
    // an unknown type arrives only from elsewhere: write its canonical bytes directly
    const text = readFileSync(eventPath(b.root, TICKET, b.ids[1]!), 'utf8').replace(':event/type :fact/assert', ':event/type :fact/guess');
    const { createHash } = await import('node:crypto');
    const unknownId = `sha256-${createHash('sha256').update(text).digest('hex')}`;
    await b.store.append(TICKET, unknownId, Buffer.from(text));
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L0.problems.find((p) => p.code === 'L0/schema')).toMatchObject({
      event: unknownId,
      message: expect.stringContaining(':event/type :fact/guess is not one of'),
    });
    expect(t.levels.L0.problems.find((p) => p.code === 'L0/wrong-ticket')).toMatchObject({
      event: stray.id,
      message: expect.stringContaining(`names ticket ${other}`),
    });
    expect(codes(t.levels.L0.problems).sort()).toEqual(['L0/schema', 'L0/wrong-ticket']);
  });

  it('an event file that does not parse fails L0 and is left out of the derivation', async () => {
    const b = await built();
    const text = '{:event/actor "seb"';
    const { createHash } = await import('node:crypto');
    const id = `sha256-${createHash('sha256').update(text).digest('hex')}`;
    await b.store.append(TICKET, id, Buffer.from(text));
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L0.problems).toMatchObject([{ code: 'L0/malformed', event: id }]);
    expect(t.levels.L2.ok).toBe(true);
  });

  it('events dated after now are noted, not failed', async () => {
    const b = await built();
    const t = ticketOf(await verifyStore(b.store, { now: new Instant(T0 + 90_000) }));
    expect(t.ok).toBe(true);
    expect(t.levels.L0.notes).toMatchObject([
      { code: 'L0/future-dated', event: b.ids[2], message: expect.stringContaining('2026-07-08T10:02:00Z, after now (2026-07-08T10:01:30Z)') },
    ]);
  });

  it('an empty ticket directory fails', async () => {
    const b = await built();
    const empty = '018f2f6e-7c1a-7000-8000-0000000000cc';
    mkdirSync(join(b.root, 'tickets', empty, 'events'), { recursive: true });
    const r = await verifyStore(b.store);
    const t = r.tickets.find((x) => x.ticket === empty)!;
    expect(codes(t.levels.L0.problems)).toEqual(['L0/no-events']);
    expect(codes(t.levels.L2.problems)).toEqual(['L2/no-events']);
    expect(r.ok).toBe(false);
  });
});

describe('verify: L1 authorship', () => {
  it('a signature over other bytes fails as a bad signature', async () => {
    const b = await signedStore();
    const forged = signSshSignature(seb.key, readFileSync(eventPath(b.root, TICKET, b.ids[0]!)), 'tik-event');
    writeFileSync(join(b.root, 'tickets', TICKET, 'events', `${b.ids[1]}.sig.${fpr16(seb.key.publicKey.base64)}`), forged);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L1.problems).toMatchObject([{ code: 'L1/bad-signature', event: b.ids[1] }]);
    expect(t.signed).toBe(2);
    expect(t.ok).toBe(false);
  });

  it("a valid signature by another actor's key fails as the wrong actor", async () => {
    const b = await signedStore();
    await signEvent(b.store, TICKET, b.ids[2]!, bob.key);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L1.problems).toMatchObject([
      { code: 'L1/wrong-actor', event: b.ids[2], message: expect.stringContaining(`belongs to bob, not "seb"`) },
    ]);
  });

  it('a key not in actors fails as unknown', async () => {
    const b = await built();
    await b.store.addActor('bob', bob.pubLine);
    await signEvent(b.store, TICKET, b.ids[0]!, seb.key);
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L1.problems)).toEqual(['L1/unknown-key']);
    expect(t.levels.L1.problems[0]!.hint).toContain('tik actor add seb');
  });

  it('a signature file named for another key fails', async () => {
    const b = await signedStore();
    const name = `${b.ids[0]}.sig.${fpr16(seb.key.publicKey.base64)}`;
    const dir = join(b.root, 'tickets', TICKET, 'events');
    renameSync(join(dir, name), join(dir, `${b.ids[0]}.sig.${fpr16(bob.key.publicKey.base64)}`));
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L1.problems)).toEqual(['L1/fingerprint-mismatch']);
  });

  it('garbage in a signature sidecar fails without crashing', async () => {
    const b = await signedStore();
    writeFileSync(join(b.root, 'tickets', TICKET, 'events', `${b.ids[0]}.sig.${fpr16(seb.key.publicKey.base64)}`), 'not a signature');
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L1.problems)).toEqual(['L1/malformed-signature']);
  });

  it('a signature in another namespace fails', async () => {
    const b = await signedStore();
    const other = signSshSignature(seb.key, readFileSync(eventPath(b.root, TICKET, b.ids[0]!)), 'tik-witness');
    writeFileSync(join(b.root, 'tickets', TICKET, 'events', `${b.ids[0]}.sig.${fpr16(seb.key.publicKey.base64)}`), other);
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L1.problems)).toEqual(['L1/wrong-namespace']);
  });

  it('a broken actors file fails every signature check, and the store', async () => {
    const b = await signedStore();
    writeFileSync(join(b.root, 'actors'), 'seb\n');
    const r = await verifyStore(b.store);
    expect(codes(r.store.problems)).toEqual(['store/bad-actors']);
    expect(codes(ticketOf(r).levels.L1.problems)).toEqual(['L1/no-actors', 'L1/no-actors', 'L1/no-actors']);
  });

  it('a signature for an event that is not there is noted', async () => {
    const b = await signedStore();
    unlinkSync(eventPath(b.root, TICKET, b.ids[2]!));
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L1.ok).toBe(true);
    expect(codes(t.levels.L1.notes)).toEqual(['L1/orphan-signature']);
  });
});

describe('verify: L2 the pin', () => {
  it('an unresolvable pin fails, naming what is missing', async () => {
    const b = await built({ archive: false, named: false });
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L2.problems).toMatchObject([
      {
        code: 'L2/unresolved',
        message: `the pinned definition cannot be found: processes/demo.edn does not exist and processes/by-hash/${b.hash}.edn is absent`,
      },
    ]);
    expect(t.levels.L0.ok).toBe(true);
  });

  it('without an archive, a named definition with the pinned hash passes', async () => {
    const b = await built({ archive: false });
    const t = ticketOf(await verifyStore(b.store));
    expect(t.ok).toBe(true);
  });

  it('a named definition whose hash differs from the pin fails L2', async () => {
    const b = await built({ archive: false, named: DEFINITION_WITH_HINT });
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L2.problems)).toEqual(['L2/pin-mismatch']);
    expect(t.levels.L2.problems[0]!.message).toContain(`pinned to ${b.hash}, which is not archived`);
  });

  it('an edited archive fails L2 for the ticket and the store-wide check', async () => {
    const b = await built();
    const path = join(b.root, 'processes', 'by-hash', `${b.hash}.edn`);
    writeFileSync(path, readFileSync(path, 'utf8').replace(':done', ':finished'));
    const r = await verifyStore(b.store);
    expect(codes(ticketOf(r).levels.L2.problems)).toEqual(['L2/by-hash-mismatch']);
    expect(codes(r.store.problems)).toEqual(['store/by-hash-mismatch']);
  });

  it('a definition the kernel cannot evaluate fails L2', async () => {
    const bad = '{:process/id :demo :process/version 1 :process/stages [{:stage/id :open :guards [[:frobnicate 1]]}]}';
    const b = await built({ archive: false, named: bad, pinHash: undefined });
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L2.ok).toBe(false);
    expect(codes(t.levels.L2.problems).every((c) => c === 'L2/derivation' || c === 'L2/unreadable' || c === 'L2/pin-mismatch')).toBe(true);
    expect(t.levels.L2.problems.some((p) => p.code === 'L2/derivation' || p.code === 'L2/unreadable')).toBe(true);
    expect(t.levels.L2.problems.map((p) => p.message).join(' ')).toContain('frobnicate');
  });

  it('a ticket whose create is missing fails L2 as unpinned', async () => {
    const b = await built();
    unlinkSync(eventPath(b.root, TICKET, b.ids[0]!));
    const t = ticketOf(await verifyStore(b.store));
    expect(codes(t.levels.L2.problems)).toEqual(['L2/unpinned']);
    expect(codes(t.levels.L0.problems).sort()).toEqual(['L0/missing-parent', 'L0/roots']);
  });
});

const DEFINITION_WITH_HINT = `{:process/id :demo
 :process/version 1
 :process/stages [{:stage/id :open :guards [] :hint "new"}
                  {:stage/id :done :after [:open] :guards [[:fact [:resolution]]]}]}`;

describe('verify: store-wide archive', () => {
  it('archive signatures verify against actors in namespace tik-process', async () => {
    const b = await signedStore();
    const s = await signProcess(b.store, b.hash, seb.key);
    expect(s.name).toBe(`${b.hash}.sig.${fpr16(seb.key.publicKey.base64)}`);
    expect((await verifyStore(b.store)).store.ok).toBe(true);
    // an event-namespace signature over the definition is not a process signature
    writeFileSync(join(b.root, 'processes', 'by-hash', s.name), signSshSignature(seb.key, readFileSync(join(b.root, 'processes', 'by-hash', `${b.hash}.edn`)), 'tik-event'));
    const r = await verifyStore(b.store);
    expect(codes(r.store.problems)).toEqual(['store/bad-process-signature']);
    expect(r.ok).toBe(false);
  });

  it('a non-canonical archive that still hashes to its name fails', async () => {
    const b = await built();
    const text = `${readFileSync(join(b.root, 'processes', 'by-hash', `${b.hash}.edn`), 'utf8')}\n`;
    const { createHash } = await import('node:crypto');
    const h = `sha256-${createHash('sha256').update(text).digest('hex')}`;
    writeFileSync(join(b.root, 'processes', 'by-hash', `${h}.edn`), text);
    expect(codes((await verifyStore(b.store)).store.problems)).toEqual(['store/by-hash-not-canonical']);
  });
});

describe('verify reads only', () => {
  it('verify writes nothing, whatever the store holds', async () => {
    const b = await signedStore();
    writeFileSync(eventPath(b.root, TICKET, b.ids[1]!), 'garbage');
    writeFileSync(join(b.root, 'roles.edn'), '{:a');
    mkdirSync(join(b.root, 'tickets', 'not-a-uuid'));
    const before = snapshot(b.root);
    const r = await verifyStore(b.store, { now: NOW });
    expect(r.ok).toBe(false);
    expect(snapshot(b.root)).toBe(before);
  });

  it('verifying one ticket checks only it', async () => {
    const b = await signedStore();
    const r = await verifyStore(b.store, { ticket: TICKET });
    expect(r.tickets.map((t) => t.ticket)).toEqual([TICKET]);
    await expect(verifyStore(b.store, { ticket: 'nope' })).rejects.toMatchObject({ code: 'store/bad-ticket' });
  });

  it('a malformed roles.edn fails L2 with the file named', async () => {
    const b = await built();
    writeFileSync(join(b.root, 'roles.edn'), '{:a');
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L2.problems).toMatchObject([{ code: 'L2/roles', where: 'roles.edn' }]);
  });
});

describe('signing', () => {
  it('our sidecar is the one ssh-keygen -Y sign writes, and ssh-keygen verifies it against actors', async () => {
    const b = await signedStore();
    const id = b.ids[1]!;
    const sidecar = join(b.root, 'tickets', TICKET, 'events', `${id}.sig.${fpr16(seb.key.publicKey.base64)}`);
    const file = join(keyDir, 'event.edn');
    writeFileSync(file, readFileSync(eventPath(b.root, TICKET, id)));
    spawnSync('ssh-keygen', ['-Y', 'sign', '-f', seb.path, '-n', 'tik-event', file]);
    expect(readFileSync(sidecar, 'utf8')).toBe(readFileSync(`${file}.sig`, 'utf8'));
    const res = spawnSync('ssh-keygen', ['-Y', 'verify', '-f', join(b.root, 'actors'), '-I', 'seb', '-n', 'tik-event', '-s', sidecar], {
      input: readFileSync(eventPath(b.root, TICKET, id)),
    });
    expect(res.status).toBe(0);
    rmSync(`${file}.sig`);
  });

  it('signing is idempotent and can be restricted to the actor\'s own events', async () => {
    const b = await signedStore();
    expect((await signEvent(b.store, TICKET, b.ids[0]!, seb.key)).written).toBe(false);
    await expect(signEvent(b.store, TICKET, b.ids[0]!, bob.key, { actor: 'bob' })).rejects.toMatchObject({ code: 'sign/not-own-event' });
    await expect(signEvent(b.store, TICKET, `sha256-${'1'.repeat(64)}`, seb.key)).rejects.toMatchObject({ code: 'event/not-found' });
    expect(await b.store.sidecarNames(TICKET)).toHaveLength(3);
  });

  it('refuses to sign bytes that do not hash to their name', async () => {
    const b = await built();
    writeFileSync(eventPath(b.root, TICKET, b.ids[0]!), 'edited');
    await expect(signEvent(b.store, TICKET, b.ids[0]!, seb.key)).rejects.toMatchObject({ code: 'event/hash-mismatch' });
    expect(await b.store.sidecarNames(TICKET)).toEqual([]);
  });
});

describe('non-Ed25519 keys fall back to the real ssh-keygen', () => {
  let ecdsa: { path: string; pubLine: string; fpr: string };
  beforeAll(() => {
    const path = join(keyDir, 'ecdsa');
    spawnSync('ssh-keygen', ['-q', '-t', 'ecdsa', '-N', '', '-f', path]);
    const pubLine = readFileSync(`${path}.pub`, 'utf8');
    ecdsa = { path, pubLine, fpr: fpr16(pubLine.split(' ')[1]!) };
  });

  function sshSign(b: Built, id: string, bytes?: Buffer): void {
    const file = join(keyDir, `ev-${id.slice(7, 15)}`);
    writeFileSync(file, bytes ?? readFileSync(eventPath(b.root, TICKET, id)));
    rmSync(`${file}.sig`, { force: true });
    const r = spawnSync('ssh-keygen', ['-Y', 'sign', '-f', ecdsa.path, '-n', 'tik-event', file]);
    expect(r.status).toBe(0);
    writeFileSync(join(b.root, 'tickets', TICKET, 'events', `${id}.sig.${ecdsa.fpr}`), readFileSync(`${file}.sig`));
  }

  it('an ECDSA signature by the actor verifies', async () => {
    const b = await built();
    await b.store.addActor('seb', ecdsa.pubLine);
    sshSign(b, b.ids[0]!);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L1).toMatchObject({ ok: true, problems: [] });
    expect(t.signed).toBe(1);
  });

  it('an ECDSA signature over other bytes fails, and one by another actor fails as the wrong actor', async () => {
    const b = await built();
    await b.store.addActor('bob', ecdsa.pubLine);
    sshSign(b, b.ids[0]!, Buffer.from('other bytes'));
    sshSign(b, b.ids[1]!);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L1.problems.map((p) => [p.code, p.event])).toEqual([
      ['L1/bad-signature', b.ids[0]],
      ['L1/wrong-actor', b.ids[1]],
    ]);
  });

  it('signing keys must be unencrypted Ed25519, with a clear error otherwise', async () => {
    await expect(loadSigningKey(ecdsa.path)).rejects.toMatchObject({ code: 'key/unusable', hint: expect.stringContaining('ed25519') });
    await expect(loadSigningKey(join(keyDir, 'nope'))).rejects.toMatchObject({ code: 'key/unreadable', where: join(keyDir, 'nope') });
    expect((await loadSigningKey(seb.path)).publicKey.base64).toBe(seb.key.publicKey.base64);
  });
});

describe('law: bad input never crashes verify or a load, and never writes', () => {
  const junk = fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
    fc.constantFrom(
      '{:event/type :fact/assert}',
      '{:pack "sha256-0", :entries [{:id 1}]}',
      '-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n',
      '{:a #{1 1}}',
      '[[[[[[[[[[[[[[',
      'seb namespaces="tik-*" ssh-ed25519 AAAA',
    ).map((s) => Buffer.from(s)),
  );
  const places = fc.constantFrom(
    'event',
    'event-overwrite',
    'sidecar',
    'pack',
    'actors',
    'roles',
    'by-hash',
    'by-hash-overwrite',
    'named',
  );

  it('any junk in any store file yields a report, not an exception', async () => {
    const { loadTicket } = await import('../../../src/tik/store/load-ticket.js');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(places, junk), { minLength: 1, maxLength: 4 }), async (edits) => {
        const b = await buildStore();
        try {
          const events = join(b.root, 'tickets', TICKET, 'events');
          const { createHash } = await import('node:crypto');
          const h = (x: Buffer) => `sha256-${createHash('sha256').update(x).digest('hex')}`;
          for (const [place, bytes] of edits) {
            if (place === 'event') writeFileSync(join(events, `${h(bytes)}.edn`), bytes);
            if (place === 'event-overwrite') writeFileSync(eventPath(b.root, TICKET, b.ids[1]!), bytes);
            if (place === 'sidecar') writeFileSync(join(events, `${b.ids[0]}.sig.${'a'.repeat(16)}`), bytes);
            if (place === 'pack') writeFileSync(join(events, 'events.pack.idx'), bytes);
            if (place === 'actors') writeFileSync(join(b.root, 'actors'), bytes);
            if (place === 'roles') writeFileSync(join(b.root, 'roles.edn'), bytes);
            if (place === 'by-hash') writeFileSync(join(b.root, 'processes', 'by-hash', `${h(bytes)}.edn`), bytes);
            if (place === 'by-hash-overwrite') writeFileSync(join(b.root, 'processes', 'by-hash', `${b.hash}.edn`), bytes);
            if (place === 'named') writeFileSync(join(b.root, 'processes', 'demo.edn'), bytes);
          }
          const before = snapshot(b.root);
          const r = await verifyStore(b.store, { now: NOW });
          expect(typeof r.ok).toBe('boolean');
          for (const t of r.tickets) for (const p of [...t.levels.L0.problems, ...t.levels.L1.problems, ...t.levels.L2.problems]) {
            expect(p.message.length).toBeGreaterThan(0);
            expect(p.code).toMatch(/^L[012]\//);
          }
          // a load degrades too: problems, never an exception
          const t = await loadTicket(b.store, TICKET);
          for (const p of [...t.problems, ...t.warnings]) expect(p.message.length).toBeGreaterThan(0);
          expect(snapshot(b.root)).toBe(before);
        } finally {
          b.cleanup();
        }
      }),
      { numRuns: 50 },
    );
  }, 180_000);
});

describe('root witnesses', () => {
  it('a witness of the current root verifies, and ssh-keygen agrees over the regenerated document', async () => {
    const b = await signedStore();
    const w = await witnessRoot(b.store, seb.key);
    expect(w.name).toBe(`${w.root}.witness.${fpr16(seb.key.publicKey.base64)}`);
    const r = await verifyStore(b.store);
    expect(r.store).toEqual({ ok: true, problems: [], notes: [] });
    const doc = join(keyDir, 'root.edn');
    writeFileSync(doc, (await storeRoot(b.store)).document);
    const res = spawnSync('ssh-keygen', ['-Y', 'verify', '-f', join(b.root, 'actors'), '-I', 'seb', '-n', 'tik-witness', '-s', join(b.root, 'roots', w.name)], {
      input: readFileSync(doc),
    });
    expect(res.status).toBe(0);
  });

  it('after a new event the old witness is stale: noted, not failed', async () => {
    const b = await signedStore();
    const w = await witnessRoot(b.store, seb.key);
    const more = mint(TICKET, 'fact/assert', 'seb', T0 + 180_000, [b.ids[2]!], [
      ['fact/path', [kw('note')]],
      ['fact/value', 'x'],
    ]);
    await b.store.append(TICKET, more.id, more.bytes);
    const r = await verifyStore(b.store);
    expect(r.store.ok).toBe(true);
    expect(r.store.notes).toMatchObject([{ code: 'store/stale-root-witness', where: `roots/${w.name}` }]);
  });

  it('a witness by a key outside actors, or over other bytes, fails the store', async () => {
    const b = await signedStore();
    const { root } = await storeRoot(b.store);
    const carol = makeKey(keyDir, `carol-${Date.now()}`);
    await witnessRoot(b.store, carol.key);
    const forged = signSshSignature(seb.key, Buffer.from('another document'), 'tik-witness');
    writeFileSync(join(b.root, 'roots', `${root}.witness.${fpr16(seb.key.publicKey.base64)}`), forged);
    const r = await verifyStore(b.store);
    expect(r.ok).toBe(false);
    expect(r.store.problems.map((p) => p.code).sort()).toEqual(['store/bad-root-witness', 'store/bad-root-witness']);
    const messages = r.store.problems.map((p) => p.message).join('\n');
    expect(messages).toContain('is not in the allowed signers');
    expect(messages).toContain('signature does not match the bytes');
  });
});

describe('L3 head witnesses', () => {
  it('a head witnessed by anyone in actors passes, and ssh-keygen agrees', async () => {
    const b = await signedStore();
    const w = await witnessEvent(b.store, TICKET, b.ids[2]!, bob.key);
    expect(w.name).toBe(`${b.ids[2]}.witness.${fpr16(bob.key.publicKey.base64)}`);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L3).toEqual({ ok: true, problems: [], notes: [] });
    const res = spawnSync(
      'ssh-keygen',
      ['-Y', 'verify', '-f', join(b.root, 'actors'), '-I', 'bob', '-n', 'tik-witness', '-s', join(b.root, 'tickets', TICKET, 'events', w.name)],
      { input: readFileSync(eventPath(b.root, TICKET, b.ids[2]!)) },
    );
    expect(res.status).toBe(0);
  });

  it('a witness by a key outside actors, or over other bytes, fails L3', async () => {
    const b = await signedStore();
    const carol = makeKey(keyDir, `carol-w-${Date.now()}`);
    await witnessEvent(b.store, TICKET, b.ids[2]!, carol.key);
    const forged = signSshSignature(seb.key, readFileSync(eventPath(b.root, TICKET, b.ids[0]!)), 'tik-witness');
    writeFileSync(join(b.root, 'tickets', TICKET, 'events', `${b.ids[1]}.witness.${fpr16(seb.key.publicKey.base64)}`), forged);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.ok).toBe(false);
    expect(t.levels.L3.problems.map((p) => [p.code, p.event]).sort()).toEqual([
      ['L3/bad-signature', b.ids[1]],
      ['L3/unknown-key', b.ids[2]],
    ]);
    expect(t.levels.L1.ok).toBe(true);
  });

  it('a witnessed log that grew has unwitnessed heads: a note', async () => {
    const b = await signedStore();
    await witnessEvent(b.store, TICKET, b.ids[2]!, seb.key);
    const more = mint(TICKET, 'fact/assert', 'seb', T0 + 200_000, [b.ids[2]!], [
      ['fact/path', [kw('note')]],
      ['fact/value', 'y'],
    ]);
    await b.store.append(TICKET, more.id, more.bytes);
    const t = ticketOf(await verifyStore(b.store));
    expect(t.levels.L3.ok).toBe(true);
    expect(t.levels.L3.notes).toMatchObject([{ code: 'L3/unwitnessed-heads', message: `1 head(s) not witnessed: ${more.id}` }]);
  });
});
